// Command qvs computes quality-weighted Vendi scores and runs the diverse
// experimental-design campaigns of Nguyen & Dieng (ICML 2024).
package main

import (
	"os"

	"github.com/qvs-dev/qvs/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], os.Stdout, os.Stderr))
}

//go:build !unix

package space

import "os/exec"

// groupCommand runs line with sh -c; cancellation kills the command itself
// (default behaviour). Without Unix process groups, a command's children
// may outlive qvs.
func groupCommand(cmd func(name string, args ...string) *exec.Cmd, line string) (*exec.Cmd, func(), error) {
	return cmd("sh", "-c", line), func() {}, nil
}

//go:build !unix

package space

import "os/exec"

// killGroup: cancellation kills the command itself (default behaviour).
func killGroup(cmd *exec.Cmd) {}

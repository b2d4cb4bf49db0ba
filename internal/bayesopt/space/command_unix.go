//go:build unix

package space

import (
	"os"
	"os/exec"
	"syscall"
)

// groupWatch is the shell text run before the command: a background
// subshell of the command's process group that blocks reading fd 3, the
// read end of a pipe whose only write end qvs holds, and kills the whole
// group (SIGKILL to pid 0 = its own group) when the read returns, that is
// when qvs has closed the pipe or died in any way, kill -9 included. The
// main shell closes fd 3 and runs the command on the same line (its line
// numbers in messages stay those of the command).
//
// Linux's Pdeathsig is not used: it reaches only the direct child (the
// shell, not what the shell starts) and fires when the thread that forked
// the child exits, not the process; the pipe works on every Unix.
const groupWatch = `{ read x <&3; kill -KILL 0; } </dev/null >/dev/null 2>&1 & exec 3<&-; `

// groupCommand returns the command running line with sh -c in its own
// process group, which dies with qvs: cancellation (a time-out, an
// interrupt, a stdout overflow) kills the whole group, and so does qvs's
// death (see groupWatch), so a shell's children never outlive it and a
// resumed run never evaluates a batch beside the previous one's. done,
// called once the command has returned, closes the pipe: whatever the
// command left running in its group (a background job) is killed then.
func groupCommand(cmd func(name string, args ...string) *exec.Cmd, line string) (c *exec.Cmd, done func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	c = cmd("sh", "-c", groupWatch+line)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.ExtraFiles = []*os.File{r} // fd 3 in the child
	return c, func() { r.Close(); w.Close() }, nil
}

//go:build unix

package space

import (
	"context"
	"strings"
	"testing"
)

// TestCommandBackgroundJob: a command that exits but leaves a background
// job holding its stdout fails after Command's wait delay with a message a
// user can act on (it used to read "exec: WaitDelay expired before I/O
// complete"), never hangs for the job.
func TestCommandBackgroundJob(t *testing.T) {
	sp, err := Parse("s.yaml", []byte("parameters:\n  - {name: a, lower: 0, upper: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Command{Space: sp, Line: "sleep 5 & echo 1"}
	_, err = c.EvaluateBatch(context.Background(), [][]float64{{0.5}})
	if err == nil || !strings.Contains(err.Error(), "a process it started kept its stdout or stderr open") {
		t.Fatalf("error %v", err)
	}
}

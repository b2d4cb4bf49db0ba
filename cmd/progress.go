package cmd

import (
	"io"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/knn"
)

// stepLog is cli.StepLog under the names the campaign commands use.
type stepLog struct{ *cli.StepLog }

func newStepLog(w io.Writer, quiet bool) stepLog { return stepLog{cli.NewStepLog(w, quiet)} }
func (l stepLog) step(name string)               { l.Step(name) }
func (l stepLog) end()                           { l.End() }
func (l stepLog) progress() knn.ProgressFunc     { return l.Progress() }

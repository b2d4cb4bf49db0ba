package cmd

import "github.com/qvs-dev/qvs/internal/cli"

// The bounds on counts (cli.MaxRepeats ...), under cmd's names.
const (
	maxRepeats       = cli.MaxRepeats
	maxCandidates    = cli.MaxCandidates
	maxRegions       = cli.MaxRegions
	maxDiscreteBatch = cli.MaxDiscreteBatch
	maxWorkers       = cli.MaxWorkers
)

var checkAtMost = cli.CheckAtMost

var limitWhy = cli.LimitWhy

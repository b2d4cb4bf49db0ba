package cmd

import "github.com/qvs-dev/qvs/internal/cli"

// The bounds on counts a flag or config key sets (cli.MaxRepeats, ...),
// under the names the campaign commands use.
const (
	maxRepeats       = cli.MaxRepeats
	maxCandidates    = cli.MaxCandidates
	maxRegions       = cli.MaxRegions
	maxDiscreteBatch = cli.MaxDiscreteBatch
	maxWorkers       = cli.MaxWorkers
)

var checkAtMost = cli.CheckAtMost

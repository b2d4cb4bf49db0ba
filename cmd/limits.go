package cmd

import "github.com/qvs-dev/qvs/internal/cli"

// maxWorkers bounds --workers (cli.MaxWorkers).
const maxWorkers = cli.MaxWorkers

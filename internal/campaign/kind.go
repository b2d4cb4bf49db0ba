package campaign

import "context"

// Kind is one kind of campaign, its settings resolved (defaults, config
// file, flags): active search, continuous BayesOpt (a named task or a
// user's space), discrete BayesOpt and the scored-library replay each
// implement it, and one driver (cli.RunCampaign) runs every kind the same
// way: Plan, CheckConfig of the folder (Plan.Check), Open, Execute, the
// report line and the table. As gonum/optimize's Method, a kind says what
// it needs and the driver does the rest.
type Kind interface {
	// Plan validates the settings, every count limit included, and lists
	// the runs. It loads no data (only a file that names the settings,
	// such as a space file), so a refused setting costs nothing; its
	// errors are usage errors naming the flag or key.
	Plan() (*Plan, error)
	// Open loads what the runs read (pool, candidate set, objective) once
	// the folder's config.yaml accepted the plan, saying what it loaded on
	// the command's stderr, and returns the function each run executes.
	Open(ctx context.Context) (*Opened, error)
}

// Plan is what a Kind's Plan lists: the folder, the runs and the Spec
// fields that do not depend on the data.
type Plan struct {
	Dir  string // results directory
	Kind string // recorded as kind: in config.yaml; names the summary's table
	// Name starts the report line ("NAME: 20 of 48 run(s) finished ...").
	Name     string
	Runs     []Run
	Header   []string // of every run's record file
	Steps    int      // records of a complete run (0: Opened.Steps)
	Unit     string   // a record in the progress bar
	Config   any      // recorded in config.yaml (Spec.Config)
	Growable []string // keys a rerun may grow (CheckConfig)
	// Check compares Config with the folder's config.yaml before Open;
	// nil: CheckConfig(Dir, Config, Growable).
	Check func() error
	// Sequential runs one run at a time (each run uses every worker
	// inside); otherwise runs execute in parallel.
	Sequential bool
}

// CheckFolder is p.Check, or CheckConfig of p's folder.
func (p *Plan) CheckFolder() error {
	if p.Check != nil {
		return p.Check()
	}
	return CheckConfig(p.Dir, p.Config, p.Growable)
}

// Opened is what a Kind's Open returns.
type Opened struct {
	Run RunFunc
	// Inputs are the files the results depend on (Spec.Inputs).
	Inputs []Input
	// Prepare writes campaign-level files once every check passed
	// (Spec.Prepare); nil: none.
	Prepare func() error
	// Steps, if not 0, are the records of a complete run, when the data
	// decides them (a replay's amounts are fractions of the library).
	Steps int
	// Config, if not nil, is recorded instead of Plan.Config: what the
	// data decided (the kNN method a pool's graph used).
	Config any
}

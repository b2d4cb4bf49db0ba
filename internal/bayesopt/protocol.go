package bayesopt

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Protocol is the configuration of a continuous BayesOpt campaign
// (configs/rover.yaml, configs/lunar.yaml, configs/synthetic-bo.yaml, and
// `qvs bayesopt --space FILE --objective-cmd CMD`): its settings and their
// defaults (DefaultProtocol). It is recorded in DIR/config.yaml: every key
// that changes results is here; out, workers and shard are not.
type Protocol struct {
	Task string `yaml:"task"`
	// Common: out, kind, seed, methods, q, repeats, budget, init, batch,
	// the keys discrete BayesOpt shares.
	Common        `yaml:",inline"`
	Regions       int     `yaml:"regions"`
	Tau           float64 `yaml:"tau"`
	Candidates    int     `yaml:"candidates"`
	MaxTrain      int     `yaml:"max_train"`
	FitIterations int     `yaml:"fit_iterations"`
	QVSFloor      bool    `yaml:"qvs_floor,omitempty"`
	// QVSMode is qvs's algorithm: paper (recorded as absent, so configs of
	// earlier campaigns still match) or authors (modeAuthors).
	QVSMode string `yaml:"qvs_mode,omitempty"`
	// FailureTolerance (0: TuRBO's rule) and FailurePerPoint set the
	// trust-region failure rule of every method (ROBOT's code: 32, true).
	FailureTolerance int  `yaml:"failure_tolerance,omitempty"`
	FailurePerPoint  bool `yaml:"failure_per_point,omitempty"`
	// Sampler draws the Thompson samples: exact (recorded as absent) or
	// pathwise (SamplerPathwise).
	Sampler string `yaml:"sampler,omitempty"`
	// Own defines a campaign on the user's own problem (task: space):
	// its settings apply to no named task.
	Own `yaml:",inline"`
}

// Own are the settings of a campaign on an external objective (task:
// space, package space): the space file, the command evaluating a batch,
// its time limit, the direction and one process per point. A named task
// refuses every one of them (their flags are derived from these fields).
type Own struct {
	Space            string `yaml:"space,omitempty"`
	ObjectiveCmd     string `yaml:"objective_cmd,omitempty"`
	ObjectiveTimeout string `yaml:"objective_timeout,omitempty"`
	Minimize         bool   `yaml:"minimize,omitempty"`
	// ObjectivePerPoint starts the command once per point, and a point
	// whose process fails is a failed experiment (space.Command.PerPoint).
	ObjectivePerPoint bool `yaml:"objective_per_point,omitempty"`
}

// Common are the settings every BayesOpt campaign kind has (Protocol and
// discrete.Protocol embed it; in config.yaml its keys sit at the top
// level, after task: and name:): the seed, the methods, the orders q of
// the qvs runs, the repeats per method, the evaluations per run (budget,
// initial design included), the initial design and the batch. Out and
// Kind are read from a config, never recorded (the Protocols' MarshalYAML
// clears them).
type Common struct {
	Out string `yaml:"out,omitempty"`
	// Kind is read from a campaign's own config.yaml (kind:, written by
	// campaign.Spec.Kind) so that it can be given back with --config; not
	// recorded from here.
	Kind    string   `yaml:"kind,omitempty"`
	Seed    uint64   `yaml:"seed"`
	Methods []string `yaml:"methods"`
	// Q is parsed where it enters (the flag, the config); Validate writes
	// it canonically (vendi.Order.String: "0.50" is recorded as "0.5").
	Q       vendi.OrderList `yaml:"q"`
	Repeats int             `yaml:"repeats"`
	Budget  int             `yaml:"budget"`
	Init    int             `yaml:"init"`
	Batch   int             `yaml:"batch"`
}

// maxEvaluations bounds budget, init and batch: the evaluations of a run
// are held in memory and each is an objective call (the paper's largest
// budget is 800).
const maxEvaluations = 1_000_000

// ValidateCommon checks repeats and the orders q (parsed already; an
// Order set in Go code is checked here), writing them canonically
// (vendi.Order.String); it returns them. A refused value is a
// configkeys.SettingError naming its key. The methods and the rest are the
// kind's to check.
func (c *Common) ValidateCommon() ([]vendi.Order, error) {
	if c.Repeats < 1 {
		return nil, configkeys.Invalid("repeats", c.Repeats, "must be at least 1")
	}
	// The points of a run are held in memory (budget x dim values, the
	// initial design's init x dim at once): 10^9 evaluations asked for
	// 24 GB, 9223372036854775807 panicked in makeslice.
	for _, k := range []struct {
		key string
		v   int
	}{{"budget", c.Budget}, {"init", c.Init}, {"batch", c.Batch}} {
		if k.v > maxEvaluations {
			return nil, configkeys.Beyond(k.key, k.v, "expected at most %d evaluations per run", maxEvaluations)
		}
	}
	c.Q = c.Q.Canonical()
	for _, q := range c.Q.Orders() {
		if err := q.Validate(); err != nil {
			return nil, configkeys.Invalid("q", q.String(), "%v", err)
		}
	}
	if err := configkeys.Unique("q", c.Q.Text()); err != nil {
		return nil, err // an order given twice, as 1 and 1.0 say
	}
	return c.Q.Orders(), nil
}

// GrowableKeys are the keys a rerun into a campaign's folder may grow
// (campaign.CheckConfig): they only add runs, keyed as before.
var GrowableKeys = []string{"methods", "q", "repeats"}

// MarshalYAML records p in DIR/config.yaml without the keys that do not
// change results and are only read from a config: out, and kind (written
// beside the config by campaign.Spec.Kind, read back with --config).
func (p Protocol) MarshalYAML() (any, error) {
	type recorded Protocol // without this method
	r := recorded(p)
	r.Out, r.Kind = "", ""
	return r, nil
}

// DefaultProtocol returns the settings every task starts from: every
// method, q = 0.5, 1, 1.5, 10 repeats of budget 200 (20 initial points,
// batches of 10), M = 3 regions, tau = DefaultTau, 1,000 Thompson
// candidates and 300 training points per region, 30 L-BFGS iterations. A
// named task sets its own on top (tasks.DefaultProtocol: the paper's M and
// tau for rover and lunar). Out is left for the caller (the results
// folder).
func DefaultProtocol(task string) Protocol {
	return Protocol{
		Task: task,
		Common: Common{Methods: slices.Clone(Methods), Q: vendi.NewOrderList(0.5, 1, 1.5),
			Repeats: 10, Budget: 200, Init: 20, Batch: 10},
		Regions: 3, Tau: DefaultTau,
		Candidates: DefaultCandidates, MaxTrain: DefaultMaxTrain, FitIterations: DefaultFitIterations,
	}
}

// Validate checks the protocol and writes its defaults canonically (q as
// vendi.Order.String, sampler exact and qvs_mode paper as absent); it
// returns the orders of the qvs runs. A refused value is a
// configkeys.SettingError naming its key.
func (p *Protocol) Validate() ([]vendi.Order, error) {
	if p.Sampler == SamplerExact {
		p.Sampler = "" // the default, recorded as absent
	}
	if p.QVSMode == ModePaper {
		p.QVSMode = "" // the default, recorded as absent
	}
	qs, err := p.ValidateCommon()
	if err != nil {
		return nil, err
	}
	// The engine reads 0 as "its default", which config.yaml would then
	// record as 0: an explicit value below 1 is refused instead.
	for _, k := range []struct {
		key string
		v   int
	}{{"candidates", p.Candidates}, {"max_train", p.MaxTrain}, {"fit_iterations", p.FitIterations}} {
		if k.v < 1 {
			return nil, configkeys.Invalid(k.key, k.v, "must be at least 1")
		}
	}
	if len(p.Methods) == 0 {
		return nil, fmt.Errorf("no methods: expected some of %s", strings.Join(Methods, ", "))
	}
	if err := configkeys.Unique("methods", p.Methods); err != nil {
		return nil, err
	}
	if slices.Contains(p.Methods, MethodQVS) && len(qs) == 0 {
		return nil, fmt.Errorf("method qvs needs at least one order: set --q or q: in the config")
	}
	for _, m := range p.Methods {
		s := p.Settings(m, 1)
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	return qs, nil
}

// Settings are the engine settings of a run of method with order q.
func (p Protocol) Settings(method string, q vendi.Order) Settings {
	return Settings{Method: method, Q: q, Budget: p.Budget, Init: p.Init, Batch: p.Batch,
		Regions: p.Regions, Tau: p.Tau, Candidates: p.Candidates, MaxTrain: p.MaxTrain,
		FitIterations: p.FitIterations, TauFloor: p.QVSFloor && method == MethodQVS,
		Mode: p.QVSMode, Sampler: p.Sampler, FailureTolerance: p.FailureTolerance, FailurePerPoint: p.FailurePerPoint,
		Final: p.finalRule(), InitBatches: p.Space != ""}
}

// finalRule: a campaign of a user's space reports the band rule's final
// solutions (what qvs bayesopt solutions prints); the built-in tasks keep
// the paper's (the method's centres), so their records and summaries stay
// those of the paper's protocol.
func (p Protocol) finalRule() string {
	if p.Space != "" {
		return finalBand
	}
	return finalCentres
}

// Campaign is a validated protocol and its runs (Plan).
type Campaign struct {
	Protocol
	Runs     []campaign.Run      // repeat by repeat, then method, then q
	settings map[string]Settings // by run key
}

// Plan validates p and lists its runs repeat by repeat, so a partial
// campaign has every method for its first repeats; qvs has a run per
// order (keyed by RunKey), ROBOT's and qvs's params record tau.
func Plan(p Protocol) (*Campaign, error) {
	qs, err := p.Validate()
	if err != nil {
		return nil, err
	}
	c := &Campaign{Protocol: p, settings: map[string]Settings{}}
	tau := strconv.FormatFloat(p.Tau, 'g', -1, 64)
	add := func(run campaign.Run, s Settings) {
		c.Runs = append(c.Runs, run)
		c.settings[run.Key] = s
	}
	texts := p.Q.Text() // canonical: Validate
	for r := 0; r < p.Repeats; r++ {
		for _, m := range p.Methods {
			if m == MethodQVS {
				for k, q := range qs {
					params := ""
					switch {
					case p.QVSFloor:
						params = "floor tau=" + tau
					case p.QVSMode == modeAuthors:
						params = "authors tau=" + tau
					}
					add(campaign.Run{Key: RunKey(m, texts[k], p.QVSFloor, r), Method: m, Q: texts[k], Params: params, Repeat: r}, p.Settings(m, q))
				}
				continue
			}
			run := campaign.Run{Key: RunKey(m, "", false, r), Method: m, Repeat: r}
			if m == MethodROBOT {
				run.Params = "tau=" + tau
			}
			add(run, p.Settings(m, 1))
		}
	}
	return c, nil
}

// userObjective is an objective of the user's (space.Command): its
// solutions are written under the space's parameter names, in their units,
// with the value as the user's program printed it.
type userObjective interface {
	Objective
	Names() []string
	FormatPoint(x []float64) []string
	Printed(v float64) float64
}

// RunFunc executes one run of the campaign on obj: it resumes from the
// run's records, appends every evaluation to them, then writes the curve,
// solutions and distances files and returns the summary fields. Each run
// uses workers goroutines for its regions and batch. A run with failed
// evaluations says how many on warn (nil: nowhere).
func (c *Campaign) RunFunc(obj Objective, workers int, warn io.Writer) campaign.RunFunc {
	d := obj.Dim()
	user, _ := obj.(userObjective)
	coder, _ := obj.(RecordCoder)
	return func(ctx context.Context, run campaign.Run, rec *campaign.Recorder) ([]campaign.Field, error) {
		s := c.settings[run.Key]
		s.Workers = workers
		prior, err := ParseRecordsWith(rec.Rows(), d, coder)
		if err != nil && coder != nil {
			return nil, fmt.Errorf("%s: %w", rec.Path(), err)
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", rec.Key(), err)
		}
		if prior, err = keepCompleteIterations(rec, prior, s); err != nil {
			return nil, err
		}
		res, err := Optimize(ctx, obj, s, RunID{Seed: c.Seed, Key: run.Key, Repeat: run.Repeat}, prior,
			func(evs []Evaluation) error {
				rows := make([][]string, len(evs))
				for i, e := range evs {
					rows[i] = FormatRecordWith(e, coder)
				}
				if err := rec.Append(rows...); err != nil {
					return err
				}
				if user != nil {
					// The user's command may be a real experiment: its
					// batch's records are on disk before the next batch
					// starts, so a kill never makes it run a finished
					// batch again (built-in tasks overlap the write with
					// the next batch and recompute it after a kill).
					return rec.Flush()
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
		if n := res.Failures(); n > 0 && n == len(res.Evaluations) {
			// No best value: the summary would record -Inf, which no
			// reader (the campaign's table, a rerun, qvs eval) accepts.
			return nil, fmt.Errorf("every one of the %d evaluations failed (value failed in runs/%s.csv): the run has no best value; fix the objective, then delete runs/%s.csv to run it again", n, run.Key, run.Key)
		}
		if n := res.Failures(); n > 0 && warn != nil {
			fmt.Fprintf(warn, "qvs bayesopt: %s: %d of %d evaluations failed (value failed in runs/%s.csv; left out of the regression model, taught to the feasibility model)\n", run.Key, n, len(res.Evaluations), run.Key)
		}
		return writeRunFiles(rec, res, d, user)
	}
}

// writeRunFiles writes the curve, solutions and distances files and
// returns the run's summary fields. With a user objective the solutions
// are written for the user: the space's parameter names and values (not
// engine coordinates) and the value as the command printed it; built-in
// tasks write x0.. and the maximised value.
func writeRunFiles(rec *campaign.Recorder, res *Result, d int, user userObjective) ([]campaign.Field, error) {
	best := res.BestSoFar()
	curve := make([][]string, len(best))
	for i, v := range best {
		curve[i] = []string{strconv.Itoa(i + 1), formatFloat(v)}
	}
	if err := rec.WriteFile("curve", []string{"evaluations", "best_so_far"}, curve); err != nil {
		return nil, err
	}
	head := []string{"rank", "index", "value"}
	if user != nil {
		head = append(head, user.Names()...)
	}
	for j := 0; j < d && user == nil; j++ {
		head = append(head, "x"+strconv.Itoa(j))
	}
	var sols, dists [][]string
	minDist := math.Inf(1)
	for i, s := range res.Solutions {
		if user != nil {
			row := []string{strconv.Itoa(i + 1), strconv.Itoa(s.Index), formatFloat(user.Printed(s.Value))}
			sols = append(sols, append(row, user.FormatPoint(s.X)...))
		} else {
			row := []string{strconv.Itoa(i + 1), strconv.Itoa(s.Index), formatFloat(s.Value)}
			for _, x := range s.X {
				row = append(row, formatFloat(x))
			}
			sols = append(sols, row)
		}
		for j := i + 1; j < len(res.Solutions); j++ {
			dists = append(dists, []string{strconv.Itoa(i + 1), strconv.Itoa(j + 1), formatFloat(res.Distances[i][j])})
			minDist = math.Min(minDist, res.Distances[i][j])
		}
	}
	if math.IsInf(minDist, 1) {
		minDist = 0
	}
	if err := rec.WriteFile("solutions", head, sols); err != nil {
		return nil, err
	}
	if err := rec.WriteFile("distances", []string{"rank_a", "rank_b", "distance"}, dists); err != nil {
		return nil, err
	}
	fields := []campaign.Field{
		campaign.F("best_value", res.BestValue),
		campaign.F("solutions_mean_value", res.SolutionsMeanValue),
		campaign.F("solutions_mean_distance", res.SolutionsMeanDistance),
		campaign.F("solutions_min_distance", minDist),
		campaign.F("solutions_vs", res.SolutionsVS),
		campaign.I("evaluations", len(res.Evaluations)),
		campaign.I("restarts", res.Restarts),
	}
	if user != nil {
		// A user's command can fail; the paper's tasks never do, and their
		// summaries keep their columns.
		fields = append(fields, campaign.I("failures", res.Failures()))
	}
	return fields, nil
}

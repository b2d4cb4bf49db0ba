package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/bayesopt/space"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Bounds and defaults of `qvs bayesopt suggest`.
const (
	// DefaultSuggestCandidates is suggest's --candidates: 200, not the
	// campaigns' 1,000, so that a round costs about what Optuna's TPE does
	// on a 95-point history (docs/performance.md, BenchmarkSuggest95) at
	// the same regret (TestSamplerQualityTable).
	DefaultSuggestCandidates = 200
	// DefaultSuggestBatch is suggest's --batch, and a --space campaign's.
	DefaultSuggestBatch = 5
	// maxSuggestBatch bounds --batch with --space: the batch sets the
	// Thompson candidates per region (at least the batch) and the qvs
	// greedy over them grows faster than the cube of the batch; 500 takes
	// 0.7 GB and close to 3 min on the 2-core box, 100,000 ran out of
	// memory. maxPending bounds the pending rows (the qvs greedy carries
	// them as a prefix).
	maxSuggestBatch = 500
	maxPending      = 1000
)

// BOSuggestOptions are the settings of `qvs bayesopt suggest`: the shared
// ones, and those of a continuous space (--space) or of a discrete pool
// (--kernel) only.
type BOSuggestOptions struct {
	Observed, Method    string
	Format              Format
	Q                   vendi.Order
	Batch               int
	Init                int
	InitGiven           bool
	RawIDs, RetryFailed bool
	// OnKernel: a discrete pool (--kernel), else a continuous space.
	OnKernel   bool
	Continuous continuousSuggestSettings
	Discrete   discreteSuggestSettings
	// ContinuousFlags and DiscreteFlags are the flags given that apply to
	// one kind only (the settings table's rows of Continuous, Discrete).
	ContinuousFlags, DiscreteFlags []string
}

// continuousSuggestSettings apply to --space only.
type continuousSuggestSettings struct {
	Space, Pending                string
	Minimize                      bool
	Regions, Candidates, MaxTrain int
	Tau, LengthScale              float64
	LengthScaleGiven              bool
	QVSFloor                      bool
	QVSMode                       string
}

// discreteSuggestSettings apply to --kernel only.
type discreteSuggestSettings struct {
	Kernel, IDs, Name string
	Beta              float64
}

// DefaultBOSuggestOptions are the flags' defaults.
func DefaultBOSuggestOptions() BOSuggestOptions {
	return BOSuggestOptions{Method: "qvs", Format: formats(FormatCSV, FormatCSV, FormatTable, FormatJSON), Q: 1, Batch: DefaultSuggestBatch,
		Continuous: continuousSuggestSettings{Regions: 3, Tau: bayesopt.DefaultTau, Candidates: DefaultSuggestCandidates, MaxTrain: bayesopt.DefaultMaxTrain, QVSMode: bayesopt.ModePaper},
		Discrete:   discreteSuggestSettings{Name: discrete.TaskKernel, Beta: 2}}
}

// RunBOSuggest prints the next batch of experiments of the user's own
// problem: a continuous space or a discrete pool given by its kernel.
func RunBOSuggest(e *Env, o *BOSuggestOptions) error {
	if o.OnKernel {
		if err := onlyWith("--space", o.ContinuousFlags); err != nil {
			return err
		}
		return runDiscreteSuggest(e, o)
	}
	if err := onlyWith("--kernel", o.DiscreteFlags); err != nil {
		return err
	}
	return runContinuousSuggest(e, o)
}

// checkBatchMethod checks --batch (1 to maxBatch; why: what grows with it
// and what to do instead) and --method (one of methods).
func checkBatchMethod(batch, maxBatch int, why, method string, methods []string) error {
	switch {
	case batch < 1 || batch > maxBatch:
		return Usagef("--batch %d: expected 1 to %d (%s)", batch, maxBatch, why)
	case !slices.Contains(methods, method):
		return Usagef("--method %q: expected one of %s", method, strings.Join(methods, ", "))
	}
	return nil
}

// warnFailed tells w how many of the total experiments of observed failed
// (n > 0) and what suggest does about them: near says where no suggestion
// falls without --retry-failed.
func warnFailed(w io.Writer, n, total int, observed, near string, retry bool) {
	if n == 0 {
		return
	}
	what := "no suggestion " + near + " (--retry-failed allows it)"
	if retry {
		what = "--retry-failed: they may be suggested again"
	}
	fmt.Fprintf(w, "qvs bayesopt suggest: %d of %d experiments in %s failed: left out of the model; %s\n", n, total, observed, what)
}

// observedLabel names --observed in messages: the file, or "(no
// --observed: nothing evaluated yet)" on a cold start, which suggest
// treats as a file with the header alone.
func observedLabel(observed string) string {
	if observed == "" {
		return "(no --observed: nothing evaluated yet)"
	}
	return observed
}

func runContinuousSuggest(e *Env, o *BOSuggestOptions) error {
	c := &o.Continuous
	if err := checkBatchMethod(o.Batch, maxSuggestBatch, "the candidates and the qvs greedy grow with the batch; ask again with the results of this one", o.Method, bayesopt.Methods); err != nil {
		return err
	}
	q := o.Q
	sp, err := space.Load(c.Space)
	if err != nil {
		return err
	}
	minimize, err := sp.ResolveMinimize(c.Minimize)
	if err != nil {
		return Usagef("%v", err)
	}
	if c.LengthScaleGiven {
		if !(c.LengthScale > 0) || math.IsInf(c.LengthScale, 0) {
			return Usagef("--length-scale %v: must be a finite number > 0", c.LengthScale)
		}
		sp.LengthScale = c.LengthScale
	}
	// The engine reads 0 as "the default"; a user who writes 0 means
	// nothing sensible, so it is refused as a campaign config's is (the
	// settings table names the flag).
	for _, f := range []struct {
		key      string
		v, limit int
	}{{"candidates", c.Candidates, maxCandidates}, {"max_train", c.MaxTrain, math.MaxInt}, {"regions", c.Regions, maxRegions}} {
		if f.v < 1 {
			return SettingError("", f.key, f.v, "must be at least 1")
		}
		if err := checkAtMost("", f.key, f.v, f.limit); err != nil {
			return err
		}
	}
	init := o.Init
	if !o.InitGiven {
		init = space.DefaultInit(sp.Dim(), o.Batch, c.Regions)
	}
	s := bayesopt.Settings{Method: o.Method, Q: q, Init: init, Batch: o.Batch, Regions: c.Regions,
		Tau: c.Tau, Candidates: max(c.Candidates, o.Batch), MaxTrain: c.MaxTrain, FitIterations: bayesopt.DefaultFitIterations, Workers: e.Workers,
		RetryFailed: o.RetryFailed, TauFloor: c.QVSFloor, Mode: c.QVSMode}
	s.Budget = s.Init
	if (c.QVSFloor || c.QVSMode != bayesopt.ModePaper) && o.Method != bayesopt.MethodQVS {
		return Usagef("--qvs-floor and --qvs-mode apply to --method qvs only, not %s", o.Method)
	}
	if err := s.Validate(); err != nil {
		return ConfigError("", err)
	}
	var obs []space.Observation
	if o.Observed != "" {
		if obs, err = space.ReadObservations(o.Observed, sp, minimize); err != nil {
			return err
		}
	}
	near := "within 0.05 x sqrt(parameters) of them in the unit-scaled space, and the feasibility model they train steers away from them"
	warnFailed(e.Err, space.CountFailed(obs), len(obs), o.Observed, near, o.RetryFailed)
	var pend []space.Observation
	if c.Pending != "" {
		if pend, err = space.ReadPending(c.Pending, sp); err != nil {
			return err
		}
		if len(pend) > maxPending {
			return fmt.Errorf("%s: %d pending experiments, at most %d (the qvs batch is scored against all of them)", c.Pending, len(pend), maxPending)
		}
	}
	sug, err := space.Suggest(e.Context(), space.Request{
		Space: sp, Settings: s, Observed: obs, Pending: pend, Batch: o.Batch,
		ID: bayesopt.RunID{Seed: e.Seed, Key: bayesopt.RunKey(s.Method, q.String(), c.QVSFloor, 0)},
	})
	if err != nil {
		return fmt.Errorf("%s: %w", observedLabel(o.Observed), err)
	}
	if len(sug) < o.Batch {
		fmt.Fprintf(e.Err, "qvs bayesopt suggest: warning: %d suggestion(s), fewer than --batch %d: no more distinct points were found (type: int parameters leave few)\n", len(sug), o.Batch)
	}
	t := table{Command: "bayesopt suggest", Head: append(append([]string{"rank"}, sp.Names()...), "region")}
	for i, x := range sug {
		row := []string{strconv.Itoa(i + 1)}
		for j, v := range x.Values {
			row = append(row, sp.Format(j, v))
		}
		t.Rows = append(t.Rows, append(row, strconv.Itoa(x.Region)))
	}
	return t.Write(e.Out, o.Format.Value)
}

// runDiscreteSuggest prints the next batch of the discrete engine for the
// user's kernel and evaluations. Nothing reaches stdout unless it succeeds.
func runDiscreteSuggest(e *Env, o *BOSuggestOptions) error {
	d := &o.Discrete
	init := o.Init
	if !o.InitGiven {
		init = discrete.DefaultSettings().Init
	}
	if err := checkBatchMethod(o.Batch, maxDiscreteBatch, limitWhy["batch"]+"; ask again with the results of this one", o.Method, discrete.Methods); err != nil {
		return err
	}
	q := o.Q
	if math.IsNaN(d.Beta) || math.IsInf(d.Beta, 0) || d.Beta < 0 {
		return Usagef("--beta %v: expected a finite number >= 0", d.Beta)
	}
	if init < 1 {
		return Usagef("--init must be at least 1, got %d", init)
	}
	// The kernel takes long to read when large: the smaller files are
	// checked first.
	if err := checkReadable(o.Observed, d.IDs); err != nil {
		return err
	}
	K, err := datasets.ReadKernelMatrix(d.Kernel)
	if err != nil {
		return err
	}
	n := K.SymmetricDim()
	ids, err := discrete.ReadIDs(d.IDs, n, d.Kernel)
	if err != nil {
		return err
	}
	var evals []discrete.Evaluation
	if o.Observed != "" {
		if evals, err = discrete.ReadEvaluations(o.Observed, ids); err != nil {
			return err
		}
	}
	s := discrete.Settings{Method: o.Method, Q: q, Init: init, Batch: o.Batch, Beta: d.Beta, Seed: e.Seed, Workers: e.Workers, RetryFailed: o.RetryFailed}
	if o.Method != discrete.MethodQVS {
		s.Q = 0
	}
	if init > n {
		return Usagef("--init %d exceeds the %d candidates of %s", init, n, d.Kernel)
	}
	if d.Name == "" {
		return Usagef("--name must not be empty")
	}
	eng, err := discrete.NewEngine(d.Name, K, nil, s)
	if err != nil {
		return ConfigError("", err)
	}
	if err := eng.Tell(evals...); err != nil {
		return fmt.Errorf("%s: %w", observedLabel(o.Observed), err)
	}
	warnFailed(e.Err, eng.Failures(), eng.Len(), o.Observed, "of a failed item", o.RetryFailed)
	if free := eng.Available(); o.Batch > free {
		if eng.Failures() > 0 && !o.RetryFailed {
			return fmt.Errorf("--batch %d: only %d of the %d candidates of %s are neither evaluated nor failed in %s (--retry-failed makes failed ones candidates again)", o.Batch, free, n, d.Kernel, observedLabel(o.Observed))
		}
		return fmt.Errorf("--batch %d: only %d of the %d candidates of %s are not in %s", o.Batch, free, n, d.Kernel, observedLabel(o.Observed))
	}
	picks, err := eng.Ask(o.Batch)
	if err != nil {
		return err
	}
	acq, err := eng.Acquisition()
	if err != nil && !errors.Is(err, discrete.ErrNoHistory) {
		return err
	}
	if !e.Quiet {
		w := e.Err
		fmt.Fprintf(w, "suggest: %d of %d candidates evaluated; iteration %d; method %s", eng.Len(), n, eng.Iteration(), o.Method)
		if o.Method == discrete.MethodQVS {
			fmt.Fprintf(w, ", q = %s", q.String())
		}
		fmt.Fprintln(w)
		switch {
		case eng.Len() < init:
			fmt.Fprintf(w, "suggest: fewer than --init %d evaluations: %d point(s) of the initial design (uniform random from --seed %d)\n", init, len(picks), e.Seed)
		case eng.Successes() == 0 && o.Method != discrete.MethodRandom:
			fmt.Fprintf(w, "suggest: no successful evaluation yet: %d point(s) of the initial design's stream (uniform random from --seed %d)\n", len(picks), e.Seed)
		}
	}
	var ucb []float64 // in the objective's units, as mean and sd
	if acq != nil {
		ucb = discrete.UCB(acq.Mean, acq.SD, d.Beta, nil)
	}
	// The table shows 4 significant digits of ucb, mean and sd; csv keeps
	// full precision.
	t := table{Command: "bayesopt suggest", Head: []string{"rank", "index", "id", "ucb", "mean", "sd"}, SafeIDs: !o.RawIDs,
		Round: roundColumns(rounded(4), 3, 4, 5)}
	for r, i := range picks {
		row := []string{strconv.Itoa(r + 1), strconv.Itoa(i), ids[i], "", "", ""}
		if acq != nil {
			row[3], row[4], row[5] = Float(ucb[i]), Float(acq.Mean[i]), Float(acq.SD[i])
		}
		t.Rows = append(t.Rows, row)
	}
	return t.Write(e.Out, o.Format.Value)
}

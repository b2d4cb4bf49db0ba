package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/surrogate"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// maxASSuggestBatch bounds `qvs as suggest --batch` with labels. On the
// 4,000-item synthetic pool a batch of 500 takes about 1 s with every
// method, 1,000 over a minute with qVS-AS (the chosen set merges into one
// kNN block whose exact secular updates and eigendecompositions grow like
// B^3 per pick) and ~10 s for the qvs column of scattered (random) picks.
// maxScoredBatch bounds it with scores: 1 % of a library of a million.
const (
	maxASSuggestBatch = 500
	maxScoredBatch    = 10000
)

// ASSuggestOptions are the settings of `qvs as suggest`.
type ASSuggestOptions struct {
	Observed, Pending string
	Batch             int
	Method            string
	Q                 vendi.Order
	QGiven            bool // --q given (scores default to surrogate.DefaultQ)
	Format            Format
	RawIDs            bool
	// PoolGiven: a pool was named (a config, --pool, --pool-dir, --graph,
	// --kernel); OwnGraph: by --graph or --kernel.
	PoolGiven, OwnGraph bool
	Labels              LabelSettings
	Scores              ScoreSettings
	// LabelFlags and ScoreFlags are the flags given that apply to one kind
	// of --observed only (the settings table's rows of Labels, Scores).
	LabelFlags, ScoreFlags []string
	// Resolve resolves the pool and the protocol (defaults, --config, the
	// flags): called once the flags are checked.
	Resolve func() (datasets.Config, search.Protocol, error)
}

// LabelSettings are the settings of as suggest that apply to 0/1 labels.
// Threshold, Beta and Lambda are checked when their flags are parsed
// (search.CheckThreshold, CheckBeta, CheckLambda).
type LabelSettings struct {
	Prior                   string
	PriorGiven              bool // --prior given (prior: prevalence is refused from a config)
	Threshold, Beta, Lambda float64
	Fantasy                 string
	Remaining               int
	RemainingGiven          bool
}

// ScoreSettings are the settings of a scored search that configure the
// GP, the acquisition and the batch: `qvs as suggest` with scores and
// `qvs as replay` take them from the same flags (cmd binds them once),
// check them with CheckScoreSettings and build the surrogate.Request from
// them with Request. A zero field is the default (surrogate's), so a
// replay records only the settings given (the YAML keys, omitted when
// unset). HitThreshold and HitTopFraction are the model's own hit
// definition (the acquisition phit, the histories expected and gain),
// not a replay's --top.
type ScoreSettings struct {
	// Minimize: lower scores are better. Each command binds it itself
	// (a replay records it as its protocol's minimize).
	Minimize bool `yaml:"-"`
	// HitThreshold (nil: none) makes a hit a score at least this (at most
	// under Minimize); else a hit is in the best HitTopFraction of the
	// scores (0: surrogate.DefaultHitTopFraction).
	HitThreshold   *float64 `yaml:"hit_threshold,omitempty"`
	HitTopFraction float64  `yaml:"hit_top_fraction,omitempty"`
	Acquisition    string   `yaml:"acquisition,omitempty"` // surrogate.Acquisitions ("": the default)
	UCBBeta        float64  `yaml:"ucb_beta,omitempty"`    // 0: surrogate.DefaultBeta
	GPKernel       string   `yaml:"gp_kernel,omitempty"`   // surrogate.Kernels, "" or auto
	Diversity      string   `yaml:"diversity,omitempty"`   // surrogate.Diversities ("": the default)
	// History ("": surrogate's default, which applies to qvs at q = 2 on
	// the dense kernel and is none elsewhere).
	History string `yaml:"history,omitempty"`
	// HitPower (nil: surrogate.DefaultHitPower; 0: no factor).
	HitPower   *float64 `yaml:"hit_power,omitempty"`
	Candidates int      `yaml:"candidates,omitempty"` // 0: by batch (surrogate.DefaultCandidateFactor)
}

// DefaultASSuggestOptions are the flags' defaults.
func DefaultASSuggestOptions() ASSuggestOptions {
	return ASSuggestOptions{Batch: 5, Method: "qvs", Q: 1, Format: formats(FormatTable), Labels: defaultLabelSettings()}
}

// defaultLabelSettings are the flags' defaults.
func defaultLabelSettings() LabelSettings {
	return LabelSettings{Threshold: 0.5, Beta: 1, Lambda: 0.5, Fantasy: "pessimistic"}
}

// onlyWith refuses the first of flags, given, that applies only with kind.
func onlyWith(kind string, flags []string) error {
	if len(flags) > 0 {
		return Usagef("--%s applies only with %s", flags[0], kind)
	}
	return nil
}

// RunASSuggest prints the next batch to label (labels in Observed: the
// kNN model and a policy of internal/search) or to score (scores: a GP
// and a qVS batch, internal/surrogate).
func RunASSuggest(e *Env, o *ASSuggestOptions) error {
	if o.Observed != "" {
		scored, err := search.ObservedHasScores(o.Observed)
		if err != nil {
			return err
		}
		if scored {
			return runASSuggestScored(e, o)
		}
	}
	if err := onlyWith("scores (a value column in --observed)", o.ScoreFlags); err != nil {
		return err
	}
	switch {
	case o.Batch < 1 || o.Batch > maxASSuggestBatch:
		return Usagef("--batch %d: expected 1 to %d (%s)", o.Batch, maxASSuggestBatch, "larger batches cost minutes: the exact greedy and the qvs column grow faster than the cube of the batch; ask for more in later calls with the labels observed so far")
	case !slices.Contains(search.Methods, o.Method) && slices.Contains(surrogate.Methods, o.Method):
		return Usagef("--method %q applies only with scores (a value column in --observed); with 0/1 labels expected one of %s", o.Method, strings.Join(search.Methods, ", "))
	case !slices.Contains(search.Methods, o.Method):
		return Usagef("--method %q: expected one of %s", o.Method, strings.Join(search.Methods, ", "))
	case !o.PoolGiven:
		return Usagef("give the pool with --pool FILE.csv, --graph FILE, --kernel FILE, --config FILE or --pool-dir DIR")
	}
	l := &o.Labels
	fan, err := search.ParseFantasy(l.Fantasy)
	if err != nil {
		return Usagef("--fantasy: %w", err)
	}
	if l.RemainingGiven && l.Remaining < o.Batch {
		return Usagef("--remaining %d is less than --batch %d: ENS looks ahead over the queries left, this batch included", l.Remaining, o.Batch)
	}
	poolCfg, proto, err := o.Resolve()
	if err != nil {
		return err
	}
	prior, err := search.ParsePrior(proto.Prior)
	if err != nil {
		return ConfigError(e.Config, err)
	}
	if prior.Rule == search.PriorPrevalence && !l.PriorGiven {
		return ConfigErrorf(e.Config, "prior: prevalence reads every label of the pool, which a real search does not have; suggest uses your labels (remove the key for the default estimate, or give a number); to use the pool's labels anyway pass --prior prevalence")
	}
	if err := checkInputs(poolCfg, o.Observed, o.Pending); err != nil {
		return err
	}
	pool, err := loadSearchPool(e, poolCfg)
	if err != nil {
		return err
	}
	// A suggestion reads the kNN graph only: the features go before the
	// model and kernel are built.
	pool.DropFeatures()
	// No --observed (or a header alone) is a cold start: search.Suggest.
	var observed []search.Observation
	if o.Observed != "" {
		if observed, err = search.ParseObserved(o.Observed, pool.Pool); err != nil {
			return err
		}
	}
	var pending []int
	if o.Pending != "" {
		if pending, err = search.ParsePending(o.Pending, pool.Pool, observed, o.Observed); err != nil {
			return err
		}
	}
	if free := pool.Len() - len(observed) - len(pending); o.Batch > free {
		return batchTooLarge(o.Batch, pool.Name, pool.Len(), len(observed), len(pending), "labelled")
	}
	remaining := proto.Budget
	if l.RemainingGiven {
		remaining = l.Remaining
	}
	if remaining < o.Batch {
		// The budget (the config's, or the default) is smaller than the
		// batch asked for; only ENS reads the horizon, so only ENS warns.
		if o.Method == "ens" {
			fmt.Fprintf(e.Err, "qvs as suggest: warning: budget %d is less than --batch %d; ENS looks ahead over %d queries (set --remaining)\n", remaining, o.Batch, o.Batch)
		}
		remaining = o.Batch
	}
	q := o.Q
	steps := newStepLog(e.Err, e.Quiet)
	steps.Step(fmt.Sprintf("picking a batch of %d (%s)", o.Batch, o.Method))
	s, err := search.Suggest(pool, search.SuggestRequest{
		Observed: observed, Pending: pending, Prior: prior, Ties: proto.Ties, Seed: proto.Seed,
		Method: o.Method, Settings: search.PolicySettings{Threshold: l.Threshold, Beta: l.Beta, Lambda: l.Lambda, Fantasy: fan, Q: q},
		Batch: o.Batch, Remaining: remaining, Workers: e.Workers, ConsumeGraph: true,
	})
	steps.End()
	if err != nil {
		return err
	}
	if !e.Quiet {
		if s.ColdStart {
			describeColdStart(e.Err, prior, s, o.Method, q)
		} else {
			describePrior(e.Err, prior, s.A1, &s.Fit)
		}
	}
	t := table{Command: "as suggest", Head: []string{"rank", "index", "id", "probability", "qvs"}, SafeIDs: !o.RawIDs,
		TableHead: []string{"rank", "index", "id", "probability", "qVS_" + q.String()},
		Round:     roundColumns(fixed(4), 3, 4),
		Extra: []field{{"method", o.Method}, {"q", jsonNumber(float64(q))}, {"prior_a1", s.A1},
			{"labelled", len(observed)}, {"pending", len(pending)},
			{"cold_start", s.ColdStart}, {"picked_by", s.PickedBy}}}
	for r, x := range s.Picks {
		t.Rows = append(t.Rows, []string{strconv.Itoa(r + 1), strconv.Itoa(x), poolID(pool.Pool, x), Float(s.Probabilities[r]), Float(s.Values[r])})
	}
	return t.Write(e.Out, o.Format.Value)
}

// poolID is item i's id (its index when the pool has none).
func poolID(p *datasets.Pool, i int) string {
	if p.IDs != nil {
		return p.IDs[i]
	}
	return strconv.Itoa(i)
}

// checkScored refuses bad values of the scored settings (usage errors).
func (o *ASSuggestOptions) checkScored() error {
	if err := onlyWith("0/1 labels (a label column in --observed)", o.LabelFlags); err != nil {
		return err
	}
	switch {
	case o.Batch < 1 || o.Batch > maxScoredBatch:
		return Usagef("--batch %d: expected 1 to %d", o.Batch, maxScoredBatch)
	case !slices.Contains(surrogate.Methods, o.Method):
		return Usagef("--method %q: with scores (a value column in --observed) expected one of %s", o.Method, strings.Join(surrogate.Methods, ", "))
	}
	q := o.Q
	if !o.QGiven {
		q = surrogate.DefaultQ
	}
	if err := o.Scores.Check(o.Method, q, o.Batch, nil); err != nil {
		return err
	}
	return o.Scores.checkUsed([]scoredRun{{o.Method, q}}, nil)
}

// scoredRun is a method and order of a scored search (the order matters
// to MethodQVS alone).
type scoredRun struct {
	method string
	q      vendi.Order
}

// checkUsed refuses a history, hit power or candidates that no run uses
// (a usage error naming the setting by name(flag), "--FLAG" if name is
// nil): a history other than none applies to MethodQVS alone, a hit power
// to the runs whose history is expected or gain (given, or the default at
// q = 2 on the dense kernel), candidates to MethodQVS and MethodTop.
func (s *ScoreSettings) checkUsed(runs []scoredRun, name func(flag string) string) error {
	n := func(flag string) string {
		if name == nil {
			return "--" + flag
		}
		return name(flag)
	}
	history, power, candidates := s.History == "" || s.History == "none", s.HitPower == nil, s.Candidates == 0
	for _, r := range runs {
		if r.method == surrogate.MethodQVS || r.method == surrogate.MethodTop {
			candidates = true
		}
		if r.method != surrogate.MethodQVS {
			continue
		}
		history = true
		h := s.History
		if h == "" && r.q == 2 && (s.Diversity == "" || s.Diversity == surrogate.DefaultDiversity) {
			h = surrogate.DefaultHistory
		}
		if h == surrogate.HistoryExpected || h == surrogate.HistoryGain {
			power = true
		}
	}
	switch {
	case !history:
		return Usagef("%s %s applies only to the method qvs", n("history"), s.History)
	case !candidates:
		return Usagef("%s %d applies only to the methods qvs and top", n("candidates"), s.Candidates)
	case !power:
		return Usagef("%s %v applies only with %s expected or gain (the default of the method qvs at --q 2 on %s dense)", n("hit-power"), *s.HitPower, n("history"), n("diversity"))
	}
	return nil
}

// Check refuses bad values of s for a search by method at order q with
// batches of batch items (usage errors naming the setting by name(flag),
// "--FLAG" if name is nil): the checks of both `as suggest` and `as
// replay` (once per method and order).
func (s *ScoreSettings) Check(method string, q vendi.Order, batch int, name func(flag string) string) error {
	n := func(flag string) string {
		if name == nil {
			return "--" + flag
		}
		return name(flag)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	kernels := append([]string{"auto"}, surrogate.Kernels...)
	switch {
	case s.Acquisition != "" && !slices.Contains(surrogate.Acquisitions, s.Acquisition):
		return Usagef("%s %q: expected one of %s", n("acquisition"), s.Acquisition, strings.Join(surrogate.Acquisitions, ", "))
	case s.GPKernel != "" && !slices.Contains(kernels, s.GPKernel):
		return Usagef("%s %q: expected one of %s", n("gp-kernel"), s.GPKernel, strings.Join(kernels, ", "))
	case s.Diversity != "" && !slices.Contains(surrogate.Diversities, s.Diversity):
		return Usagef("%s %q: expected one of %s", n("diversity"), s.Diversity, strings.Join(surrogate.Diversities, ", "))
	case s.UCBBeta < 0 || !finite(s.UCBBeta):
		return Usagef("%s %v: expected a finite number > 0", n("ucb-beta"), s.UCBBeta)
	case s.HitTopFraction < 0 || s.HitTopFraction > 1 || math.IsNaN(s.HitTopFraction):
		return Usagef("%s %v: expected a fraction in (0, 1]", n("hit-top-fraction"), s.HitTopFraction)
	case s.HitThreshold != nil && s.HitTopFraction != 0:
		return Usagef("give %s or %s, not both", n("hit-threshold"), n("hit-top-fraction"))
	case s.HitThreshold != nil && !finite(*s.HitThreshold):
		return Usagef("%s %v: expected a finite number", n("hit-threshold"), *s.HitThreshold)
	case s.History != "" && !slices.Contains(surrogate.Histories, s.History):
		return Usagef("%s %q: expected one of %s", n("history"), s.History, strings.Join(surrogate.Histories, ", "))
	case s.HitPower != nil && (!(*s.HitPower >= 0) || math.IsInf(*s.HitPower, 0)):
		return Usagef("%s %v: expected a finite number >= 0", n("hit-power"), *s.HitPower)
	case s.History != "" && s.History != "none" && method == surrogate.MethodQVS && ((s.Diversity != "" && s.Diversity != "dense") || q != 2):
		return Usagef("%s %s: needs --q 2 and %s dense", n("history"), s.History, n("diversity"))
	case s.UCBBeta != 0 && s.Acquisition != "" && s.Acquisition != surrogate.DefaultAcquisition && s.Acquisition != surrogate.AcquisitionThompson:
		return Usagef("%s %v applies only with %s ucb or thompson (its candidates), not %s", n("ucb-beta"), s.UCBBeta, n("acquisition"), s.Acquisition)
	case s.Candidates < 0:
		return Usagef("%s %d: expected at least 1", n("candidates"), s.Candidates)
	case s.Candidates > 0 && s.Candidates < batch:
		return Usagef("%s %d: expected at least --batch %d", n("candidates"), s.Candidates, batch)
	}
	return nil
}

// recorded is s with each setting that equals its default, whatever the
// method and order, set to zero (not recorded): a replay given
// --acquisition ucb records what one given nothing does. History is kept:
// its default depends on the method and the order.
func (s ScoreSettings) recorded() ScoreSettings {
	zero := func(v *float64, def float64) {
		if *v == def {
			*v = 0
		}
	}
	zero(&s.UCBBeta, surrogate.DefaultBeta)
	zero(&s.HitTopFraction, surrogate.DefaultHitTopFraction)
	if s.HitPower != nil && *s.HitPower == surrogate.DefaultHitPower {
		s.HitPower = nil
	}
	for _, d := range []struct {
		v   *string
		def string
	}{{&s.Acquisition, surrogate.DefaultAcquisition}, {&s.GPKernel, "auto"}, {&s.Diversity, surrogate.DefaultDiversity}} {
		if *d.v == d.def {
			*d.v = ""
		}
	}
	return s
}

// Request is the surrogate.Request of s: the settings alone, which the
// command completes with the scores, the batch, the method, the order and
// the seed.
func (s *ScoreSettings) Request() surrogate.Request {
	req := surrogate.Request{
		Minimize: s.Minimize, Acquisition: s.Acquisition, Beta: s.UCBBeta, HitTopFraction: s.HitTopFraction,
		Kernel: s.GPKernel, Diversity: s.Diversity, History: s.History, Candidates: s.Candidates,
	}
	if s.HitThreshold != nil {
		req.HitThreshold, req.HasHitThreshold = *s.HitThreshold, true
	}
	if s.HitPower != nil {
		req.HitPower = *s.HitPower
		if req.HitPower == 0 {
			req.HitPower = surrogate.NoHitPower
		}
	}
	return req
}

// runASSuggestScored is `qvs as suggest` with scores in --observed: a GP
// on the pool's features and a qVS batch (internal/surrogate).
func runASSuggestScored(e *Env, o *ASSuggestOptions) error {
	if err := o.checkScored(); err != nil {
		return err
	}
	s := &o.Scores
	if !o.PoolGiven {
		return Usagef("give the pool with --pool FILE.csv|X.npy, --config FILE or --pool-dir DIR")
	}
	if o.OwnGraph {
		return Usagef("scores are fitted by a GP on the pool's features: give --pool FILE.csv|X.npy (or a config's pool) instead of --graph or --kernel")
	}
	poolCfg, proto, err := o.Resolve()
	if err != nil {
		return err
	}
	// Every file, and every cell of --observed and --pending, before the
	// pool is read.
	if err := checkInputs(poolCfg, o.Observed, o.Pending); err != nil {
		return err
	}
	if !e.Quiet {
		what := poolCfg.Kind
		if poolCfg.Kind == datasets.KindCSV && poolCfg.CSV.File != "" {
			what = poolCfg.CSV.File
		}
		fmt.Fprintf(e.Err, "loading pool %s ...\n", what)
	}
	steps := newStepLog(e.Err, e.Quiet)
	pool, err := datasets.LoadWith(poolCfg, e.DataDir, e.CacheDir, knn.GraphOptions{Workers: e.Workers, Progress: steps.Progress(), Name: e.KeyName, FeaturesOnly: true})
	steps.End()
	if err != nil {
		return err
	}
	printPoolNotes(e, "qvs: ", pool)
	scores, err := search.ParseScores(o.Observed, pool)
	if err != nil {
		return err
	}
	var pending []int
	if o.Pending != "" {
		if pending, err = search.ParsePendingScored(o.Pending, pool, scores, o.Observed); err != nil {
			return err
		}
	}
	if free := pool.Len() - len(scores) - len(pending); o.Batch > free {
		return batchTooLarge(o.Batch, pool.Name, pool.Len(), len(scores), len(pending), "scored")
	}
	req := s.Request()
	req.Pending, req.Batch, req.Method, req.Q, req.Seed, req.Workers = pending, o.Batch, o.Method, o.Q, proto.Seed, e.Workers
	if !o.QGiven {
		req.Q = surrogate.DefaultQ
	}
	if req.Q == 0 {
		return Usagef("--q 0 with scores: use --method top (the top acquisitions, diversity-blind)")
	}
	for _, sc := range scores {
		req.Observed = append(req.Observed, sc.Index)
		req.Values = append(req.Values, sc.Value)
	}
	steps = newStepLog(e.Err, e.Quiet)
	steps.Step(fmt.Sprintf("fitting the GP to %d scores and picking a batch of %d (%s)", len(scores), o.Batch, o.Method))
	res, err := surrogate.Suggest(e.Context(), pool, req)
	steps.End()
	if err != nil {
		return err
	}
	if !e.Quiet {
		describeScored(e.Err, res, s.Minimize)
	}
	return scoredTable(pool, res, o).Write(e.Out, o.Format.Value)
}

// describeScored says on w what the GP is and what counts as a hit.
func describeScored(w interface{ Write([]byte) (int, error) }, r *surrogate.Result, minimize bool) {
	if r.ColdStart {
		fmt.Fprintf(w, "no successful score yet (%d failed): the most diverse batch among random candidates (cold start)\n", r.Failed)
		return
	}
	h := r.Hyper
	ell := ""
	if h.LengthScale > 0 {
		ell = fmt.Sprintf(", length scale %.4g", h.LengthScale)
	}
	fmt.Fprintf(w, "GP: %s kernel, %s posterior on %d of %d scores (%d failed, left out); standardised mean %.4g, signal variance %.4g, noise variance %.4g%s\n",
		r.Kernel, r.Form, r.Active, r.Scored, r.Failed, h.Mean, h.SignalVar, h.NoiseVar, ell)
	dir := ">="
	if minimize {
		dir = "<="
	}
	fmt.Fprintf(w, "hits: score %s %.6g: %d of the %d scores\n", dir, r.HitThreshold, r.Hits, r.Scored)
}

// scoredTable is the batch: rank, index, id, the acquisition, posterior
// mean and sd (the scores' units), and for qvs the quality and the qvs
// column; the aligned table rounds them to 4 significant digits.
func scoredTable(pool *datasets.Pool, r *surrogate.Result, o *ASSuggestOptions) *table {
	withQ := len(r.Quality) == len(r.Picks) && len(r.Values) == len(r.Picks) && len(r.Picks) > 0
	// The acquisition mean is the posterior mean: one column, not two
	// called mean.
	acqCol := r.AcquisitionName != "mean"
	head := []string{"rank", "index", "id", r.AcquisitionName, "mean", "sd"}
	num := []int{3, 4, 5} // the acquisition, mean and sd
	if !acqCol {
		head, num = slices.Delete(head, 3, 4), num[:2]
	}
	if r.ColdStart {
		head = head[:3]
	}
	if withQ {
		head = append(head, "quality", "qvs")
	}
	thr := any(nil)
	if !math.IsNaN(r.HitThreshold) {
		thr = r.HitThreshold
	}
	t := &table{Command: "as suggest", Head: head, SafeIDs: !o.RawIDs, TableHead: slices.Clone(head),
		Extra: []field{{"method", r.Method}, {"acquisition", r.AcquisitionName}, {"q", jsonNumber(float64(r.Q))},
			{"minimize", o.Scores.Minimize}, {"scored", r.Scored}, {"failed", r.Failed},
			{"pending", r.Pending}, {"hit_threshold", thr}, {"hits", r.Hits},
			{"cold_start", r.ColdStart}, {"gp", gpJSON(r)}}}
	sig4 := roundColumns(rounded(4), num...)
	// quality and qvs to significant digits too: under the default
	// history a quality is the acquisition's times (p/p_max)^4, often tiny
	sig4Q := roundColumns(rounded(4), len(head)-2, len(head)-1)
	t.Round = func(row []string) {
		if !r.ColdStart {
			sig4(row)
		}
		if withQ {
			sig4Q(row)
		}
	}
	if withQ {
		t.TableHead[len(head)-1] = "qVS_" + r.Q.String()
	}
	for k, x := range r.Picks {
		row := []string{strconv.Itoa(k + 1), strconv.Itoa(x), poolID(pool, x)}
		if !r.ColdStart {
			if acqCol {
				row = append(row, Float(r.Acquisition[k]))
			}
			row = append(row, Float(r.Mean[k]), Float(r.SD[k]))
		}
		if withQ {
			row = append(row, Float(r.Quality[k]), Float(r.Values[k]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// gpJSON is the fitted GP of a result for --format json.
func gpJSON(r *surrogate.Result) any {
	if r.ColdStart {
		return nil
	}
	return map[string]any{
		"kernel": r.Kernel, "form": r.Form, "active": r.Active,
		"mean": r.Hyper.Mean, "signal_variance": r.Hyper.SignalVar, "noise_variance": r.Hyper.NoiseVar,
		"length_scale": r.Hyper.LengthScale, "log_marginal_likelihood": r.Hyper.LogML,
	}
}

// batchTooLarge is the error of a --batch larger than the items neither
// measured (labelled or scored: done) nor pending.
func batchTooLarge(batch int, name string, n, done, pending int, measured string) error {
	head := fmt.Sprintf("--batch %d: pool %s has %s, %d %s and %d pending", batch, name, fileio.Count(n, "item"), done, measured, pending)
	if free := n - done - pending; free > 0 {
		return fmt.Errorf("%s: ask for at most %d", head, free)
	}
	return fmt.Errorf("%s: every item is %s or pending, nothing is left to suggest", head, measured)
}

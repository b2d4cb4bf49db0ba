package discrete

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// RecordHeader is the header of runs/KEY.csv: one row per query.
// iteration 0 holds the initial points; pick is the position in the batch.
var RecordHeader = []string{"iteration", "pick", "index", "id", "value"}

// curveHeader is the header of runs/KEY.curve.csv.
var curveHeader = []string{"iteration", "evaluations", "best_value"}

// Runs lists the runs of a campaign repeat by repeat (so a partial
// campaign has every method for its first repeats, as `qvs bayesopt` does
// for the continuous tasks), within a repeat by method and then q (qvs
// only, one run per order). Run.Q is the order as written in tables for
// qvs and empty for random and ucb.
func Runs(methods []string, qs []vendi.Order, repeats int) ([]campaign.Run, error) {
	for _, m := range methods {
		switch m {
		case MethodRandom, MethodUCB:
		case MethodQVS:
			if len(qs) == 0 {
				return nil, fmt.Errorf("method qvs needs at least one order q")
			}
		default:
			return nil, fmt.Errorf("unknown method %q: expected one of random, ucb, qvs", m)
		}
	}
	if err := configkeys.Unique("methods", methods); err != nil {
		return nil, err
	}
	var runs []campaign.Run
	for r := 0; r < repeats; r++ {
		for _, m := range methods {
			if m != MethodQVS {
				runs = append(runs, campaign.Run{Key: campaign.RunKey(m, "", r), Method: m, Repeat: r})
				continue
			}
			for _, q := range qs {
				runs = append(runs, campaign.Run{Key: campaign.RunKey(m, q.String(), r), Method: m, Q: q.String(), Repeat: r})
			}
		}
	}
	return runs, nil
}

// unsafeField matches characters not allowed in summary column names.
var unsafeField = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// metricField names the summary column holding metric m of the best item:
// "best_" + m with runs of other characters than [A-Za-z0-9_] replaced by "_".
func metricField(m string) string {
	return "best_" + strings.Trim(unsafeField.ReplaceAllString(m, "_"), "_")
}

// RunFunc returns the campaign function that runs one search with base
// settings completed by the run's method, order and repeat. It replays the
// records of an interrupted attempt, appends one record per query (each
// batch in one atomic write, campaign.Recorder.Append), writes runs/KEY.curve.csv and returns the
// summary: best_value, edc, good_found, evaluations, best_id, best_index and
// best_<metric> for every extra metric of the candidate set. qs are the
// orders the runs were listed with (Runs): a qvs run's order is the one
// its Run.Q names.
func (p *Problem) RunFunc(base Settings, qs []vendi.Order) campaign.RunFunc {
	orders := make(map[string]vendi.Order, len(qs))
	for _, q := range qs {
		orders[q.String()] = q
	}
	return func(ctx context.Context, run campaign.Run, rec *campaign.Recorder) ([]campaign.Field, error) {
		s := base
		s.Method = run.Method
		s.Repeat = run.Repeat
		s.Q = 0
		if run.Q != "" {
			q, ok := orders[run.Q]
			if !ok {
				return nil, fmt.Errorf("run %s: order q = %s is not one of the campaign's", run.Key, run.Q)
			}
			s.Q = q
		}
		prior, err := p.parseRecords(rec.Key(), rec.Rows())
		if err != nil {
			return nil, err
		}
		if prior, err = completeIterations(s, rec, prior); err != nil {
			return nil, err
		}
		iters, err := p.Search(ctx, s, prior, func(t int, batch []int) error {
			rows := make([][]string, len(batch))
			for k, i := range batch {
				rows[k] = []string{strconv.Itoa(t), strconv.Itoa(k), strconv.Itoa(i), p.Set.IDs[i], formatFloat(p.Set.Objective[i])}
			}
			return rec.Append(rows...)
		})
		if err != nil {
			return nil, err
		}
		o, err := p.Evaluate(iters)
		if err != nil {
			return nil, err
		}
		curve := make([][]string, len(o.Curve))
		for k, c := range o.Curve {
			curve[k] = []string{strconv.Itoa(c.Iteration), strconv.Itoa(c.Evaluations), formatFloat(c.Best)}
		}
		if err := rec.WriteFile("curve", curveHeader, curve); err != nil {
			return nil, err
		}
		fields := []campaign.Field{
			campaign.F("best_value", o.BestValue),
			campaign.F("edc", o.EDC),
			campaign.I("good_found", o.Good),
			campaign.I("evaluations", len(o.Queried)),
			campaign.S("best_id", p.Set.IDs[o.BestIndex]),
			campaign.I("best_index", o.BestIndex),
		}
		for j, m := range p.Set.MetricNames {
			fields = append(fields, campaign.F(metricField(m), p.Set.Metrics[j][o.BestIndex]))
		}
		return fields, nil
	}
}

// completeIterations checks the iteration sizes of an interrupted
// attempt's records against s (the initial design, then batches) and drops
// a last iteration cut short (a file cut by hand: qvs writes whole
// iterations) from prior and from rec, so Search recomputes it from the
// same seed and the resumed run equals the uninterrupted one. An iteration
// of the wrong size followed by another is an error naming the record file
// and line (the header is line 1).
func completeIterations(s Settings, rec *campaign.Recorder, prior [][]int) ([][]int, error) {
	line := 2
	for t, batch := range prior {
		want := s.Init
		if t > 0 {
			want = s.batchSize(t)
		}
		switch {
		case len(batch) > want || (len(batch) < want && t < len(prior)-1):
			return nil, fileio.LineErrorf("runs/"+rec.Key()+".csv", line+min(len(batch), want), "iteration %d has %d queries, expected %d (init %d, batch %d, budget %d); delete the file to restart this run",
				t, len(batch), want, s.Init, s.Batch, s.Budget)
		case len(batch) < want:
			rec.Keep(line - 2)
			return prior[:t], nil
		}
		line += len(batch)
	}
	return prior, nil
}

// parseRecords turns the record rows of an interrupted attempt into batches
// per iteration, checking each row against the candidate set.
func (p *Problem) parseRecords(key string, rows [][]string) ([][]int, error) {
	var iters [][]int
	for r, row := range rows {
		bad := func(what string) error {
			return fmt.Errorf("run %s: record %d %v: %s; the record file belongs to another candidate set or is damaged: delete runs/%s.csv to restart this run",
				key, r+1, row, what, key)
		}
		if len(row) != len(RecordHeader) {
			return nil, bad(fmt.Sprintf("expected %d fields", len(RecordHeader)))
		}
		t, err1 := strconv.Atoi(row[0])
		k, err2 := strconv.Atoi(row[1])
		i, err3 := strconv.Atoi(row[2])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, bad("iteration, pick and index must be integers")
		}
		if t != len(iters) && t != len(iters)-1 {
			return nil, bad("iterations must be consecutive from 0")
		}
		if t == len(iters) {
			iters = append(iters, nil)
		}
		if k != len(iters[t]) {
			return nil, bad("picks must be consecutive from 0")
		}
		if i < 0 || i >= p.Set.Len() || p.Set.IDs[i] != row[3] || formatFloat(p.Set.Objective[i]) != row[4] {
			return nil, bad("index, id and value do not match the candidate set")
		}
		iters[t] = append(iters[t], i)
	}
	return iters, nil
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Loaded is a discrete campaign's candidate set made ready for its runs.
type Loaded struct {
	Set     *datasets.KernelSet
	Problem *Problem
	// Good is the number of candidates whose objective is at least the
	// protocol's good threshold.
	Good int
	// MDS is the set's 2-D MDS embedding (Figure 5), set by ComputeMDS;
	// WriteMDS writes it beside the runs.
	MDS [][2]float64
}

// Open reads the candidate set of a validated protocol p (LoadSet, data
// paths under dataDir) and builds its Problem.
func (p Protocol) Open(dataDir string) (*Loaded, error) {
	set, err := p.LoadSet(dataDir)
	if err != nil {
		return nil, err
	}
	prob, err := newProblem(set, p.GoodThreshold)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Set: set, Problem: prob}
	for _, v := range set.Objective {
		if v >= p.GoodThreshold {
			l.Good++
		}
	}
	return l, nil
}

// ComputeMDS sets the MDS embedding of the set's kernel, from the cache
// under cacheDir when there (cachedMDS: computed once per kernel).
func (l *Loaded) ComputeMDS(cacheDir string) error {
	xy, err := cachedMDS(cacheDir, l.Set.Name, l.Set.Kernel)
	l.MDS = xy
	return err
}

// WriteMDS writes the MDS embedding with the items' ids and objective
// values to DIR/mds.csv (writeMDSFile).
func (l *Loaded) WriteMDS(dir string) error {
	return writeMDSFile(filepath.Join(dir, "mds.csv"), l.Set.IDs, l.MDS, l.Set.Objective)
}

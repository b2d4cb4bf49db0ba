package campaign

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// Run identifies one run of a campaign.
type Run struct {
	Key    string // unique and file-name safe, e.g. "qvs-q1-r03"
	Method string
	Q      string // the order q as written in tables ("" when not applicable)
	Params string // other hyperparameters, e.g. "beta=0.5 lambda=0.1"
	Repeat int
}

// InnerWorkers is what each run of a campaign of runs runs may use inside
// (a region's fit, a greedy step) when workers goroutines execute the runs
// in parallel: runs go in parallel first, the workers left over when there
// are fewer runs than workers are shared among them; at least 1.
func InnerWorkers(workers, runs int) int {
	return max(1, workers/max(1, min(workers, runs)))
}

// RunKey is the key of repeat r of a run of every campaign kind: the
// method, "q" + the order's label when the run has one (qVS, as
// vendi.Order.String writes it), the setting's other labels in order, and
// "r" + the repeat with at least two digits, joined by "-": "random-r03",
// "qvs-q0.5-r00", "qvs-qinf-floor-r01", "eci-t0.5-pessimistic-r02". The key
// names the run's files and seeds its random streams: it must never
// change for a given run.
func RunKey(method, q string, repeat int, labels ...string) string {
	var b strings.Builder
	b.WriteString(method)
	if q != "" {
		b.WriteString("-q" + q)
	}
	for _, l := range labels {
		b.WriteString("-" + l)
	}
	fmt.Fprintf(&b, "-r%02d", repeat)
	return b.String()
}

// Field is one named value of a run's summary row.
type Field struct {
	Name  string
	Value string
}

// F formats a float summary field with full precision ("inf", "nan" allowed).
func F(name string, v float64) Field {
	return Field{name, strconv.FormatFloat(v, 'g', -1, 64)}
}

// I formats an integer summary field.
func I(name string, v int) Field { return Field{name, strconv.Itoa(v)} }

// S is a string summary field.
func S(name, v string) Field { return Field{name, v} }

// Spec describes a campaign.
type Spec struct {
	Dir    string   // results directory
	Header []string // header of every run's record CSV
	Runs   []Run
	Steps  int // records one run makes when complete (progress bar total)
	// Unit names a record in the progress bar ("queries", "evaluations");
	// "records" when empty.
	Unit    string
	Workers int // runs executed in parallel (>= 1)
	Shard   Shard
	Quiet   bool
	// Progress receives the progress bar; bars are drawn only when it is a
	// terminal and Quiet is false.
	Progress io.Writer
	// Config is the resolved configuration, written to DIR/config.yaml. It
	// must hold everything that determines the results (seed included) and
	// nothing that does not (workers, quiet, shard): a rerun with a different
	// config into the same directory is refused, unless it differs only by
	// growing the Growable keys (see CheckConfig); then the new config is
	// recorded.
	Config   any
	Growable []string
	Version  string // qvs version, recorded in config.yaml
	// Kind is the campaign's kind, recorded as kind: in config.yaml (after
	// the version line; "": not recorded) for `qvs eval`. It is not part
	// of Config: folders written before it was recorded resume as they are.
	Kind string
	// Inputs are the files the results depend on (data, kernels). Their
	// size and CRC-32C are recorded in config.yaml; a rerun into the same
	// directory with other contents is refused, naming the file.
	Inputs []Input
	// Force lets a campaign start in a folder holding a summary.csv without
	// a config.yaml (not a campaign's: qvs writes config.yaml first), which
	// is otherwise refused so the user's file is not replaced (--force).
	Force bool
	// Prepare, if set, runs once every check has passed (config.yaml and
	// inputs) and before any run starts: it writes campaign-level files
	// such as mds.csv, so that a refused command writes nothing.
	Prepare func() error
}

// RunFunc executes one run. rec.Rows() holds the records of an interrupted
// earlier attempt (nil on a fresh start); the function replays them, appends
// the remaining records with rec.Append and returns the summary row. It
// returns a nil error only when the run is complete: once ctx is done it
// returns ctx's error (or another), and the run is resumed next time.
type RunFunc func(ctx context.Context, run Run, rec *Recorder) ([]Field, error)

// Report tells what Execute did with the runs this process selected
// (its shard): every selected run is counted in exactly one of the
// counters, Failed included.
type Report struct {
	Ran, Resumed int      // runs this process finished: from scratch, continuing earlier records
	Skipped      int      // runs already finished when this process looked
	Others       int      // runs another process sharing the folder finished while this one waited
	Failed       []string // "KEY: error" for each failed run
	Interrupted  int      // runs stopped by cancellation part-way (their records are kept)
	NotStarted   int      // runs not begun because of cancellation
	Seconds      float64
	started      bool // the folder was prepared and the runs planned
}

// Started reports whether the campaign got as far as planning its runs;
// a campaign refused before (its folder unwritable, its config.yaml
// different) has no report to print, only its error.
func (r Report) Started() bool { return r.started }

// Selected is the number of runs the report accounts for.
func (r Report) Selected() int {
	return r.Ran + r.Resumed + r.Skipped + r.Others + len(r.Failed) + r.Interrupted + r.NotStarted
}

// String summarises the report in one line, e.g. "20 of 48 run(s) finished
// (18 new, 2 resumed), 2 failed, 3 interrupted, 23 not started in 12.3 s".
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d run(s) finished", r.Ran+r.Resumed+r.Skipped+r.Others, r.Selected())
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{r.Ran, "new"}, {r.Resumed, "resumed"}, {r.Skipped, "already done"}, {r.Others, "by another process"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	for _, p := range []struct {
		n    int
		what string
	}{{len(r.Failed), "failed"}, {r.Interrupted, "interrupted"}, {r.NotStarted, "not started"}} {
		if p.n > 0 {
			fmt.Fprintf(&b, ", %d %s", p.n, p.what)
		}
	}
	fmt.Fprintf(&b, " in %.1f s", r.Seconds)
	return b.String()
}

// Recorder is a run's durable record log and its extra files.
type Recorder struct {
	path   string
	dir    string
	key    string
	header []string
	prior  [][]string
	rows   [][]string
	bar    *progressbar.ProgressBar
	mu     *sync.Mutex
	// pending receives the outcome of the record file's write in flight
	// (Append), nil when none.
	pending chan error
}

// Rows returns the records of an interrupted earlier attempt, or nil.
func (r *Recorder) Rows() [][]string { return r.prior }

// Keep drops the earlier attempt's records from the n-th on (records that
// end inside a batch, which the run recomputes): the record file is
// rewritten without them at the next Append, and Rows returns the first n.
func (r *Recorder) Keep(n int) {
	if n < len(r.prior) {
		r.prior = r.prior[:n]
		r.rows = r.rows[:n]
	}
}

// Append adds records and starts writing the record file with them (an
// atomic write: temp file, fsync, rename) while the run computes its next
// batch, whose Append first waits for this write and returns its error;
// Flush waits for it too, and the run's end waits before its summary is
// written and its lock released. So the file on disk always holds every
// record but those of the write in flight, and is always a complete
// version: a kill loses at most the last batch's records, which the
// resumed run recomputes (the same records, from the same seed), never a
// record of a finished run.
func (r *Recorder) Append(rows ...[]string) error {
	if err := r.Flush(); err != nil {
		return err
	}
	r.rows = append(r.rows, rows...)
	all := r.rows[:len(r.rows):len(r.rows)] // a later append copies: all stays as is
	done := make(chan error, 1)
	r.pending = done
	go func() {
		err := fileio.WriteCSVAtomic(r.path, r.header, all)
		if err == nil {
			r.progress(len(rows))
		}
		done <- err
	}()
	return nil
}

// Flush waits for the record file's write in flight, if any, and returns
// its error: once it returns nil, every record appended is on disk.
func (r *Recorder) Flush() error {
	if r.pending == nil {
		return nil
	}
	err := <-r.pending
	r.pending = nil
	return err
}

func (r *Recorder) progress(n int) {
	if r.bar != nil && n > 0 {
		r.mu.Lock()
		_ = r.bar.Add(n)
		r.mu.Unlock()
	}
}

// WriteFile atomically writes an extra CSV for this run: DIR/runs/KEY.NAME.csv.
func (r *Recorder) WriteFile(name string, header []string, rows [][]string) error {
	return fileio.WriteCSVAtomic(filepath.Join(r.dir, r.key+"."+name+".csv"), header, rows)
}

// Key is the run's key.
func (r *Recorder) Key() string { return r.key }

// Path returns the path of the run's record file (DIR/runs/KEY.csv).
func (r *Recorder) Path() string { return r.path }

var keyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.=+-]*$`)

// shardLine is the line a sharded process prints at start, e.g.
// "results/rover: shard 2/8 in Slurm array task 2 of job 4711: 8 of 60 runs".
func shardLine(spec Spec, getenv func(string) string) string {
	n := 0
	for pos := range spec.Runs {
		if spec.Shard.selects(pos) {
			n++
		}
	}
	src := ""
	if s := shardSource(getenv); s != "" {
		src = " in " + s
	}
	return fmt.Sprintf("%s: shard %s%s: %d of %d runs", spec.Dir, spec.Shard, src, n, len(spec.Runs))
}

// Execute runs every selected run not yet finished, in parallel, then
// rewrites DIR/summary.csv from all finished runs in the directory.
// A failed run does not stop the others; its error is in the report and in
// the returned error. Cancelling ctx stops starting new runs; runs in flight
// see ctx and should return promptly (their records so far are kept).
//
// Several processes may execute the same campaign into one folder at once
// (shards, duplicates, late joiners): each run is computed under a lock
// (DIR/runs/KEY.lock, see fileio.TryLock), a run locked by another process
// is waited for (and taken over if that process dies), and config.yaml and
// summary.csv are checked and written under DIR/.campaign.lock. Nothing is
// written before config.yaml and the input fingerprints are checked.
func Execute(ctx context.Context, spec Spec, fn RunFunc) (Report, error) {
	start := time.Now()
	var rep Report
	if spec.Workers < 1 {
		spec.Workers = 1
	}
	seen := map[string]bool{}
	for _, r := range spec.Runs {
		if !keyRE.MatchString(r.Key) || strings.HasSuffix(r.Key, ".summary") {
			return rep, fmt.Errorf("campaign: run key %q is not file-name safe", r.Key)
		}
		if seen[r.Key] {
			return rep, fmt.Errorf("campaign: duplicate run key %q", r.Key)
		}
		seen[r.Key] = true
	}
	if spec.Shard.Count >= 1 && spec.Progress != nil {
		// Even with Quiet: a cluster task's log says which shard it ran.
		fmt.Fprintln(spec.Progress, shardLine(spec, os.Getenv))
	}
	runsDir := filepath.Join(spec.Dir, "runs")
	if err := prepare(ctx, spec); err != nil {
		return rep, err
	}
	// A kill between creating and renaming a temporary file leaves it
	// behind (the real file is intact); remove those whose writer is gone,
	// not those another process is writing now.
	for _, d := range []string{spec.Dir, runsDir} {
		if _, err := fileio.SweepTemps(d); err != nil {
			return rep, err
		}
	}

	rep.started = true
	var jobs []job
	priorRecords := 0
	for pos, r := range spec.Runs {
		if !spec.Shard.selects(pos) {
			continue
		}
		if done(runsDir, r.Key) {
			dropDeadLock(runsDir, r.Key)
			rep.Skipped++
			continue
		}
		// Read now to refuse a damaged or foreign record file before any
		// run starts; the run reads its records again under its lock.
		prior, err := readRecords(filepath.Join(runsDir, r.Key+".csv"), spec.Header)
		if err != nil {
			return rep, err
		}
		priorRecords += len(prior)
		jobs = append(jobs, job{run: r, planned: len(prior)})
	}

	var bar *progressbar.ProgressBar
	if !spec.Quiet && IsTerminal(spec.Progress) && len(jobs) > 0 {
		bar = newProgressBar(spec, len(jobs)*spec.Steps)
		_ = bar.Add(priorRecords)
	}
	var mu sync.Mutex // guards bar
	// Not internal/parallel: the workers hand each run's result to
	// dispatch as soon as it is done (failures, the interrupt report)
	// while dispatch is still feeding them jobs.
	ch := make(chan job)
	results := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < min(spec.Workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				results <- attempt(ctx, spec, j, fn, bar, &mu)
			}
		}()
	}
	dispatch(ctx, spec, jobs, ch, results, &rep)
	close(ch)
	wg.Wait()
	if bar != nil {
		_ = bar.Finish()
	}
	sort.Strings(rep.Failed)
	if err := writeSummary(spec.Dir, spec.Runs); err != nil {
		// The runs' own reasons (on a full disk, each run's failed
		// write) are kept beside the summary's.
		if len(rep.Failed) > 0 {
			return rep, fmt.Errorf("%w; and %s", err, failedRuns(spec.Dir, rep.Failed))
		}
		return rep, err
	}
	rep.Seconds = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return rep, &InterruptedError{What: "campaign " + spec.Dir, Next: "rerun the same command to resume", Err: ctx.Err()}
	}
	if len(rep.Failed) > 0 {
		return rep, errors.New(failedRuns(spec.Dir, rep.Failed))
	}
	return rep, nil
}

// failedRuns is the message listing the failed runs of a campaign, each
// with its reason.
func failedRuns(dir string, failed []string) string {
	return fmt.Sprintf("campaign %s: %d run(s) failed:\n  %s", dir, len(failed), strings.Join(failed, "\n  "))
}

// job is a selected run not finished when planned; planned is how many
// records it had then (already on the progress bar).
type job struct {
	run     Run
	planned int
	waited  bool // another process held the run when this one tried it
}

type outcome int

const (
	ranFresh outcome = iota
	ranResumed
	doneByOther
	heldByOther
	failed
	interrupted
	notStarted
)

type result struct {
	job     job
	outcome outcome
	err     error
	holder  string // heldByOther: "host pid" of the holder, if known
}

// pollInterval is how often a run held by another process is tried again.
var pollInterval = 200 * time.Millisecond

// dispatch feeds jobs to the workers, puts back runs held by other
// processes to try again every pollInterval, and counts outcomes into rep.
func dispatch(ctx context.Context, spec Spec, jobs []job, ch chan<- job, results <-chan result, rep *Report) {
	queue := jobs
	var waiting []job
	inflight := 0
	told := false
	for len(queue) > 0 || len(waiting) > 0 || inflight > 0 {
		if ctx.Err() != nil {
			rep.NotStarted += len(queue) + len(waiting)
			queue, waiting = nil, nil
			for ; inflight > 0; inflight-- {
				count(rep, <-results)
			}
			return
		}
		var send chan<- job
		var next job
		if len(queue) > 0 {
			send, next = ch, queue[0]
		}
		var retry <-chan time.Time
		if len(waiting) > 0 {
			retry = time.After(pollInterval)
		}
		select {
		case send <- next:
			queue = queue[1:]
			inflight++
		case res := <-results:
			inflight--
			if res.outcome == heldByOther {
				res.job.waited = true
				waiting = append(waiting, res.job)
				if !told && !spec.Quiet && spec.Progress != nil && len(queue) == 0 {
					told = true
					fmt.Fprintf(spec.Progress, "%s: waiting for run %s, which process %s is computing\n",
						spec.Dir, res.job.run.Key, cmp.Or(res.holder, "(unknown)"))
				}
				continue
			}
			count(rep, res)
		case <-retry:
			queue = append(queue, waiting...)
			waiting = nil
		case <-ctx.Done():
		}
	}
}

func count(rep *Report, res result) {
	switch res.outcome {
	case ranFresh:
		rep.Ran++
	case ranResumed:
		rep.Resumed++
	case doneByOther:
		rep.Others++
	case interrupted:
		rep.Interrupted++
	case heldByOther, notStarted: // heldByOther counts only when cancelled
		rep.NotStarted++
	default:
		rep.Failed = append(rep.Failed, res.job.run.Key+": "+res.err.Error())
	}
}

// done reports whether run key has finished (its summary file exists).
func done(runsDir, key string) bool {
	_, err := os.Stat(filepath.Join(runsDir, key+".summary.csv"))
	return err == nil
}

// dropDeadLock removes the lock file of finished run key if its holder is
// gone: a process killed after writing the run's summary, before releasing
// the lock, left it, and the folder would keep it for good (no process
// runs a finished run again). A lock another process holds, releasing it
// now, stays.
func dropDeadLock(runsDir, key string) {
	path := filepath.Join(runsDir, key+".lock")
	if _, err := os.Stat(path); err != nil {
		return
	}
	if l, err := fileio.TryLock(path); err == nil {
		_ = l.Unlock()
	}
}

// attempt runs one job under its lock.
func attempt(ctx context.Context, spec Spec, j job, fn RunFunc, bar *progressbar.ProgressBar, mu *sync.Mutex) result {
	if ctx.Err() != nil { // handed over as the interrupt came
		return result{job: j, outcome: notStarted}
	}
	runsDir := filepath.Join(spec.Dir, "runs")
	lock, err := fileio.TryLock(filepath.Join(runsDir, j.run.Key+".lock"))
	if le := (*fileio.LockedError)(nil); errors.As(err, &le) {
		return result{job: j, outcome: heldByOther, holder: le.Owner}
	}
	if err != nil {
		return result{job: j, outcome: failed, err: err}
	}
	defer lock.Unlock()
	rec := &Recorder{path: filepath.Join(runsDir, j.run.Key+".csv"), dir: runsDir, key: j.run.Key,
		header: spec.Header, bar: bar, mu: mu}
	// The records are on disk before the lock is released, whatever ends
	// the attempt (runOne flushes before the run's summary; this covers
	// errors, panics and interrupts).
	defer func() { _ = rec.Flush() }()
	if done(runsDir, j.run.Key) {
		rec.progress(spec.Steps - j.planned)
		return result{job: j, outcome: doneByOther}
	}
	if j.waited {
		// Taking over from a process that died holding the run: its temp
		// files are orphans now.
		_, _ = fileio.SweepTemps(runsDir)
	}
	prior, err := readRecords(rec.path, spec.Header)
	if err != nil {
		return result{job: j, outcome: failed, err: err}
	}
	rec.progress(len(prior) - j.planned) // records another process added since planning
	rec.prior = prior
	rec.rows = append(rec.rows, prior...)
	if err := runOne(ctx, j.run, rec, fn); err != nil {
		if ctx.Err() != nil {
			return result{job: j, outcome: interrupted, err: err}
		}
		return result{job: j, outcome: failed, err: err}
	}
	if prior != nil {
		return result{job: j, outcome: ranResumed}
	}
	return result{job: j, outcome: ranFresh}
}

// campaignLockWait bounds the wait for DIR/.campaign.lock, which other
// processes hold only to check config.yaml or rewrite summary.csv.
var campaignLockWait = 5 * time.Minute

// lockCampaign takes DIR/.campaign.lock, waiting while another process
// holds it (at most campaignLockWait, or until ctx ends).
func lockCampaign(ctx context.Context, dir string) (*fileio.Lock, error) {
	path := filepath.Join(dir, ".campaign.lock")
	deadline := time.Now().Add(campaignLockWait)
	for {
		l, err := fileio.TryLock(path)
		if !errors.Is(err, fileio.ErrLocked) {
			return l, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (waited %v)", err, campaignLockWait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// prepare checks config.yaml against spec, creates DIR/runs and writes
// config.yaml if absent, all under the campaign lock.
func prepare(ctx context.Context, spec Spec) error {
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return err
	}
	lock, err := lockCampaign(ctx, spec.Dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// Checked before config.yaml is written: nothing is written when the
	// campaign cannot run (a file named runs got config.yaml).
	runs := filepath.Join(spec.Dir, "runs")
	if fi, err := os.Stat(runs); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is a file, not the folder of the run records: move it away or choose another --out", runs)
	}
	if err := checkForeignSummary(spec); err != nil {
		return err
	}
	if err := writeConfig(spec); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(spec.Dir, "runs"), 0o755); err != nil {
		return err
	}
	if spec.Prepare != nil {
		return spec.Prepare()
	}
	return nil
}

// newProgressBar is the bar of a campaign of total records: it names the
// folder and the unit counted, "bmg queries (120/4000, 35 queries/s)".
func newProgressBar(spec Spec, total int) *progressbar.ProgressBar {
	unit := spec.Unit
	if unit == "" {
		unit = "records"
	}
	return NewProgressBar(spec.Progress, filepath.Base(spec.Dir)+" "+unit, unit, total)
}

// NewProgressBar is the progress bar of the project's long steps: on w, the
// description, the count done of total, the rate in unit per second and the
// estimated time left; redrawn at most every 100 ms and cleared when done.
func NewProgressBar(w io.Writer, description, unit string, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())
}

func runOne(ctx context.Context, run Run, rec *Recorder, fn RunFunc) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	t0 := time.Now()
	fields, err := fn(ctx, run, rec)
	if ferr := rec.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	// A run whose function returned without error is complete, even when
	// the interrupt came while it returned: its summary is written, so the
	// work is counted and not redone (it once was dropped, and the report
	// said 3 finished of the 4 that had).
	head := []Field{S("key", run.Key), S("method", run.Method), S("q", run.Q), S("params", run.Params), I("repeat", run.Repeat)}
	hasSeconds := false
	for _, f := range fields {
		if f.Name == "seconds" {
			hasSeconds = true
		}
	}
	all := append(head, fields...)
	if !hasSeconds {
		all = append(all, F("seconds", time.Since(t0).Seconds()))
	}
	h := make([]string, len(all))
	v := make([]string, len(all))
	for i, f := range all {
		h[i], v[i] = f.Name, f.Value
	}
	return fileio.WriteCSVAtomic(filepath.Join(rec.dir, run.Key+".summary.csv"), h, [][]string{v})
}

// readRecords reads a run's record CSV; nil if absent. The header must match.
func readRecords(path string, header []string) ([][]string, error) {
	b, err := fileio.ReadInput(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot resume from a damaged record file (%v); delete it to restart this run", path, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if strings.Join(rows[0], ",") != strings.Join(header, ",") {
		return nil, fmt.Errorf("%s: header %v differs from this version's %v; use a fresh --out directory", path, rows[0], header)
	}
	if len(rows) == 1 {
		return nil, nil
	}
	return rows[1:], nil
}

// checkForeignSummary refuses a folder whose summary.csv qvs did not
// write: one without config.yaml, which every campaign writes before its
// first summary.csv (unless spec.Force).
func checkForeignSummary(spec Spec) error {
	if _, err := os.Stat(filepath.Join(spec.Dir, "config.yaml")); err == nil {
		return nil
	}
	summary := filepath.Join(spec.Dir, "summary.csv")
	if _, err := os.Lstat(summary); err != nil || spec.Force {
		return nil
	}
	return fmt.Errorf("--out %s holds a summary.csv but no config.yaml, so it is not a qvs campaign folder: %s %w: give --force to replace it, or choose another --out", spec.Dir, summary, fileio.ErrNotOurs)
}

func writeConfig(spec Spec) error {
	fps, err := fingerprints(spec.Inputs)
	if err != nil {
		return err
	}
	same, err := checkConfig(spec.Dir, spec.Config, spec.Growable)
	if err != nil {
		return err
	}
	path := filepath.Join(spec.Dir, "config.yaml")
	if old, err := fileio.ReadInput(path); err == nil {
		_, inputs := splitInputs(old)
		if err := checkInputs(path, inputs, fps); err != nil {
			return err
		}
	}
	if same {
		return nil
	}
	body, err := yaml.Marshal(spec.Config)
	if err != nil {
		return fmt.Errorf("campaign: cannot record config: %w", err)
	}
	tail, err := inputsSection(fps)
	if err != nil {
		return fmt.Errorf("campaign: cannot record inputs: %w", err)
	}
	head := fmt.Sprintf("# resolved config of this campaign, written by qvs %s\n", spec.Version)
	if spec.Kind != "" {
		head += "kind: " + spec.Kind + "\n"
	}
	return fileio.WriteAtomic(path, slices.Concat([]byte(head), body, tail))
}

// writeSummary rewrites DIR/summary.csv from every DIR/runs/*.summary.csv:
// runs listed in order first, then any others found (other shards' runs),
// sorted by key. Columns are the union in first-seen order.
//
// Processes sharing the folder rewrite it in turn under DIR/.campaign.lock,
// so the last one to finish writes every run finished by then.
func writeSummary(dir string, order []Run) error {
	lock, err := lockCampaign(context.Background(), dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	files, err := filepath.Glob(filepath.Join(dir, "runs", "*.summary.csv"))
	if err != nil {
		return err
	}
	byKey := map[string][]string{}
	var keys []string
	for _, f := range files {
		keys = append(keys, strings.TrimSuffix(filepath.Base(f), ".summary.csv"))
		byKey[keys[len(keys)-1]] = []string{f}
	}
	sort.Strings(keys)
	pos := map[string]int{}
	for i, r := range order {
		pos[r.Key] = i
	}
	sort.SliceStable(keys, func(a, b int) bool {
		pa, oka := pos[keys[a]]
		pb, okb := pos[keys[b]]
		switch {
		case oka && okb:
			return pa < pb
		case oka != okb:
			return oka
		}
		return keys[a] < keys[b]
	})
	var header []string
	col := map[string]int{}
	var rows []map[string]string
	for _, k := range keys {
		b, err := fileio.ReadInput(byKey[k][0])
		if err != nil {
			return err
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(recs) != 2 || len(recs[0]) != len(recs[1]) {
			return fmt.Errorf("%s: damaged run summary; delete it to rerun run %s", byKey[k][0], k)
		}
		m := map[string]string{}
		for i, h := range recs[0] {
			if _, ok := col[h]; !ok {
				col[h] = len(header)
				header = append(header, h)
			}
			m[h] = recs[1][i]
		}
		rows = append(rows, m)
	}
	out := make([][]string, len(rows))
	for i, m := range rows {
		out[i] = make([]string, len(header))
		for j, h := range header {
			out[i][j] = m[h]
		}
	}
	if header == nil {
		header = []string{"key", "method", "q", "params", "repeat", "seconds"}
	}
	return fileio.WriteCSVAtomic(filepath.Join(dir, "summary.csv"), header, out)
}

// IsTerminal reports whether w is a terminal (an *os.File on one): progress
// bars redraw themselves with carriage returns only there.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

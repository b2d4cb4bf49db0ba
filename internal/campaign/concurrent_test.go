package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/fileio"
)

func bigSpec(dir string, runs int) Spec {
	s := spec(dir)
	s.Runs = nil
	for r := 0; r < runs; r++ {
		s.Runs = append(s.Runs, Run{Key: "m-r" + strconv.Itoa(r), Method: "m", Repeat: r})
	}
	return s
}

// After an interrupt the report counts what happened, not what was planned
// (it once said "48 run(s) ran" with 20 of 48 done): 12 runs, cancelled
// when 4 have finished.
func TestInterruptReportCountsHonestly(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var finished atomic.Int32
	inner := toyRun(5, nil)
	fn := func(ctx context.Context, run Run, rec *Recorder) ([]Field, error) {
		if finished.Load() >= 4 {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err() // an interrupted run returns its context's error
		}
		f, err := inner(ctx, run, rec)
		finished.Add(1)
		return f, err
	}
	s := bigSpec(dir, 12)
	rep, err := Execute(ctx, s, fn)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want an interrupted error, got %v", err)
	}
	done, _ := filepath.Glob(filepath.Join(dir, "runs", "*.summary.csv"))
	if rep.Ran != len(done) || rep.Ran < 4 || len(rep.Failed) != 0 || rep.Interrupted < 1 ||
		rep.Selected() != 12 || rep.Resumed+rep.Skipped+rep.Others != 0 {
		t.Errorf("report %+v with %d runs finished on disk: want Ran = finished, interrupted runs not failed, 12 in all", rep, len(done))
	}
	if got := rep.String(); !strings.HasPrefix(got, strconv.Itoa(len(done))+" of 12 run(s) finished") || strings.Contains(got, "failed") {
		t.Errorf("report line %q", got)
	}
	// The rerun finishes the rest and says so.
	rep, err = Execute(context.Background(), s, toyRun(5, nil))
	if err != nil || rep.Skipped != len(done) || rep.Ran+rep.Resumed != 12-len(done) {
		t.Errorf("rerun: %+v %v", rep, err)
	}
}

// Several Execute calls on one folder at once (duplicates and shards, as
// goroutines: locks exclude within a process too) compute each run once and
// leave the folder a single call makes. The real-process version is in cmd.
func TestConcurrentExecuteComputesEachRunOnce(t *testing.T) {
	ref := t.TempDir()
	if _, err := Execute(context.Background(), bigSpec(ref, 8), toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var mu sync.Mutex
	computed := map[string]int{}
	inner := toyRun(5, nil)
	fn := func(ctx context.Context, run Run, rec *Recorder) ([]Field, error) {
		mu.Lock()
		computed[run.Key]++
		mu.Unlock()
		time.Sleep(10 * time.Millisecond) // let the others find it locked
		return inner(ctx, run, rec)
	}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for p := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := bigSpec(dir, 8)
			if p >= 3 {
				s.Shard = Shard{Index: p - 3, Count: 3}
			}
			_, errs[p] = Execute(context.Background(), s, fn)
		}()
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", p, err)
		}
	}
	for k, n := range computed {
		if n != 1 {
			t.Errorf("run %s computed %d times", k, n)
		}
	}
	compareFolders(t, ref, dir)
}

// compareFolders checks that two campaign folders hold the same files with
// the same contents, the seconds column of summaries aside.
func compareFolders(t *testing.T, ref, dir string) {
	t.Helper()
	a, b := readAll(t, ref), readAll(t, dir)
	for name, want := range a {
		got, ok := b[name]
		if strings.HasSuffix(name, "summary.csv") {
			got, want = dropSeconds(got), dropSeconds(want)
		}
		if !ok || got != want {
			t.Errorf("%s differs:\n%s\nwant\n%s", name, got, want)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("extra file %s", name)
		}
	}
}

// A run another process holds is waited for; if that process finishes it,
// it counts as done by another process; if it dies without finishing, this
// process takes the run over.
func TestHeldRunWaitedForOrTakenOver(t *testing.T) {
	old := pollInterval
	pollInterval = 5 * time.Millisecond
	defer func() { pollInterval = old }()
	for _, finishes := range []bool{true, false} {
		dir := t.TempDir()
		s := bigSpec(dir, 2)
		s.Workers = 1
		os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
		held, err := fileio.TryLock(filepath.Join(dir, "runs", "m-r0.lock"))
		if err != nil {
			t.Fatal(err)
		}
		type out struct {
			rep Report
			err error
		}
		ch := make(chan out)
		go func() {
			rep, err := Execute(context.Background(), s, toyRun(5, nil))
			ch <- out{rep, err}
		}()
		// m-r1 gets done meanwhile; m-r0 waits for us.
		deadline := time.Now().Add(5 * time.Second)
		for !done(filepath.Join(dir, "runs"), "m-r1") && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		select {
		case o := <-ch:
			t.Fatalf("Execute returned while a run was held elsewhere: %+v %v", o.rep, o.err)
		case <-time.After(50 * time.Millisecond):
		}
		if finishes {
			os.WriteFile(filepath.Join(dir, "runs", "m-r0.summary.csv"), []byte("key,seconds\nm-r0,1\n"), 0o644)
		}
		held.Unlock()
		o := <-ch
		if o.err != nil {
			t.Fatal(o.err)
		}
		if finishes && (o.rep.Others != 1 || o.rep.Ran != 1) || !finishes && o.rep.Ran != 2 {
			t.Errorf("finishes=%v: report %+v", finishes, o.rep)
		}
	}
}

// Changed data under the same names is refused, naming the file, and
// nothing is written (a folder once silently mixed runs of two datasets).
func TestChangedInputRefused(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(t.TempDir(), "pool.csv")
	os.WriteFile(data, []byte("x\n1\n2\n"), 0o644)
	s := spec(dir)
	s.Inputs = []Input{{Name: "pool/pool.csv", Path: data}}
	if _, err := Execute(context.Background(), s, toyRun(5, map[string]int{"m-r2": 1})); err == nil {
		t.Fatal("want the stopped run to fail")
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if !strings.Contains(string(cfg), "file: pool/pool.csv") || !strings.Contains(string(cfg), "bytes: 6") {
		t.Errorf("config.yaml does not record the input:\n%s", cfg)
	}
	before := readAll(t, dir)
	os.WriteFile(data, []byte("x\n1\n3\n"), 0o644) // same size, other contents
	prepared := false
	s.Prepare = func() error { prepared = true; return nil }
	_, err := Execute(context.Background(), s, toyRun(5, nil))
	if err == nil || !strings.Contains(err.Error(), "pool/pool.csv") || !strings.Contains(err.Error(), "differs") {
		t.Errorf("want a refusal naming pool/pool.csv, got %v", err)
	}
	if prepared {
		t.Error("Prepare ran although the check failed")
	}
	after := readAll(t, dir)
	if len(after) != len(before) {
		t.Errorf("a refused run changed the folder: %d files, was %d", len(after), len(before))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("a refused run changed %s", k)
		}
	}
	// The original data resumes.
	os.WriteFile(data, []byte("x\n1\n2\n"), 0o644)
	if rep, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil || !prepared || rep.Resumed != 1 {
		t.Errorf("resume with the original data: %+v %v (prepared %v)", rep, err, prepared)
	}
}

// With a config mismatch nothing is written, Prepare (campaign-level files
// such as mds.csv) included.
func TestConfigMismatchWritesNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Execute(context.Background(), spec(dir), toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, dir)
	s := spec(dir)
	s.Config = map[string]any{"seed": 43, "budget": 5}
	s.Prepare = func() error { return os.WriteFile(filepath.Join(dir, "mds.csv"), []byte("x"), 0o644) }
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err == nil {
		t.Fatal("want a config mismatch")
	}
	after := readAll(t, dir)
	if len(after) != len(before) || after["summary.csv"] != before["summary.csv"] {
		t.Errorf("refused run wrote: %d files, was %d", len(after), len(before))
	}
}

// A grown config (more repeats) is accepted with the input fingerprints
// recorded (the growth check ignores them), keeps them in the rewritten
// config.yaml, and changed data is still refused afterwards.
func TestGrowthKeepsInputFingerprints(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(t.TempDir(), "pool.csv")
	os.WriteFile(data, []byte("x\n1\n"), 0o644)
	s := spec(dir)
	s.Inputs = []Input{{Name: "pool.csv", Path: data}}
	s.Growable = []string{"budget"}
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	s.Config = map[string]any{"seed": 42, "budget": 6}
	if err := CheckConfig(dir, s.Config, s.Growable); err != nil {
		t.Fatalf("growth refused: %v", err)
	}
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if !strings.Contains(string(cfg), "budget: 6") || !strings.Contains(string(cfg), "file: pool.csv") {
		t.Errorf("grown config.yaml:\n%s", cfg)
	}
	os.WriteFile(data, []byte("x\n2\n"), 0o644)
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err == nil || !strings.Contains(err.Error(), "pool.csv") {
		t.Errorf("changed data after growth: %v", err)
	}
}

// BenchmarkFingerprints: the cost of recording an input, per 32 MiB (about
// the Fashion-MNIST files together).
func BenchmarkFingerprints(b *testing.B) {
	p := filepath.Join(b.TempDir(), "data.bin")
	data := make([]byte, 32<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	os.WriteFile(p, data, 0o644)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := fingerprints([]Input{{Name: "d", Path: p}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRefusedCampaignWritesAndReportsNothing: a folder whose "runs" is a
// file got config.yaml written before the error, and a campaign that could
// not start (there, or in a read-only folder) reported "0 of 0 run(s)
// finished" before its error. Now the error names the file, nothing else is
// written, and the report says it never started.
func TestRefusedCampaignWritesAndReportsNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runs"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Execute(context.Background(), spec(dir), toyRun(5, nil))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "runs")+" is a file, not the folder of the run records") {
		t.Errorf("error %v", err)
	}
	if rep.Started() {
		t.Errorf("report %q of a campaign that never started", rep)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "runs" && e.Name() != ".campaign.lock" {
			t.Errorf("wrote %s", e.Name())
		}
	}
	// A folder where the campaign lock cannot be taken (as in a read-only
	// folder; the tests may run as root, which writes anywhere): an error
	// and no report.
	locked := t.TempDir()
	if err := os.Mkdir(filepath.Join(locked, ".campaign.lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	if rep, err := Execute(context.Background(), spec(locked), toyRun(5, nil)); err == nil || rep.Started() {
		t.Errorf("unlockable folder: started %v, error %v", rep.Started(), err)
	}
	rep, err = Execute(context.Background(), spec(t.TempDir()), toyRun(5, nil))
	if err != nil || !rep.Started() {
		t.Errorf("a campaign that ran: started %v, %v", rep.Started(), err)
	}
}

// TestDeadLockOfFinishedRunRemoved: a process killed after writing a run's
// summary and before releasing its lock leaves runs/KEY.lock; the next
// process to execute the campaign removes it (it kept it for good, and
// TestASResumeAfterKill9 failed under load: the resumed folder had a .lock
// the uninterrupted one had not). A lock held now is left alone.
func TestDeadLockOfFinishedRunRemoved(t *testing.T) {
	dir := t.TempDir()
	s := bigSpec(dir, 3)
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(dir, "runs")
	// m-r0's holder was killed (its flock went with it); m-r1's is alive.
	dead := filepath.Join(runs, "m-r0.lock")
	if err := os.WriteFile(dead, []byte("host 999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := fileio.TryLock(filepath.Join(runs, "m-r1.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	rep, err := Execute(context.Background(), s, toyRun(5, nil))
	if err != nil || rep.Skipped != 3 {
		t.Fatalf("rerun: %+v, %v; want the 3 runs skipped", rep, err)
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead holder's lock of a finished run is still there: %v", err)
	}
	if _, err := os.Stat(held.Path()); err != nil {
		t.Errorf("a held lock was removed: %v", err)
	}
	if _, err := fileio.TryLock(held.Path()); !errors.Is(err, fileio.ErrLocked) {
		t.Errorf("the held lock was taken: %v", err)
	}
}

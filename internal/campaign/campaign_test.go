package campaign

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/rng"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// toyRun makes `steps` records whose values depend only on (seed, key,
// iteration), so a resumed run must reproduce an uninterrupted one.
func toyRun(steps int, stopAfter map[string]int) RunFunc {
	return func(ctx context.Context, run Run, rec *Recorder) ([]Field, error) {
		start := len(rec.Rows())
		sum := 0.0
		for _, r := range rec.Rows() {
			v, _ := strconv.ParseFloat(r[1], 64)
			sum += v
		}
		for it := start; it < steps; it++ {
			if n, ok := stopAfter[run.Key]; ok && it == n {
				return nil, errors.New("killed")
			}
			v := rng.New(42, run.Key, it).Float64()
			sum += v
			if err := rec.Append([]string{strconv.Itoa(it), strconv.FormatFloat(v, 'g', -1, 64)}); err != nil {
				return nil, err
			}
		}
		if err := rec.WriteFile("curve", []string{"x"}, [][]string{{"1"}}); err != nil {
			return nil, err
		}
		return []Field{F("total", sum), I("records", steps)}, nil
	}
}

func spec(dir string) Spec {
	var runs []Run
	for r := 0; r < 4; r++ {
		runs = append(runs, Run{Key: "m-r" + strconv.Itoa(r), Method: "m", Repeat: r})
	}
	return Spec{Dir: dir, Header: []string{"iteration", "value"}, Runs: runs, Steps: 5, Workers: 2,
		Config: map[string]any{"seed": 42, "budget": 5}, Version: "test"}
}

func readAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func TestResumeEqualsUninterrupted(t *testing.T) {
	ref := t.TempDir()
	if _, err := Execute(context.Background(), spec(ref), toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := Execute(context.Background(), spec(dir), toyRun(5, map[string]int{"m-r1": 2, "m-r3": 0}))
	if err == nil || len(rep.Failed) != 2 {
		t.Fatalf("want 2 failed runs, got %v %v", rep, err)
	}
	// A temp file left by a kill between create and rename is swept.
	host, _ := os.Hostname()
	os.WriteFile(filepath.Join(dir, "runs", ".m-r1.csv.tmp-"+host+"_"+strconv.Itoa(testutil.DeadPID(t))+"_1"), []byte("half"), 0o644)
	rep, err = Execute(context.Background(), spec(dir), toyRun(5, nil))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 2 || rep.Resumed != 1 || rep.Ran != 1 {
		t.Errorf("report %+v: want 2 skipped, 1 resumed (m-r1 had records), 1 fresh (m-r3 had none)", rep)
	}
	a, b := readAll(t, ref), readAll(t, dir)
	for name, want := range a {
		got := b[name]
		if strings.HasSuffix(name, "summary.csv") {
			// seconds differ; compare all other columns.
			got, want = dropSeconds(got), dropSeconds(want)
		}
		if got != want {
			t.Errorf("%s differs after resume:\n%s\nwant\n%s", name, got, want)
		}
	}
	if len(a) != len(b) {
		t.Errorf("file sets differ: %d vs %d", len(a), len(b))
	}
}

func dropSeconds(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		f := strings.Split(l, ",")
		if len(f) > 0 {
			f = f[:len(f)-1] // seconds is the last column
		}
		out = append(out, strings.Join(f, ","))
	}
	return strings.Join(out, "\n")
}

func TestShardsFillOneFolder(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		s := spec(dir)
		s.Shard = Shard{Index: i, Count: 3}
		if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "summary.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "key,method,q,params,repeat,total,records,seconds") {
		t.Fatalf("summary after 3 shards:\n%s", b)
	}
	for i, l := range lines[1:] {
		if !strings.HasPrefix(l, "m-r"+strconv.Itoa(i)+",") {
			t.Errorf("row %d = %q: want runs in spec order", i, l)
		}
	}
}

func TestConfigMismatchRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := Execute(context.Background(), spec(dir), toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	s := spec(dir)
	s.Config = map[string]any{"seed": 43, "budget": 5}
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err == nil || !strings.Contains(err.Error(), "different config") {
		t.Errorf("want a config mismatch error, got %v", err)
	}
}

func TestParseShardAndKeys(t *testing.T) {
	for _, bad := range []string{"1", "2/2", "-1/3", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): want error", bad)
		}
	}
	if s, err := ParseShard("1/4"); err != nil || s != (Shard{1, 4}) {
		t.Errorf("ParseShard(1/4) = %v %v", s, err)
	}
	s := spec(t.TempDir())
	s.Runs = append(s.Runs, s.Runs[0])
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err == nil {
		t.Error("duplicate key: want error")
	}
	s = spec(t.TempDir())
	s.Runs[0].Key = "../evil"
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err == nil {
		t.Error("unsafe key: want error")
	}
}

func TestDamagedRecordsReported(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
	os.WriteFile(filepath.Join(dir, "runs", "m-r0.csv"), []byte("other,header\n1,2\n"), 0o644)
	if _, err := Execute(context.Background(), spec(dir), toyRun(5, nil)); err == nil || !strings.Contains(err.Error(), "m-r0.csv") {
		t.Errorf("want an error naming the record file, got %v", err)
	}
}

// TestProgressBarNamesUnit: the bar says what it counts and where.
func TestProgressBarNamesUnit(t *testing.T) {
	for _, tc := range []struct{ unit, want string }{{"queries", "queries"}, {"evaluations", "evaluations"}, {"", "records"}} {
		var buf bytes.Buffer
		bar := newProgressBar(Spec{Dir: "results/bmg", Unit: tc.unit, Progress: &buf}, 10)
		_ = bar.Add(3)
		out := buf.String()
		if !strings.Contains(out, "bmg "+tc.want) || !strings.Contains(out, "3/10") || !strings.Contains(out, tc.want+"/s") {
			t.Errorf("unit %q: bar %q does not name the folder, the count and the unit %q", tc.unit, out, tc.want)
		}
	}
}

// TestConfigRecordsKind: Spec.Kind is written as kind: after the version
// line; a folder written without it (before kinds were recorded) resumes
// and grows under a Spec with a kind, and a recorded kind never counts as a
// config difference.
func TestConfigRecordsKind(t *testing.T) {
	dir := t.TempDir()
	s := spec(dir)
	s.Kind = "bayesopt"
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.SplitN(string(b), "\n", 3); len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || lines[1] != "kind: bayesopt" {
		t.Errorf("config.yaml starts %q, want the version line then kind: bayesopt", lines)
	}
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Errorf("rerun with the kind recorded: %v", err)
	}
	old := t.TempDir()
	if _, err := Execute(context.Background(), spec(old), toyRun(5, nil)); err != nil {
		t.Fatal(err)
	}
	s = spec(old)
	s.Kind = "bayesopt"
	if _, err := Execute(context.Background(), s, toyRun(5, nil)); err != nil {
		t.Errorf("folder without kind: resumed under a kind: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(old, "config.yaml")); strings.Contains(string(b), "kind:") {
		t.Errorf("an unchanged config was rewritten: %s", b)
	}
}

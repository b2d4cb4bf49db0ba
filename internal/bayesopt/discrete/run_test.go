package discrete

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/vendi"

	"github.com/qvs-dev/qvs/internal/campaign"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func column(t *testing.T, recs [][]string, name string) int {
	t.Helper()
	for j, h := range recs[0] {
		if h == name {
			return j
		}
	}
	t.Fatalf("no column %q in %v", name, recs[0])
	return -1
}

func TestRunsAndKeys(t *testing.T) {
	runs, err := Runs([]string{"random", "ucb", "qvs"}, []vendi.Order{0.1, vendi.OrderInf}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range runs {
		keys = append(keys, r.Key+"/"+r.Q)
	}
	want := "random-r00/ ucb-r00/ qvs-q0.1-r00/0.1 qvs-qinf-r00/inf random-r01/ ucb-r01/ qvs-q0.1-r01/0.1 qvs-qinf-r01/inf"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("runs %s, want %s", got, want)
	}
	if _, err := Runs([]string{"ei"}, nil, 1); err == nil {
		t.Error("unknown method: no error")
	}
	if _, err := Runs([]string{"qvs"}, nil, 1); err == nil {
		t.Error("qvs without orders: no error")
	}
	if _, err := Runs([]string{"ucb", "ucb"}, nil, 1); err == nil {
		t.Error("method listed twice: no error")
	}
	if got := metricField("penalty %"); got != "best_penalty" {
		t.Errorf("MetricField = %q", got)
	}
}

// TestRunFuncCampaign runs a small campaign through internal/campaign, then
// simulates an interruption (summary deleted, records cut to the first two
// iterations) and checks the resumed run rewrites identical records.
func TestRunFuncCampaign(t *testing.T) {
	p := toyProblem(t, 40, 5)
	base := DefaultSettings()
	base.Budget, base.Batch, base.Seed = 12, 4, 3 // 2 initial points, then batches of 4, 4, 2
	runs, err := Runs([]string{"random", "ucb", "qvs"}, []vendi.Order{1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := campaign.Spec{Dir: dir, Header: RecordHeader, Runs: runs, Steps: base.Budget, Workers: 2,
		Quiet: true, Config: map[string]any{"seed": 3}, Version: "test"}
	if _, err := campaign.Execute(context.Background(), spec, p.RunFunc(base, []vendi.Order{1})); err != nil {
		t.Fatal(err)
	}
	sum := readCSV(t, filepath.Join(dir, "summary.csv"))
	if len(sum) != 1+len(runs) {
		t.Fatalf("summary has %d rows", len(sum)-1)
	}
	for _, c := range []string{"method", "q", "repeat", "best_value", "edc", "good_found", "evaluations", "best_id", "best_index", "best_penalty", "seconds"} {
		column(t, sum, c)
	}
	bv, bi, be, pen := column(t, sum, "best_value"), column(t, sum, "best_index"), column(t, sum, "evaluations"), column(t, sum, "best_penalty")
	for _, row := range sum[1:] {
		i, _ := strconv.Atoi(row[bi])
		if row[bv] != strconv.FormatFloat(p.Set.Objective[i], 'g', -1, 64) || row[be] != "12" ||
			row[pen] != strconv.FormatFloat(p.Set.Metrics[0][i], 'g', -1, 64) {
			t.Errorf("summary row %v inconsistent with item %d", row, i)
		}
	}
	// Records: 12 queries, iteration 0 has the same 2 points in every run of a repeat.
	recs := readCSV(t, filepath.Join(dir, "runs", "qvs-q1-r01.csv"))
	if len(recs) != 13 {
		t.Fatalf("%d records, want 12", len(recs)-1)
	}
	other := readCSV(t, filepath.Join(dir, "runs", "random-r01.csv"))
	if recs[1][2] != other[1][2] || recs[2][2] != other[2][2] {
		t.Errorf("initial points differ between methods of repeat 1: %v %v vs %v %v", recs[1], recs[2], other[1], other[2])
	}
	curve := readCSV(t, filepath.Join(dir, "runs", "qvs-q1-r01.curve.csv"))
	// iterations 0..3 (batches of 4, 4, 2)
	if len(curve) != 5 || curve[4][1] != "12" || curve[3][1] != "10" || curve[2][1] != "6" {
		t.Errorf("curve %v", curve)
	}
	full, _ := os.ReadFile(filepath.Join(dir, "runs", "qvs-q1-r01.csv"))

	// Interrupt: keep the records of iterations 0 and 1 only.
	cut := strings.Join(strings.SplitAfter(string(full), "\n")[:1+2+4], "")
	if err := os.WriteFile(filepath.Join(dir, "runs", "qvs-q1-r01.csv"), []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "runs", "qvs-q1-r01.summary.csv"))
	rep, err := campaign.Execute(context.Background(), spec, p.RunFunc(base, []vendi.Order{1}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resumed != 1 || rep.Skipped != len(runs)-1 {
		t.Errorf("report %+v, want 1 resumed", rep)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "runs", "qvs-q1-r01.csv"))
	if string(again) != string(full) {
		t.Errorf("resumed records differ:\n%s\nwant\n%s", again, full)
	}

	// Records of another candidate set are refused with a useful error.
	bad := strings.Replace(cut, ",m", ",x", 1)
	if err := os.WriteFile(filepath.Join(dir, "runs", "qvs-q1-r01.csv"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "runs", "qvs-q1-r01.summary.csv"))
	_, err = campaign.Execute(context.Background(), spec, p.RunFunc(base, []vendi.Order{1}))
	if err == nil || !strings.Contains(err.Error(), "delete runs/qvs-q1-r01.csv") {
		t.Errorf("foreign records: err = %v", err)
	}
}

// TestOpen: a task: kernel protocol's files are read into its Problem, Good
// counts the candidates at or above the threshold by hand, and the MDS
// embedding is written beside the runs with one row per candidate.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "K.csv"), []byte("1,0.5,0\n0.5,1,0.2\n0,0.2,1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("id,value\na,1\nb,3\nc,2\n"), 0o644)
	p := DefaultProtocol(TaskKernel)
	p.Data.Kernel, p.Data.Table, p.GoodThreshold, p.Name = "K.csv", "t.csv", 2, "toy3"
	l, err := p.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Set.Len() != 3 || l.Good != 2 || l.Problem == nil || l.Set.Name != "toy3" {
		t.Errorf("n %d, good %d (want 3, 2), name %q", l.Set.Len(), l.Good, l.Set.Name)
	}
	if err := l.ComputeMDS(filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteMDS(dir); err != nil {
		t.Fatal(err)
	}
	if recs := readCSV(t, filepath.Join(dir, "mds.csv")); len(recs) != 4 || recs[1][1] != "a" || recs[3][4] != "2" {
		t.Errorf("mds.csv: %v", recs)
	}
	p.Data.Table = "missing.csv"
	if _, err := p.Open(dir); err == nil {
		t.Error("a missing table opened")
	}
}

package cli

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestToyWritesFigureCSVAndLines: one line per panel (q = 0 explained),
// the CSV of every point with plausible scores, the PNG, config.yaml with
// the seed; the same seed gives the same lines whatever the workers.
func TestToyWritesFigureCSVAndLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "toy")
	// Small run: 4 points, 2 starts, orders 0 and 1.
	o := DefaultToyOptions()
	o.N, o.Starts, o.Out = 4, 2, dir
	if err := o.Orders.Set("0,1"); err != nil {
		t.Fatal(err)
	}
	e, stdout, _ := testEnv(t)
	e.Seed, e.Workers, e.Version = 3, 2, "test"
	if err := RunToy(e, &o); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 { // 2 rows x 2 orders
		t.Fatalf("want one line per panel (4), got:\n%s", out)
	}
	for i, prefix := range []string{"VS  q=0", "VS  q=1", "qVS q=0", "qVS q=1"} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], prefix)
		}
	}
	if !strings.Contains(lines[0], "empty") || !strings.Contains(lines[2], "mean quality") {
		t.Errorf("q = 0 lines do not explain themselves:\n%s\n%s", lines[0], lines[2])
	}

	f, err := os.Open(filepath.Join(dir, "toy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "row,q,point,x,y,vs,qvs" {
		t.Errorf("CSV header %v", recs[0])
	}
	// The empty VS_0 panel has no points: 3 panels x 4 points.
	if len(recs) != 1+3*4 {
		t.Fatalf("CSV has %d records, want 13", len(recs))
	}
	for _, r := range recs[1:] {
		x, _ := strconv.ParseFloat(r[3], 64)
		y, _ := strconv.ParseFloat(r[4], 64)
		vs, _ := strconv.ParseFloat(r[5], 64)
		qvs, _ := strconv.ParseFloat(r[6], 64)
		if math.Abs(x) > 1 || math.Abs(y) > 1 || !(vs >= 1) || !(qvs > 0) || qvs > vs {
			t.Errorf("implausible record %v", r)
		}
		if r[0] == "VS" && r[1] == "0" {
			t.Errorf("record for the empty VS_0 panel: %v", r)
		}
	}
	png, err := os.ReadFile(filepath.Join(dir, "toy.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("toy.png missing or not a PNG (err %v)", err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), "seed: 3") || !strings.Contains(string(cfg), `"n": 4`) {
		t.Errorf("config.yaml: err %v\n%s", err, cfg)
	}

	// Same seed, same output; the worker count does not matter.
	e, stdout, errb := testEnv(t)
	e.Seed, e.Workers, e.Quiet = 3, 1, true
	if err := RunToy(e, &o); err != nil || stdout.String() != out || errb.Len() != 0 {
		t.Errorf("rerun with 1 worker: %v, stderr %q, stdout equal %v", err, errb, stdout.String() == out)
	}
}

package cmd

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

func TestToyWritesFigureCSVAndLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "toy")
	// Small run: 4 points, 2 starts, orders 0 and 1.
	code, out, errs := runQVS(t, "toy", "--n", "4", "--q", "0,1", "--starts", "2", "--out", dir, "--seed", "3")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
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
	code, out2, errs := runQVS(t, "toy", "--n", "4", "--q", "0,1", "--starts", "2", "--out", dir, "--seed", "3", "--workers", "1", "--quiet")
	if code != ExitOK || out2 != out || errs != "" {
		t.Errorf("rerun with 1 worker: exit %d, stderr %q, stdout equal %v", code, errs, out2 == out)
	}
}

func TestToyConfigAndSVG(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "res")
	cfg := writeFile(t, dir, "toy.yaml", "n: 3\nq: \"inf\"\nstarts: 1\nformat: svg\nout: "+out+"\n")
	code, stdout, errs := runQVS(t, "--config", cfg, "toy", "--quiet")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(stdout, "\n"); n != 2 {
		t.Errorf("want 2 panel lines for q = inf only, got %d:\n%s", n, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(out, "toy.svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("toy.svg: err %v", err)
	}
	// A flag overrides the config key.
	code, _, errs = runQVS(t, "--config", cfg, "toy", "--quiet", "--format", "png")
	if _, err := os.Stat(filepath.Join(out, "toy.png")); code != ExitOK || err != nil {
		t.Errorf("--format png over config svg: exit %d (%s), %v", code, errs, err)
	}
	// Unknown keys are errors naming the key.
	bad := writeFile(t, dir, "bad.yaml", "n: 3\nstart: 2\n")
	if code, _, errs := runQVS(t, "--config", bad, "toy"); code == ExitOK || !strings.Contains(errs, "start") {
		t.Errorf("unknown key: exit %d, %q", code, errs)
	}
}

func TestToyUsageErrors(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "0"}, "--n"},
		{[]string{"--n", "100000"}, "must be 1 to 100"}, // once ran out of memory
		{[]string{"--starts", "0"}, "--starts"},
		{[]string{"--format", "pdf"}, "png or svg"},
		{[]string{"--q", "1,-2"}, "--q"},
		{[]string{"--q", "abc"}, "--q"},
		{[]string{"extra"}, "unknown command"},
	} {
		args := append([]string{"toy", "--out", out, "--quiet"}, tc.args...)
		code, _, errs := runQVS(t, args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tc.args, code, errs, ExitUsage, tc.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("usage errors wrote files: %v", entries)
	}
}

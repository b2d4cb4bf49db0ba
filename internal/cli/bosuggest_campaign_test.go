package cli

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/testutil"
)

const unitSpace6 = `parameters:
  - {name: x0, lower: 0, upper: 1}
  - {name: x1, lower: 0, upper: 1}
  - {name: x2, lower: 0, upper: 1}
  - {name: x3, lower: 0, upper: 1}
  - {name: x4, lower: 0, upper: 1}
  - {name: x5, lower: 0, upper: 1}
`

// spaceSuggest is `qvs bayesopt suggest --space space --observed observed
// --batch 5 --method qvs --q 1 --seed 4 --init 10 --regions 3 --candidates
// 60` with edit applied (the other flags): the exit code qvs would give,
// stdout, and the error's message followed by stderr.
func spaceSuggest(t *testing.T, space, observed string, edit func(*BOSuggestOptions)) (code int, stdout, msg string) {
	t.Helper()
	o := DefaultBOSuggestOptions()
	o.Continuous.Space, o.Observed, o.Batch, o.Method, o.Q, o.Init, o.InitGiven = space, observed, 5, "qvs", 1, 10, true
	o.Continuous.Regions, o.Continuous.Candidates = 3, 60
	o.ContinuousFlags = []string{"space", "regions", "candidates"}
	edit(&o)
	env, sout, serr := testEnv(t)
	env.Seed, env.SeedSet = 4, true
	if err := RunBOSuggest(env, &o); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// TestBayesoptSuggestMatchesCampaign: `bayesopt suggest` fed the first
// iterations of a campaign's record file (as written) prints the batch the
// campaign evaluated next, with its regions.
func TestBayesoptSuggestMatchesCampaign(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "bo")
	if code, _, errs := smallBO(t, out, campaign.Shard{}, func(k *BayesoptCampaign) { k.Config.Methods = []string{"turbo", "qvs"} }); code != ExitOK {
		t.Fatalf("campaign: exit %d: %s", code, errs)
	}
	space := testutil.WriteFile(t, dir, "space.yaml", unitSpace6)
	for _, run := range []struct{ key, method string }{{"turbo-r00", "turbo"}, {"qvs-q1-r00", "qvs"}} {
		recs := testutil.ReadCSVFile(t, filepath.Join(out, "runs", run.key+".csv"))
		const n = 15 // init 10 + one batch of 5
		var b strings.Builder
		for _, r := range recs[:1+n] {
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		evals := testutil.WriteFile(t, dir, run.key+".csv", b.String())
		code, stdout, errs := spaceSuggest(t, space, evals, func(o *BOSuggestOptions) { o.Method, o.Continuous.Tau = run.method, 0.5 })
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", run.key, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if lines[0] != "rank,x0,x1,x2,x3,x4,x5,region" || len(lines) != 6 {
			t.Fatalf("%s: output %q", run.key, stdout)
		}
		for i, l := range lines[1:] {
			cells := strings.Split(l, ",")
			rec := recs[1+n+i] // iteration,region,x0..x5,value,seconds
			if got, want := strings.Join(cells[1:], ","), strings.Join(append(rec[2:8:8], rec[1]), ","); got != want {
				t.Errorf("%s suggestion %d: %s, the campaign evaluated %s", run.key, i+1, got, want)
			}
		}
	}
}

// TestBayesoptSuggestQVSModes: suggest --qvs-floor and --qvs-mode authors
// fed the first iterations of the matching campaign run's records print the
// batch that run evaluated next (as TestBayesoptSuggestMatchesCampaign for
// the paper mode).
func TestBayesoptSuggestQVSModes(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", unitSpace6)
	// tau 1.2 makes the floor bind in this run (at 0.5 it never does).
	for _, c := range []struct{ flag, value, key, tau string }{
		{"--qvs-floor", "", "qvs-q1-floor-r00", "1.2"},
		{"--qvs-mode", "authors", "qvs-q1-r00", "0.5"},
	} {
		out := filepath.Join(dir, strings.TrimPrefix(c.flag, "--"))
		tau, err := strconv.ParseFloat(c.tau, 64)
		if err != nil {
			t.Fatal(err)
		}
		floor, mode := c.flag == "--qvs-floor", bayesopt.ModePaper
		if c.flag == "--qvs-mode" {
			mode = c.value
		}
		if code, _, errs := smallBO(t, out, campaign.Shard{}, func(k *BayesoptCampaign) {
			k.Config.Methods, k.Config.Tau, k.Config.QVSFloor, k.Config.QVSMode = []string{"qvs"}, tau, floor, mode
		}); code != ExitOK {
			t.Fatalf("%s campaign: exit %d: %s", c.flag, code, errs)
		}
		recs := testutil.ReadCSVFile(t, filepath.Join(out, "runs", c.key+".csv"))
		const n = 15 // init 10 + one batch of 5
		var b strings.Builder
		for _, r := range recs[:1+n] {
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		evals := testutil.WriteFile(t, dir, c.key+".csv", b.String())
		code, stdout, errs := spaceSuggest(t, space, evals, func(o *BOSuggestOptions) {
			o.Continuous.Tau, o.Continuous.QVSFloor, o.Continuous.QVSMode = tau, floor, mode
		})
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", c.flag, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		var want []string
		for _, rec := range recs[1+n:] {
			if rec[0] != recs[1+n][0] {
				break
			}
			want = append(want, strings.Join(append(rec[2:8:8], rec[1]), ","))
		}
		var got []string
		for _, l := range lines[1:] {
			got = append(got, strings.SplitN(l, ",", 2)[1])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: suggested\n%s\nthe campaign evaluated\n%s", c.flag, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// Both are for method qvs.
	if code, _, errs := spaceSuggest(t, space, testutil.WriteFile(t, dir, "e.csv", "x0,x1,x2,x3,x4,x5,value\n"), func(o *BOSuggestOptions) {
		o.Method, o.Continuous.QVSFloor = "turbo", true
		o.ContinuousFlags = append(o.ContinuousFlags, "qvs-floor")
	}); code != ExitUsage || !strings.Contains(errs, "--method qvs only") {
		t.Errorf("turbo --qvs-floor: exit %d, %s", code, errs)
	}
}

// TestBayesoptSuggestColdStart: without --observed, both suggest commands
// answer as they do for a file with the header alone (nothing evaluated
// yet): the first points of the initial design, byte for byte.
func TestBayesoptSuggestColdStart(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", unitSpace6)
	header := testutil.WriteFile(t, dir, "header.csv", "x0,x1,x2,x3,x4,x5,value\n")
	testutil.WriteToyMOF(t, dir, 6)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	kheader := testutil.WriteFile(t, dir, "kheader.csv", "index,value\n")
	onSpace := func(observed string) *BOSuggestOptions {
		o := DefaultBOSuggestOptions()
		o.Continuous.Space, o.Observed, o.Batch, o.ContinuousFlags = space, observed, 4, []string{"space"}
		return &o
	}
	onKernel := func(observed string) *BOSuggestOptions {
		o := kernelSuggest(kernel, observed)
		o.Batch, o.DiscreteFlags = 2, []string{"kernel"}
		return o
	}
	for _, c := range []struct {
		name    string
		options func(observed string) *BOSuggestOptions
		header  string
		rows    int
	}{
		{"space", onSpace, header, 4},
		{"kernel", onKernel, kheader, 2},
	} {
		run := func(observed string) (int, string, string) {
			env, sout, serr := testEnv(t)
			env.Seed, env.SeedSet = 7, true
			if err := RunBOSuggest(env, c.options(observed)); err != nil {
				return ExitCode(err), sout.String(), err.Error()
			}
			return 0, sout.String(), serr.String()
		}
		code, cold, errs := run("")
		if code != ExitOK {
			t.Fatalf("%s without --observed: exit %d: %s", c.name, code, errs)
		}
		code, want, errs2 := run(c.header)
		if code != ExitOK {
			t.Fatalf("%s with a header-only file: exit %d: %s", c.name, code, errs2)
		}
		if cold != want {
			t.Errorf("%s: without --observed\n%s\nwith the header alone\n%s", c.name, cold, want)
		}
		if lines := strings.Split(strings.TrimSpace(cold), "\n"); len(lines) != 1+c.rows {
			t.Errorf("%s: %d lines, want a header and %d suggestions: %q", c.name, len(lines), c.rows, cold)
		}
	}
}

// TestBayesoptSuggestFailed: failed rows (empty, nan, failed, status
// failed) are counted on stderr, stdout holds only the suggestions, none
// within the failure radius of a failed row; --retry-failed says so.
func TestBayesoptSuggestFailed(t *testing.T) {
	dir := t.TempDir()
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n")
	evals := testutil.WriteFile(t, dir, "evals.csv", "a,b,value,status\n"+
		"0.1,1,0.5,\n0.2,5,,\n0.9,9,nan,\n0.5,5,3,failed\n0.3,2,1.5,ok\n0.7,3,failed,\n0.6,8,0.2,\n0.4,4,2,\n")
	failed := [][2]float64{{0.2, 5}, {0.9, 9}, {0.5, 5}, {0.7, 3}}
	options := func(retry bool) *BOSuggestOptions {
		o := DefaultBOSuggestOptions()
		o.Continuous.Space, o.Observed, o.Batch, o.Init, o.InitGiven, o.Continuous.Candidates, o.RetryFailed = space, evals, 4, 4, true, 200, retry
		o.ContinuousFlags = []string{"space", "candidates"}
		return &o
	}
	code, stdout, stderr := exitOf(t, RunBOSuggest, options(false))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "4 of 8 experiments in "+evals+" failed") || !strings.Contains(stderr, "--retry-failed") {
		t.Errorf("stderr %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != "rank,a,b,region" || len(lines) != 5 {
		t.Fatalf("stdout %q", stdout)
	}
	for _, l := range lines[1:] {
		c := strings.Split(l, ",")
		a, _ := strconv.ParseFloat(c[1], 64)
		b, _ := strconv.ParseFloat(c[2], 64)
		for _, f := range failed {
			if math.Hypot(a-f[0], (b-f[1])/10) <= 0.05*math.Sqrt2 {
				t.Errorf("suggestion %s within the failure radius of %v", l, f)
			}
		}
	}
	code, _, stderr = exitOf(t, RunBOSuggest, options(true))
	if code != ExitOK || !strings.Contains(stderr, "they may be suggested again") {
		t.Errorf("--retry-failed: exit %d, stderr %q", code, stderr)
	}
}

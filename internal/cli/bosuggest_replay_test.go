package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// kernelCampaignConfig is a `task: kernel` campaign on the toy set of
// writeToyMOF: no name (random streams of suggest), no metric columns.
const kernelCampaignConfig = `task: kernel
seed: 5
methods: [random, ucb, qvs]
q: [1, inf]
repeats: 1
init: 2
budget: 14
batch: 4
beta: 2
good_threshold: 15
data:
  kernel: mof/kernel.csv
  table: mof/mofs.csv
  objective_column: storage
`

// TestSuggestDiscreteReplaysCampaign: a `task: kernel` campaign run's first
// N evaluations fed to `suggest --kernel` (same seed, init, batch, beta and
// method) give the batch the campaign evaluated next, for every method and
// every N at a batch boundary, by index and by id; before any evaluation
// suggest gives the campaign's initial design.
func TestSuggestDiscreteReplaysCampaign(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteToyMOF(t, dir, 30)
	out := filepath.Join(dir, "out")
	if code, _, stderr := discreteRun(t, kernelCampaignConfig, dir, out, true, nil); code != 0 {
		t.Fatalf("campaign: exit %d: %s", code, stderr)
	}
	table := testutil.ReadCSVFile(t, filepath.Join(dir, "mof", "mofs.csv"))
	var ids strings.Builder
	for _, r := range table[1:] {
		ids.WriteString(r[0] + "\n")
	}
	idsPath := testutil.WriteFile(t, dir, "ids.txt", ids.String())
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	for _, run := range []struct{ key, method, q string }{{"random-r00", "random", "1"}, {"ucb-r00", "ucb", "1"}, {"qvs-q1-r00", "qvs", "1"}, {"qvs-qinf-r00", "qvs", "inf"}} {
		recs := testutil.ReadCSVFile(t, filepath.Join(out, "runs", run.key+".csv"))[1:] // iteration,pick,index,id,value
		for n := 0; n < len(recs); {
			it := recs[n][0]
			var batch []string
			for _, r := range recs[n:] {
				if r[0] == it {
					batch = append(batch, r[2])
				}
			}
			// History of the first n evaluations, by index for even n and by id for odd n.
			var h strings.Builder
			if n%2 == 0 {
				h.WriteString("index,value\n")
			} else {
				h.WriteString("value,id\n")
			}
			for _, r := range recs[:n] {
				if n%2 == 0 {
					fmt.Fprintf(&h, "%s,%s\n", r[2], r[4])
				} else {
					fmt.Fprintf(&h, "%s,%q\n", r[4], r[3])
				}
			}
			evals := testutil.WriteFile(t, dir, "evals.csv", h.String())
			b := 4 // the last batch of the campaign is smaller: suggest's batch starts with it
			if n == 0 {
				b = 2
			}
			o := kernelSuggest(kernel, evals)
			o.Discrete.IDs, o.Batch, o.Method, o.Init, o.InitGiven, o.Discrete.Beta = idsPath, b, run.method, 2, true, 2
			var err error
			if o.Q, err = vendi.ParseOrder(run.q); err != nil {
				t.Fatal(err)
			}
			env, sout, _ := testEnv(t)
			env.Seed, env.SeedSet, env.Quiet = 5, true, true
			if err := RunBOSuggest(env, o); err != nil {
				t.Fatalf("%s after %d: %v", run.key, n, err)
			}
			stdout := sout.String()
			var got []string
			for _, r := range testutil.ParseCSV(t, stdout)[1:] {
				got = append(got, r[1])
			}
			if !slices.Equal(got[:len(batch)], batch) {
				t.Errorf("%s after %d evaluations: suggest %v, campaign %v", run.key, n, got, batch)
			}
			n += len(batch)
		}
	}
}

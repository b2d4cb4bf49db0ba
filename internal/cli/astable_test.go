package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// asTable is `qvs as table dir`: the exit code qvs would give, stdout, and
// the error's message.
func asTable(t *testing.T, dir string) (code int, stdout, msg string) {
	t.Helper()
	var out bytes.Buffer
	if err := PrintCampaignTable(&out, dir, eval.KindActiveSearch, campaign.Shard{}, 0); err != nil {
		return ExitCode(err), out.String(), err.Error()
	}
	return 0, out.String(), ""
}

// TestASTable prints the table of a summary.csv written here and checks
// its numbers against a hand computation.
func TestASTable(t *testing.T) {
	dir := t.TempDir()
	header := "key,method,q,params,repeat,positives,vs_q0,vs_q0.1,vs_q0.5,vs_q1,vs_q2,vs_qinf,max_pairwise_distance,kernel_det,kernel_logdet,seconds\n"
	const eci5, eci25 = "threshold=0.5 fantasy=pessimistic", "threshold=0.25 fantasy=pessimistic"
	testutil.WriteFile(t, dir, "summary.csv", header+
		"random-r00,random,,,0,10,1,1,1,1,1,1,2,0.5,-0.7,1\n"+
		"random-r01,random,,,1,14,1,1,1,1,1,1,2,0.5,-0.7,1\n"+
		"eci-t0.5-pessimistic-r00,eci,,"+eci5+",0,20,1,1,1,8,1,1,2,0.5,-0.7,1\n"+
		"eci-t0.5-pessimistic-r01,eci,,"+eci5+",1,22,1,1,1,11,1,1,2,0.5,-0.7,1\n"+
		"eci-t0.25-pessimistic-r00,eci,,"+eci25+",0,30,1,1,1,5,1,1,2,0.5,-0.7,1\n"+
		"eci-t0.25-pessimistic-r01,eci,,"+eci25+",1,31,1,1,1,6,1,1,2,0.5,-0.7,1\n"+
		"qvs-q1-r00,qvs,1,,0,12,1,1,1,9,1,1,2,0.5,-0.7,1\n"+
		"qvs-q1-r01,qvs,1,,1,13,1,1,1,9,1,1,2,0.5,-0.7,1\n")
	code, stdout, stderr := asTable(t, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Columns: method, positives, VS q=0, 0.1, 0.5, 1, 2, inf, max. dist., det.
	// random: positives 10, 14: mean 12, sample sd 2√2, SE 2√2/√2 = 2.
	// ECI*: positives from threshold 0.25 (30, 31: mean 30.5, SE 0.5), VS_1
	// from threshold 0.5 (8, 11: mean 9.5, SE 1.5); qVS-AS q=1: VS_1 9, 9.
	// Columns where every row prints 1.00 are bold throughout (ties).
	for _, want := range []string{
		"| random search | 12.00 (2.00) | **1.00 (0.00)** | **1.00 (0.00)** | **1.00 (0.00)** | 1.00 (0.00) |",
		`| ECI\* | **30.50 (0.50)** | **1.00 (0.00)** | **1.00 (0.00)** | **1.00 (0.00)** | **9.50 (1.50)** |`,
		"| qVS-AS, q = 1 | 12.50 (0.50) | **1.00 (0.00)** | **1.00 (0.00)** | **1.00 (0.00)** | 9.00 (0.00) |",
		`- ECI\*: best setting per column: threshold=0.25 fantasy=pessimistic for positives found, `,
		"; threshold=0.5 fantasy=pessimistic for VS q=1",
		"mean (standard error) over 2 repeats",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	// A run finished after summary.csv was written counts, and the table says
	// the campaign is partial (qvs-q1 has 3 repeats, the others 2).
	if err := os.Mkdir(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(dir, "runs"), "qvs-q1-r02.summary.csv", header+"qvs-q1-r02,qvs,1,,2,17,1,1,1,9,1,1,2,0.5,-0.7,1\n")
	_, stdout, _ = asTable(t, dir)
	// positives 12, 13, 17: mean 14, sample sd √7, SE √(7/3) = 1.53.
	if !strings.Contains(stdout, "| qVS-AS, q = 1 | 14.00 (1.53) |") || !strings.Contains(stdout, "Partial campaign: fewer repeats than expected") {
		t.Errorf("late run not counted:\n%s", stdout)
	}

	empty := t.TempDir()
	testutil.WriteFile(t, empty, "summary.csv", header)
	if code, stdout, _ := asTable(t, empty); code != 0 || !strings.Contains(stdout, "no finished runs yet") {
		t.Errorf("empty summary: exit %d, %q", code, stdout)
	}
	other := t.TempDir()
	testutil.WriteFile(t, other, "summary.csv", "key,method,q,params,repeat,best_value,edc,seconds\nucb-r00,ucb,,,0,1,2,3\n")
	if code, _, stderr := asTable(t, other); code != 1 || !strings.Contains(stderr, "not an active-search campaign") {
		t.Errorf("BayesOpt summary: exit %d, %s", code, stderr)
	}
	if code, _, stderr := asTable(t, filepath.Join(dir, "absent")); code != 1 || !strings.Contains(stderr, "absent") {
		t.Errorf("missing folder: exit %d, %s", code, stderr)
	}
}

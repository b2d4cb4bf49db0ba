package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// jsonDoc is the --format json document (docs/json.md).
type jsonDoc struct {
	Command string           `json:"command"`
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
}

// checkJSONMatchesCSV parses a --format json document and checks it holds
// the CSV form's header and cells: ids and other text as strings, numbers
// as JSON numbers of the same float64 value.
func checkJSONMatchesCSV(t *testing.T, name, command, jsonOut, csvOut string) jsonDoc {
	t.Helper()
	var doc jsonDoc
	dec := json.NewDecoder(strings.NewReader(jsonOut))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: not one JSON document: %v\n%s", name, err, jsonOut)
	}
	if dec.More() {
		t.Errorf("%s: more than one JSON document:\n%s", name, jsonOut)
	}
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: CSV form %q: %v", name, csvOut, err)
	}
	if doc.Command != command || strings.Join(doc.Columns, ",") != strings.Join(recs[0], ",") || len(doc.Rows) != len(recs)-1 {
		t.Fatalf("%s: command %q columns %v, %d rows; CSV header %v, %d rows", name, doc.Command, doc.Columns, len(doc.Rows), recs[0], len(recs)-1)
	}
	for r, rec := range recs[1:] {
		if len(doc.Rows[r]) != len(rec) {
			t.Errorf("%s row %d: %d fields, CSV has %d", name, r, len(doc.Rows[r]), len(rec))
		}
		for j, h := range recs[0] {
			got := doc.Rows[r][h]
			if h == "id" {
				if got != rec[j] {
					t.Errorf("%s row %d: id %#v, CSV %q", name, r, got, rec[j])
				}
				continue
			}
			want, err := strconv.ParseFloat(rec[j], 64)
			if num, ok := got.(float64); err != nil || !ok || num != want {
				t.Errorf("%s row %d column %s: %#v, CSV %q", name, r, h, got, rec[j])
			}
		}
	}
	return doc
}

// TestFormatJSON: --format json of select, as suggest and
// bayesopt suggest (--space and --kernel) is one JSON document whose rows
// are the CSV form's, numbers as numbers and ids as strings (also ids that
// look like numbers), and stdout stays empty on an error.
func TestFormatJSON(t *testing.T) {
	dir := t.TempDir()
	// both runs the command run stands for with --format csv and --format
	// json.
	both := func(name, command string, run func(format string) (code int, stdout, msg string)) jsonDoc {
		t.Helper()
		code, csvOut, stderr := run(FormatCSV)
		if code != 0 {
			t.Fatalf("%s csv: exit %d: %s", name, code, stderr)
		}
		code, jsonOut, stderr := run(FormatJSON)
		if code != 0 {
			t.Fatalf("%s json: exit %d: %s", name, code, stderr)
		}
		return checkJSONMatchesCSV(t, name, command, jsonOut, csvOut)
	}

	// select: a kernel, and embeddings with ids that look like numbers.
	k := testutil.WriteFile(t, dir, "K.csv", testutil.Kernel3)
	doc := both("select --kernel", "select", func(format string) (int, string, string) {
		return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
			o.Items.Kernel = k
			o.K = 2
			o.Q = vendi.OrderInf
			o.Format.Value = format
		}))
	})
	if strings.Join(doc.Columns, ",") != "rank,index,qvs" {
		t.Errorf("select columns %v", doc.Columns)
	}
	emb := testutil.WriteFile(t, dir, "emb.csv", "id,x1,x2\n007,1,0\n008,0,1\n009,0.7,0.7\n010,-1,0\n")
	doc = both("select --embeddings", "select", func(format string) (int, string, string) {
		return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
			o.Items.Embeddings = emb
			o.Items.IDColumn = "id"
			o.K = 3
			o.Format.Value = format
		}))
	})
	if id := doc.Rows[0]["id"]; id != "007" && id != "008" && id != "009" && id != "010" {
		t.Errorf("select id %#v: want the id as written", id)
	}
	var raw map[string]any
	_, out, _ := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Kernel = k
		o.K = 2
		o.Q = vendi.OrderInf
		o.Prefix = "0"
		o.Format.Value = FormatJSON
	}))
	if err := json.Unmarshal([]byte(out), &raw); err != nil || raw["q"] != "inf" || len(raw["prefix"].([]any)) != 1 {
		t.Errorf("select extra fields: %v (%v)", raw, err)
	}

	// as suggest on a CSV pool.
	pool := testutil.WriteFile(t, dir, "pool.csv", testutil.LinePoolCSV(false))
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	// as suggest --cache-dir DIR --pool pool.csv --id-column id --feature-prefix x
	// --k 3 --observed obs.csv --batch 4 --prior 0.1 --quiet --format format
	suggest := func(format string) (int, string, string) {
		return exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) { c.IDColumn, c.FeaturePrefix, c.K = "id", "x", 3 }),
			func(o *ASSuggestOptions, p *search.Protocol) {
				o.Observed, o.Batch, o.Format.Value = obs, 4, format
				o.Labels.Prior, o.Labels.PriorGiven, o.LabelFlags, p.Prior = "0.1", true, []string{"prior"}, "0.1"
			}), beQuiet, func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") })
	}
	both("as suggest", "as suggest", suggest)
	_, out, _ = suggest(FormatJSON)
	if err := json.Unmarshal([]byte(out), &raw); err != nil || raw["prior_a1"] != 0.1 || raw["q"] != 1.0 || raw["method"] != "qvs" || raw["labelled"] != 2.0 ||
		raw["cold_start"] != false || raw["picked_by"] != "qvs" {
		t.Errorf("as suggest extra fields: %v (%v)", raw, err)
	}

	// bayesopt suggest --space and --kernel.
	space := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: n, lower: 1, upper: 9, type: int}\n")
	evals := testutil.WriteFile(t, dir, "evals.csv", "a,n,value\n0.5,3,1\n0.2,7,0.5\n0.9,2,2\n0.4,5,1.5\n")
	both("bayesopt suggest --space", "bayesopt suggest", func(format string) (int, string, string) {
		return exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
			o.Continuous.Space = space
			o.Observed = evals
			o.Batch = 3
			o.Init, o.InitGiven = 3, true
			o.Format.Value = format
		}), func(e *Env) { e.Seed, e.SeedSet = 1, true })
	})
	testutil.WriteToyMOF(t, dir, 8)
	kernel := filepath.Join(dir, "mof", "kernel.csv")
	good := testutil.WriteFile(t, dir, "good.csv", "index,value\n1,2.5\n4,1\n")
	doc = both("bayesopt suggest --kernel", "bayesopt suggest", func(format string) (int, string, string) {
		return exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
			o.Discrete.Kernel, o.OnKernel = kernel, true
			o.Observed = good
			o.Batch = 3
			o.Format.Value = format
		}), func(e *Env) { e.Seed, e.SeedSet = 1, true })
	})
	if _, ok := doc.Rows[0]["id"].(string); !ok {
		t.Errorf("bayesopt suggest --kernel: id %#v is not a string", doc.Rows[0]["id"])
	}

	// Errors: stdout empty.
	code, out, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Kernel = k
		o.K = 9
		o.Format.Value = FormatJSON
	}))
	if code == 0 || out != "" || !strings.Contains(stderr, "--k") {
		t.Errorf("select error with json: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// as suggest on a .npy pool names items by --ids; a campaign on a CSV pool
// with pool.csv.knn: approx records it in config.yaml.
func TestASSuggestNPYPoolAndKNNRecord(t *testing.T) {
	dir := t.TempDir()
	n, d, x := testutil.GraphPool()
	pool := writeNPY32(t, dir, "spiral.npy", n, d, x)
	var ids strings.Builder
	for i := range n {
		ids.WriteString("item" + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "\n")
	}
	idsFile := testutil.WriteFile(t, dir, "ids.txt", ids.String())
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nitemAa,1\nitemBa,0\n")
	code, out, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) {
		c.K = 4
		c.IDsFile = idsFile
	}), func(o *ASSuggestOptions, _ *search.Protocol) {
		o.Observed = obs
		o.Batch = 2
		o.Format.Value = FormatCSV
	}), func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := testutil.SuggestRows(t, out)
	for _, r := range rows {
		if !strings.HasPrefix(r[2], "item") {
			t.Errorf("row %v: id not from --ids", r)
		}
	}

	csv := testutil.WriteFile(t, dir, "labelled.csv", testutil.LinePoolCSV(true))
	cfg := "task: line\npool:\n  kind: csv\n  csv:\n    file: " + csv + "\n    id_column: id\n    feature_prefix: x\n    k: 2\n    knn: approx\nmethods: [random]\nrepeats: 1\nbudget: 5\n"
	outDir := filepath.Join(dir, "campaign")
	if code, _, stderr := asConfigRun(t, cfg, outDir, filepath.Join(dir, "cache"), false); code != 0 {
		t.Fatalf("campaign: exit %d: %s", code, stderr)
	} else if !strings.Contains(stderr, "kNN graph: approximate") {
		t.Errorf("campaign stderr does not state the graph method: %s", stderr)
	}
	rec, _ := os.ReadFile(filepath.Join(outDir, "config.yaml"))
	if !strings.Contains(string(rec), "knn: approx") {
		t.Errorf("config.yaml does not record the approximate graph:\n%s", rec)
	}
	// Resuming with the same config is accepted.
	if code, _, stderr := asConfigRun(t, cfg, outDir, filepath.Join(dir, "cache"), false); code != 0 {
		t.Errorf("resume: exit %d: %s", code, stderr)
	}
}

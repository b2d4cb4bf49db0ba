package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/testutil"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// exitOf calls run with o and an Env of buffers and returns what qvs
// would: the exit code (ExitCode of the error, 0 without one), stdout,
// and the error's message followed by stderr.
func exitOf[O any](t *testing.T, run func(*Env, *O) error, o *O) (code int, stdout, msg string) {
	t.Helper()
	err, out, errs := runCmd(t, run, o)
	if err != nil {
		return ExitCode(err), out, err.Error() + "\n" + errs
	}
	return 0, out, errs
}

// setItems sets o as the command-line flags in args would (flag, value
// pairs; the booleans --normalize, --standardize and --linear alone),
// listing the embeddings-only flags given in o.EmbFlags; rest is what it
// does not know. Which flag fills which field is cmd's to test
// (TestFlagsFillOptions); this only writes the tests here in the
// command's terms.
func setItems(t *testing.T, o *ItemsOptions, args ...string) (rest []string) {
	t.Helper()
	e := &o.Emb
	str := map[string]*string{"--kernel": &o.Kernel, "--embeddings": &o.Embeddings, "--quality": &o.Quality, "--ids": &o.IDs, "--id-column": &o.IDColumn,
		"--quality-column": &e.QualityColumn, "--feature-columns": &e.FeatureColumns, "--embedding-kernel": &e.Kernel, "--feature-prefix": &e.FeaturePrefix,
		"--exclude-columns": &e.ExcludeColumns, "--fingerprint-column": &e.FingerprintColumn, "--fingerprint-format": &e.FingerprintFormat, "--group-column": &e.GroupColumn}
	boolean := map[string]*bool{"--normalize": &o.Normalize, "--standardize": &e.Standardize, "--linear": &e.Linear}
	embOnly := func(f string) bool {
		switch f {
		case "--kernel", "--embeddings", "--quality", "--ids", "--id-column", "--normalize":
			return false
		}
		return true
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case boolean[f] != nil:
			*boolean[f] = true
		case str[f] != nil || f == "--length-scale":
			if i+1 == len(args) {
				t.Fatalf("%s needs a value", f)
			}
			i++
			if f == "--length-scale" {
				v, err := strconv.ParseFloat(args[i], 64)
				if err != nil {
					t.Fatal(err)
				}
				e.LengthScale = v
			} else {
				*str[f] = args[i]
			}
		default:
			rest = append(rest, f)
			continue
		}
		if embOnly(f) {
			o.EmbFlags = append(o.EmbFlags, strings.TrimPrefix(f, "--"))
		}
	}
	return rest
}

// scoreArgs is the ScoreOptions of `qvs score args...` (setItems, --q,
// --format).
func scoreArgs(t *testing.T, args ...string) *ScoreOptions {
	t.Helper()
	o := DefaultScoreOptions()
	rest := setItems(t, &o.Items, args...)
	for i := 0; i < len(rest); i += 2 {
		if i+1 == len(rest) {
			t.Fatalf("score: %s alone", rest[i])
		}
		var err error
		switch rest[i] {
		case "--q":
			err = o.Orders.Set(rest[i+1])
		case "--format":
			err = o.Format.Set(rest[i+1])
		default:
			t.Fatalf("score: flag %s", rest[i])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return &o
}

// selectArgs is the SelectOptions of `qvs select args...` (setItems, --k,
// --q, --prefix, --format, and --raw-ids last).
func selectArgs(t *testing.T, args ...string) *SelectOptions {
	t.Helper()
	o := DefaultSelectOptions()
	rest := setItems(t, &o.Items, args...)
	if n := len(rest); n > 0 && rest[n-1] == "--raw-ids" {
		o.RawIDs, rest = true, rest[:n-1]
	}
	for i := 0; i < len(rest); i += 2 {
		if i+1 == len(rest) {
			t.Fatalf("select: %s alone", rest[i])
		}
		var err error
		switch v := rest[i+1]; rest[i] {
		case "--k":
			o.K, err = strconv.Atoi(v)
		case "--q":
			o.Q, err = vendi.ParseOrder(v)
		case "--prefix":
			o.Prefix = v
		case "--format":
			err = o.Format.Set(v)
		default:
			t.Fatalf("select: flag %s", rest[i])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return &o
}

// itemsCmd is `qvs score args...` or `qvs select args...` (args[0]), run
// directly (scoreArgs, selectArgs; --quiet anywhere is Env.Quiet): the
// exit code qvs would give, stdout, and the error's message followed by
// stderr.
func itemsCmd(t *testing.T, args ...string) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := testEnv(t)
	var rest []string
	for _, a := range args[1:] {
		if a == "--quiet" {
			env.Quiet = true
			continue
		}
		rest = append(rest, a)
	}
	var err error
	switch args[0] {
	case "score":
		err = RunScore(env, scoreArgs(t, rest...))
	case "select":
		err = RunSelect(env, selectArgs(t, rest...))
	default:
		t.Fatalf("command %q", args[0])
	}
	if err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

// writeNPY32 writes rows x cols float32 values as a .npy file.
func writeNPY32(t *testing.T, dir, name string, rows, cols int, data []float32) string {
	t.Helper()
	var b bytes.Buffer
	if err := fileio.WriteNPYFloat32(&b, rows, cols, data); err != nil {
		t.Fatal(err)
	}
	return testutil.WriteFile(t, dir, name, b.String())
}

// qvsCmd is `qvs args...` for the commands whose run functions take a
// command line's worth of options here (score, select, as suggest,
// bayesopt suggest, graph), run directly: global flags before the command are
// moved after it. It returns the exit code qvs would give, stdout, and
// the error's message followed by stderr.
func qvsCmd(t *testing.T, args ...string) (code int, stdout, msg string) {
	t.Helper()
	var globals []string
	for len(args) > 1 && strings.HasPrefix(args[0], "--") {
		globals, args = append(globals, args[0], args[1]), args[2:]
	}
	switch {
	case len(args) > 0 && (args[0] == "score" || args[0] == "select"):
		return itemsCmd(t, append(args, globals...)...)
	case len(args) > 1 && args[0] == "as" && args[1] == "suggest":
		return asSuggestCmd(t, append(args[2:], globals...)...)
	case len(args) > 1 && args[0] == "bayesopt" && args[1] == "suggest":
		return boSuggestCmd(t, append(args[2:], globals...)...)
	case len(args) > 0 && args[0] == "graph":
		return graphCmd(t, append(args[1:], globals...)...)
	}
	t.Fatalf("qvsCmd: %q", args)
	return 0, "", ""
}

// flagNumber is the number value v of flag --f, failing the test when it
// is none.
func flagNumber(t *testing.T, f, v string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("--%s %s: %v", f, v, err)
	}
	return x
}

// flagInt is the integer value v of flag --f, failing the test when it is
// none.
func flagInt(t *testing.T, f, v string) int {
	t.Helper()
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("--%s %s: %v", f, v, err)
	}
	return n
}

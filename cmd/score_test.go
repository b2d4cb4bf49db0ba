package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

func runQVS(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

// TestScoreEndToEnd: the binary's path for score (the run itself is
// tested in internal/cli): the README's command prints the table.
func TestScoreEndToEnd(t *testing.T) {
	dir := t.TempDir()
	k := testutil.WriteFile(t, dir, "K.csv", "a,b,c\n"+testutil.Kernel3)
	if code, out, _ := runQVS(t, "score", "--kernel", k); code != 0 || !strings.Contains(out, "2.157300") {
		t.Errorf("table: %d %q", code, out)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	good := testutil.WriteFile(t, dir, "K.csv", testutil.Kernel3)
	testutil.CheckBadInput(t, runArgs(t), []badInputCase{
		{Name: "q < 0", In: []string{"score", "--kernel", good, "--q", "-1"}, Code: 2, Want: "--q"},
		{Name: "k missing", In: []string{"select", "--kernel", good}, Code: 2, Want: "--k"},
		{Name: "missing file", In: []string{"score", "--kernel", filepath.Join(dir, "nope.csv")}, Code: 1, Want: "nope.csv"},
		{Name: "unknown flag", In: []string{"score", "--bogus"}, Code: 2, Want: "unknown flag"},
		{Name: "bad format", In: []string{"score", "--kernel", good, "--format", "xml"}, Code: 2, Want: "--format"},
		{Name: "as suggest bad format", In: []string{"as", "suggest", "--format", "xml"}, Code: 2, Want: "--format"},
	})
}

// TestNItems: counts in messages agree with their number.
func TestNItems(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{{0, "item", "0 items"}, {1, "item", "1 item"}, {2, "item", "2 items"}, {1, "query", "1 query"},
		{3, "query", "3 queries"}, {2, "quality", "2 qualities"}, {2, "key", "2 keys"}, {4, "id", "4 ids"}} {
		if got := nItems(c.n, c.noun); got != c.want {
			t.Errorf("nItems(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

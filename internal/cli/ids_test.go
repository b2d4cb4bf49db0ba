package cli

import (
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// TestJSONRefusesInvalidUTF8IDs: two ids that differ only in invalid
// UTF-8 bytes used to come out of --format json as the same string (each
// bad byte U+FFFD), so neither could be fed back; now --format json
// refuses them naming row and column, stdout empty, and csv keeps them.
func TestJSONRefusesInvalidUTF8IDs(t *testing.T) {
	dir := t.TempDir()
	emb := testutil.WriteFile(t, dir, "emb.csv", "id,e1,e2\nm\xe9,1,0\nm\xe8,0,1\nok,1,1\n")
	code, out, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = emb
		o.Items.IDColumn = "id"
		o.K = 3
		o.Format.Value = FormatJSON
	}))
	if code != ExitRuntime || out != "" || !strings.Contains(stderr, "not valid UTF-8") || !strings.Contains(stderr, `column "id"`) {
		t.Errorf("json: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = emb
		o.Items.IDColumn = "id"
		o.K = 3
		o.Format.Value = FormatCSV
		o.RawIDs = true
	}))
	if code != 0 || !strings.Contains(out, "m\xe9") || !strings.Contains(out, "m\xe8") {
		t.Errorf("csv: exit %d, %q, %s", code, out, stderr)
	}
}

// TestTableQuotesUnprintableIDs: the aligned table shows an id holding a
// terminal escape sequence or a newline Go-quoted (it reached the terminal
// raw and broke the table); csv keeps it exact.
func TestTableQuotesUnprintableIDs(t *testing.T) {
	dir := t.TempDir()
	emb := testutil.WriteFile(t, dir, "emb.csv", "id,e1,e2\n\"red\x1b[31m\",1,0\n\"two\nlines\",0,1\nplain,1,1\n")
	code, out, stderr := exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = emb
		o.Items.IDColumn = "id"
		o.K = 3
	}))
	if code != 0 || strings.ContainsAny(out, "\x1b") || !strings.Contains(out, `"red\x1b[31m"`) || !strings.Contains(out, `"two\nlines"`) || strings.Count(out, "\n") != 4 {
		t.Errorf("table: exit %d, %q, %s", code, out, stderr)
	}
	code, out, _ = exitOf(t, RunSelect, selectOpts(func(o *SelectOptions) {
		o.Items.Embeddings = emb
		o.Items.IDColumn = "id"
		o.K = 3
		o.Format.Value = FormatCSV
	}))
	if code != 0 || !strings.Contains(out, "red\x1b[31m") {
		t.Errorf("csv: %q", out)
	}
}

package cmd

import (
	"strings"
	"testing"
)

// TestASSuggestScoredIgnoresGraphK: the pool's --k (its kNN graph's
// neighbours) does not apply to scores, whose GP reads the features only:
// a 6-row pool with the default k of 20 takes scores, while 0/1 labels
// (the kNN model) still refuse it.
func TestASSuggestScoredIgnoresGraphK(t *testing.T) {
	dir := t.TempDir()
	pool := asWriteFile(t, dir, "pool.csv", "id,x,y\na,0,0\nb,1,0\nc,0,1\nd,1,1\ne,2,2\nf,3,1\n")
	scores := asWriteFile(t, dir, "scores.csv", "id,value\na,1.0\nb,2.0\nc,0.5\n")
	code, out, stderr := runQVS(t, "as", "suggest", "--pool", pool, "--id-column", "id", "--observed", scores, "--batch", "2", "--format", "csv")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 3 {
		t.Errorf("scores on a 6-row pool: exit %d, %q, %q", code, out, stderr)
	}
	labels := asWriteFile(t, dir, "labels.csv", "id,label\na,1\nb,0\n")
	if code, out, stderr := runQVS(t, "as", "suggest", "--pool", pool, "--id-column", "id", "--observed", labels, "--batch", "2"); code == 0 || out != "" || !strings.Contains(stderr, "k") || !strings.Contains(stderr, "6 rows") {
		t.Errorf("labels on a 6-row pool with k 20: exit %d, %q, %q", code, out, stderr)
	}
}

package search

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// FuzzParseObserved: an observed-label CSV never panics the reader; what it
// accepts names each pool item at most once and only items of the pool.
func FuzzParseObserved(f *testing.F) {
	for _, s := range []string{"index,label\n3,1\n4,0\n", "label,id\n1,2\n", "Index,Label,note\n0,true,x\n9,false,y\n", "id,label\n3,1\n3,0\n", "index,label\n-1,1\n"} {
		f.Add([]byte(s))
	}
	pool := linePool(rand.New(rand.NewPCG(1, 1)), 10, 3)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "obs.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		obs, err := ParseObserved(p, pool)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, o := range obs {
			if o.Index < 0 || o.Index >= pool.Len() || seen[o.Index] {
				t.Fatalf("observation %+v accepted (pool of %d, seen %v)", o, pool.Len(), seen[o.Index])
			}
			seen[o.Index] = true
		}
	})
}

// FuzzParsePending: a pending-items CSV never panics the reader; what it
// accepts names each pool item at most once, only items of the pool and
// none of the labelled ones.
func FuzzParsePending(f *testing.F) {
	for _, s := range []string{"index\n3\n4\n", "id\n2\n", "Index,note\n0,x\n9,y\n", "id\n3\n3\n", "index\n-1\n", "index\n5\n"} {
		f.Add([]byte(s))
	}
	pool := linePool(rand.New(rand.NewPCG(1, 1)), 10, 3)
	observed := []Observation{{Index: 5, Positive: true}}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "pending.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		pending, err := ParsePending(p, pool, observed, "obs.csv")
		if err != nil {
			return
		}
		seen := map[int]bool{5: true}
		for _, x := range pending {
			if x < 0 || x >= pool.Len() || seen[x] {
				t.Fatalf("pending item %d accepted (pool of %d, seen or labelled %v)", x, pool.Len(), seen[x])
			}
			seen[x] = true
		}
	})
}

// FuzzResumeRecords: the record file of an interrupted active-search run
// (runs/KEY.csv, rows without the header) never panics parseRecords or the
// replay that resumes from it; the seed is a real run's records.
func FuzzResumeRecords(f *testing.F) {
	sp, labels := testRun(f, 5, 60)
	start, _ := startPositive(labels, 1, 0)
	cfg := runConfig{Space: sp, Policy: oneStep{}, Start: start, Budget: 10, Batch: 5, Key: "k"}
	full, err := Run(context.Background(), cfg, nil, func([]query) error { return nil })
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, q := range full[:8] {
		w.Write(q.Record(nil))
	}
	w.Flush()
	f.Add(b.Bytes())
	f.Add([]byte("0,0,3,3,1,,0\n1,1,60,60,0,0.5,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return
		}
		prior, err := parseRecords("k.csv", rows)
		if err != nil {
			return
		}
		all, err := Run(context.Background(), cfg, prior, func([]query) error { return nil })
		if err == nil && len(all) != len(full) {
			t.Fatalf("resumed run has %d queries, an uninterrupted one %d", len(all), len(full))
		}
	})
}

// FuzzCompleteBatches: any batch numbering of resume records, batch size,
// budget and pool size gives an error or a count of records that form
// whole batches of the sizes Run makes (a prefix of the records), never a
// panic.
func FuzzCompleteBatches(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 1, 2, 2}, 4, 13, 300)
	f.Add([]byte{0, 1, 1, 2}, 2, 3, 3)
	f.Add([]byte{1}, 1, 1, 2)
	f.Fuzz(func(t *testing.T, batches []byte, batch, budget, n int) {
		prior := make([]query, len(batches))
		for i, b := range batches {
			prior[i] = query{Iteration: i, Batch: int(b)}
		}
		keep, err := completeBatches("f.csv", prior, batch, budget, n)
		if err != nil {
			var re *fileio.ReadError
			if !errors.As(err, &re) || re.File != "f.csv" || re.Line < 2 || re.Line > len(prior)+1 {
				t.Fatalf("error does not name the file and a line of a record: %v", err)
			}
			return
		}
		if keep < 0 || keep > len(prior) || (len(prior) > 0 && keep == 0) {
			t.Fatalf("keep %d of %d", keep, len(prior))
		}
		done := 0
		for k := 1; k < keep; {
			b := prior[k].Batch
			end := k
			for end < keep && prior[end].Batch == b {
				end++
			}
			if want := min(batch, budget-done, n-1-done); end-k != want {
				t.Fatalf("kept batch %d of %d queries, Run makes %d", b, end-k, want)
			}
			done += end - k
			k = end
		}
	})
}

// FuzzParseScores: a scores CSV never panics the reader; what it accepts
// names each pool item at most once, only items of the pool, and every
// value is finite or NaN (a failed measurement).
func FuzzParseScores(f *testing.F) {
	for _, s := range []string{"index,value\n3,1.5\n4,-2\n", "id,score\n2,nan\n", "Index,Value,status\n0,1,ok\n9,,failed\n", "id,value\n3,1\n3,2\n", "index,value\n1,inf\n", "index,value,label\n1,2,1\n"} {
		f.Add([]byte(s))
	}
	pool := linePool(rand.New(rand.NewPCG(1, 1)), 10, 3)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "scores.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = ObservedHasScores(p)
		sc, err := ParseScores(p, pool)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, s := range sc {
			if s.Index < 0 || s.Index >= pool.Len() || seen[s.Index] || math.IsInf(s.Value, 0) {
				t.Fatalf("score %+v accepted (pool of %d, seen %v)", s, pool.Len(), seen[s.Index])
			}
			seen[s.Index] = true
		}
	})
}

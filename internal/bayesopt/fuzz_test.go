package bayesopt

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"
)

// FuzzParseRecords: the record file of an interrupted continuous BayesOpt
// run (rows without the header) never panics the resume parser; what it
// accepts has d coordinates per row, non-decreasing iterations, and writes
// back (FormatRecord) to rows that parse to the same evaluations.
func FuzzParseRecords(f *testing.F) {
	f.Add([]byte("0,-1,0.25,0.5,1.5,0.01\n1,0,0.3,0.125,2,0.02\n"), 2)
	f.Add([]byte("1,0,0.1,NaN,0\n0,0,0.1,1,0\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, d int) {
		if d < 0 || d > 64 {
			return
		}
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return
		}
		evs, err := ParseRecords(rows, d)
		if err != nil {
			return
		}
		back := make([][]string, len(evs))
		for i, e := range evs {
			if len(e.X) != d || (i > 0 && e.Iteration < evs[i-1].Iteration) {
				t.Fatalf("evaluation %d: %+v", i, e)
			}
			back[i] = FormatRecord(e)
		}
		again, err := ParseRecords(back, d)
		if err != nil || len(again) != len(evs) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range evs {
			if !slices.Equal(again[i].X, evs[i].X) || again[i].Value != evs[i].Value || again[i].Iteration != evs[i].Iteration {
				t.Fatalf("round trip changed %+v into %+v", evs[i], again[i])
			}
		}
	})
}

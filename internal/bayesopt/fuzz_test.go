package bayesopt

import (
	"bytes"
	"encoding/csv"
	"errors"
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// FuzzParseRecords: the record file of an interrupted continuous BayesOpt
// run (rows without the header) never panics the resume parser; what it
// accepts has d coordinates per row, non-decreasing iterations, and writes
// back (FormatRecord) to rows that parse to the same evaluations.
func FuzzParseRecords(f *testing.F) {
	f.Add([]byte("0,-1,0.25,0.5,1.5,0.01\n1,0,0.3,0.125,2,0.02\n"), 2)
	f.Add([]byte("1,0,0.1,NaN,0\n0,0,0.1,1,0\n"), 1)
	f.Add([]byte("0,-1,0.25,failed,0.5\n1,0,0.5,nan,0\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, d int) {
		if d < 0 || d > 64 {
			return
		}
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return
		}
		evs, err := parseRecords(rows, d)
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
		again, err := parseRecords(back, d)
		if err != nil || len(again) != len(evs) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range evs {
			sameValue := again[i].Value == evs[i].Value || (again[i].Failed && evs[i].Failed)
			if !slices.Equal(again[i].X, evs[i].X) || !sameValue || again[i].Failed != evs[i].Failed || again[i].Iteration != evs[i].Iteration {
				t.Fatalf("round trip changed %+v into %+v", evs[i], again[i])
			}
		}
	})
}

// FuzzCompleteIterations: any iteration numbering of resume records and
// any init, batch and budget give an error naming the file and line (a
// record's line for settings Optimize accepts), or a
// count of records forming whole iterations of the sizes Optimize makes.
func FuzzCompleteIterations(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 1, 2}, 2, 3, 8)
	f.Add([]byte{1, 1}, 1, 1, 1)
	f.Fuzz(func(t *testing.T, its []byte, init, batch, budget int) {
		prior := make([]Evaluation, len(its))
		for i, it := range its {
			prior[i] = Evaluation{Iteration: int(it)}
		}
		s := Settings{Init: init, Batch: batch, Budget: budget}
		keep, err := completeIterations("f.csv", prior, s)
		if err != nil {
			// The line is a record's when the settings are ones Optimize
			// accepts (Plan refuses the others before any record is read).
			valid := init >= 1 && batch >= 1 && budget >= init
			var re *fileio.ReadError
			if !errors.As(err, &re) || re.File != "f.csv" || valid && (re.Line < 2 || re.Line > len(prior)+1) {
				t.Fatalf("error does not name the file and a line of a record: %v", err)
			}
			return
		}
		if keep < 0 || keep > len(prior) {
			t.Fatalf("keep %d of %d", keep, len(prior))
		}
		done := 0
		for k := 0; k < keep; {
			end := k
			for end < keep && prior[end].Iteration == prior[k].Iteration {
				end++
			}
			want := init
			if prior[k].Iteration > 0 {
				want = min(batch, budget-done)
			}
			if end-k != want {
				t.Fatalf("kept iteration %d of %d evaluations, Optimize makes %d", prior[k].Iteration, end-k, want)
			}
			done += end - k
			k = end
		}
	})
}

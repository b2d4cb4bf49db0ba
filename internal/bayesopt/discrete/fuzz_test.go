package discrete

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// FuzzParseRecords: the record file of an interrupted discrete BayesOpt run
// (rows iteration,pick,index,id,value without the header) never panics the
// resume parser; what it accepts is consecutive batches of items of the
// candidate set.
func FuzzParseRecords(f *testing.F) {
	p := toyProblem(f, 12, 1)
	f.Add([]byte("0,0,3,m3," + formatFloat(p.Set.Objective[3]) + "\n0,1,5,m5," + formatFloat(p.Set.Objective[5]) + "\n1,0,0,m0," + formatFloat(p.Set.Objective[0]) + "\n"))
	f.Add([]byte("0,0,12,m12,1\n"))
	f.Add([]byte("1,0,3,m3,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			return
		}
		iters, err := p.parseRecords("k", rows)
		if err != nil {
			return
		}
		n := 0
		for _, b := range iters {
			if len(b) == 0 {
				t.Fatalf("empty batch in %v", iters)
			}
			for _, i := range b {
				if i < 0 || i >= p.Set.Len() {
					t.Fatalf("item %d outside the set of %d", i, p.Set.Len())
				}
			}
			n += len(b)
		}
		if n != len(rows) {
			t.Fatalf("%d rows became %d picks", len(rows), n)
		}
	})
}

package space

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// TestMixedRecords: a mixed space's record cells hold the choice's text and
// empty cells for inactive parameters, and read back to the engine point
// bit for bit (the log parameter's coordinate included), for snapped
// random points of every kernel.
func TestMixedRecords(t *testing.T) {
	s := mustParse(t, svcSpace)
	lo, hi := s.Bounds()
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for i := 0; i < 300; i++ {
		x := make([]float64, s.Dim())
		for j := range x {
			x[j] = lo[j] + rng.Float64()*(hi[j]-lo[j])
		}
		s.Snap(x)
		cells := s.recordX(x)
		kernel := cells[0]
		seen[kernel] = true
		// Independent expectation: degree only for poly, coef0 for poly
		// and sigmoid (svcSpace's when:), C always.
		wantEmpty := []bool{false, kernel != "poly", kernel == "rbf", false}
		for j, e := range wantEmpty {
			if (cells[j] == "") != e {
				t.Fatalf("cells %v of %v: cell %d empty %v, want %v", cells, x, j, cells[j] == "", e)
			}
		}
		if kernel != []string{"rbf", "poly", "sigmoid"}[int(x[0])] {
			t.Fatalf("cells %v of %v: kernel is not the choice's text", cells, x)
		}
		back, col, why := s.parseRecordX(cells)
		if back == nil || !slicesEqual(back, x) {
			t.Fatalf("%v -> %v -> %v (column %d: %s)", x, cells, back, col, why)
		}
	}
	if len(seen) != 3 {
		t.Errorf("kernels drawn %v", seen)
	}
	for _, c := range []struct {
		cells []string
		col   int
		want  string
	}{
		{[]string{"linear", "", "", "0"}, 0, `kernel: "linear" is not one of the choices rbf, poly, sigmoid`},
		{[]string{"1", "", "", "0"}, 0, `kernel: "1" is not one of the choices`}, // an index is no longer read
		{[]string{"", "", "", "0"}, 0, "kernel is empty, expected one of the choices rbf, poly, sigmoid"},
		{[]string{"poly", "", "0.5", "0"}, 1, "degree is empty, expected a number: it applies when kernel is poly (here poly)"},
		{[]string{"rbf", "3", "", "0"}, 1, "degree must be empty: it applies only when kernel is poly (here rbf)"},
		{[]string{"rbf", "", "", ""}, 3, "C is empty, expected a number"},
		{[]string{"rbf", "", "", "x"}, 3, `C: "x" is not a number`},
		{[]string{"poly", "3.5", "0.5", "0"}, 1, `degree: "3.5" is not the engine coordinate of an integer`},
		{[]string{"rbf", "", "", "9"}, 3, `C: "9" is outside the engine bounds`},
	} {
		x, col, why := s.parseRecordX(c.cells)
		if x != nil || col != c.col || !strings.Contains(why, c.want) {
			t.Errorf("%q: %v, column %d, %q; want column %d, %q", c.cells, x, col, why, c.col, c.want)
		}
	}
}

// TestMixedRecordsFile: a run's records read by Decode (suggest --observed
// runs/KEY.csv) and by the campaign's reader (bayesopt.ParseRecordsWith
// through the command's RecordCoder) give the same engine points; an
// unknown choice is an error naming the file, line and column.
func TestMixedRecordsFile(t *testing.T) {
	s := mustParse(t, svcSpace)
	const head = "iteration,region,x0,x1,x2,x3,value,seconds\n"
	rows := "0,-1,poly,3,0.25,1.5,-2,0.1\n0,-1,rbf,,,-0.5,failed,0.1\n1,0,sigmoid,,0.75,2,-1,0.1\n"
	obs, err := decode("r.csv", []byte(head+rows), s, true, true)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 3, 0.25, 1.5}, {0, 4, 0.5, -0.5}, {2, 4, 0.75, 2}} // inactive: neutral
	for i, o := range obs {
		if !slicesEqual(o.X, want[i]) {
			t.Errorf("row %d: X %v, want %v", i+1, o.X, want[i])
		}
	}
	if obs[0].Value != -2 || !obs[1].Failed || !math.IsNaN(obs[1].Values[1]) || obs[2].Values[0] != 2 {
		t.Errorf("observations %+v", obs)
	}
	var coder bayesopt.RecordCoder = (&Command{Space: s}).Objective().(bayesopt.RecordCoder)
	var recs [][]string
	for _, r := range strings.Split(strings.TrimSpace(rows), "\n") {
		recs = append(recs, strings.Split(r, ","))
	}
	evs, err := bayesopt.ParseRecordsWith(recs, s.Dim(), coder)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if !slicesEqual(e.X, want[i]) || strings.Join(bayesopt.FormatRecordWith(e, coder), ",") != strings.Join(recs[i], ",") {
			t.Errorf("row %d: X %v, written again %v", i+1, e.X, bayesopt.FormatRecordWith(e, coder))
		}
	}
	bad := strings.Replace(rows, "sigmoid", "linear", 1)
	if _, err := decode("r.csv", []byte(head+bad), s, true, false); err == nil || !strings.Contains(err.Error(), `r.csv: line 4, column "x0": kernel: "linear" is not one of the choices`) {
		t.Errorf("Decode: unknown choice: %v", err)
	}
	recs[2][2] = "linear"
	if _, err := bayesopt.ParseRecordsWith(recs, s.Dim(), coder); err == nil || !strings.Contains(err.Error(), `line 4, column "x0": kernel: "linear" is not one of the choices`) {
		t.Errorf("ParseRecordsWith: unknown choice: %v", err)
	}
}

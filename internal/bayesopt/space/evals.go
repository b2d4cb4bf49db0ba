package space

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// Observation is one row of an evaluation file.
type Observation struct {
	Line   int       // 1-based line in the file (the header is line 1)
	Values []float64 // parameter values, in the space's order
	Value  float64   // the objective as maximised (negated with minimize)
	// X is the engine point as read from a run's records (isRecords), bit
	// for bit; nil for a user's file, whose Values map to it by Space.Engine.
	X []float64
	// Iteration and Region are the optional columns of the same names
	// (-1 when the file has no such column).
	Iteration, Region int
	HasRegion         bool
	// Failed marks a failed experiment (Value is NaN): see ReadObservations.
	Failed bool
}

// maxFileBytes bounds an evaluation or pending file read into memory.
const maxFileBytes = 1 << 30

// ReadObservations reads an evaluation file: a CSV header naming every
// parameter and value (other columns are ignored, except the optional
// iteration and region columns that `qvs bayesopt` records and suggest
// prints), then one row per finished experiment. With minimize the value is
// negated, so the engine always maximises. A missing column, a short row, a
// cell that is not a finite number, a value outside the space or not an
// integer for type: int, and a bad iteration or region are errors naming
// the file, line and column.
//
// A failed experiment (Optuna's FAIL state) is a row whose value cell is
// empty, "nan" or "failed" (any case; bayesopt.IsFailedCell), or whose
// optional status column says "failed" or "fail" (any case;
// bayesopt.IsFailedStatus: other statuses, such as "ok" or "complete",
// mean nothing here and the value is read as usual). A value of inf or
// -inf (any case) is a failed experiment too (isInfCell). Its parameters
// are checked like any row's; it gets Failed and a NaN Value.
//
// A file whose header is exactly a run's records header
// (bayesopt.RecordHeader: iteration,region,x0..x{d-1},value,seconds) is
// read as the records of a `qvs bayesopt --space` run: column xj is
// parameter j in engine coordinates (the natural log for scale: log; for a
// mixed space a categorical's choice text and an empty cell for an
// inactive parameter, as mixed.go's Records), kept bit for bit in
// Observation.X, and value is already maximised, so minimize is not
// applied. (A space whose own names are x0..x{d-1} reads such a file
// as records too; for its linear parameters both readings agree.)
func ReadObservations(path string, s *Space, minimize bool) ([]Observation, error) {
	return read(path, s, true, minimize)
}

// ReadPending reads a pending file: the same format without the value
// column (a value column, if present, is ignored).
func ReadPending(path string, s *Space) ([]Observation, error) {
	return read(path, s, false, false)
}

func read(path string, s *Space, withValue, minimize bool) ([]Observation, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, larger than the %d this reader accepts", path, st.Size(), maxFileBytes)
	}
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return decode(path, b, s, withValue, minimize)
}

// decode parses the contents b of an evaluation file (withValue) or a
// pending file; path names it in errors.
func decode(path string, b []byte, s *Space, withValue, minimize bool) ([]Observation, error) {
	cr := fileio.NewCSVReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: no header: expected a CSV header with columns %s", path, strings.Join(expected(s, withValue), ","))
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w; expected a CSV header with columns %s", path, err, strings.Join(expected(s, withValue), ","))
	}
	col := map[string]int{}
	for j, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup && h != "" {
			return nil, fmt.Errorf("%s: line 1: column %q appears twice", path, h)
		}
		col[h] = j
	}
	records := withValue && isRecords(head, s.Dim())
	if records {
		minimize = false // records hold maximised values
	}
	idx := make([]int, s.Dim())
	for j, name := range s.Names() {
		if records {
			name = head[2+j]
		}
		c, ok := col[name]
		if !ok {
			return nil, fmt.Errorf("%s: line 1: no column %q (parameter %d of %s); expected columns %s%s", path, name, j+1, s.Path, strings.Join(expected(s, withValue), ","), fileio.SeparatorHint(head...))
		}
		idx[j] = c
	}
	valCol, itCol, regCol, statusCol := -1, -1, -1, -1
	if withValue {
		c, ok := col["value"]
		if !ok {
			return nil, fmt.Errorf("%s: line 1: no column \"value\"; expected columns %s", path, strings.Join(expected(s, true), ","))
		}
		valCol = c
	}
	if c, ok := col["iteration"]; ok {
		itCol = c
	}
	if c, ok := col["region"]; ok {
		regCol = c
	}
	if c, ok := col["status"]; ok && withValue {
		statusCol = c
	}
	var out []Observation
	prevIt := 0
	for {
		rec, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(head) {
			return nil, fileio.LineErrorf(path, line, "%d cells, expected %d like the header", len(rec), len(head))
		}
		o := Observation{Line: line, Values: make([]float64, s.Dim()), Iteration: -1, Region: -1}
		if records {
			o.X = make([]float64, s.Dim())
		}
		cols := idx // the cells read one by one below
		if records && s.mixed {
			cells := make([]string, len(idx))
			for j, c := range idx {
				cells[j] = rec[c]
			}
			x, j, why := s.parseRecordX(cells)
			if x == nil {
				return nil, fileio.FieldErrorf(path, line, head[idx[j]], "%s", why)
			}
			o.X, cols = x, nil
		}
		for j, c := range cols {
			cell := strings.TrimSpace(rec[c])
			if !records && s.mixed {
				if cell == "" && len(s.parents[j]) > 0 {
					o.Values[j] = math.NaN() // inactive: checkActive below
					continue
				}
				if s.Parameters[j].IsCategorical() {
					k := s.choiceIndex(j, cell)
					if k < 0 {
						what := "is not one of the choices"
						if cell == "" {
							what = "is missing; expected one of the choices"
						}
						return nil, fileio.FieldErrorf(path, line, s.Parameters[j].Name, "%q %s %s", cell, what, strings.Join(s.Parameters[j].Choices, ", "))
					}
					o.Values[j] = float64(k)
					continue
				}
			}
			v, err := strconv.ParseFloat(cell, 64)
			why := ""
			switch {
			case err != nil && cell == "":
				why = "is missing"
			case err != nil:
				why = "is not a number" + fileio.SeparatorHint(cell)
			case records:
				why = s.CheckEngine(j, v)
			default:
				why = s.Check(j, v)
			}
			if why != "" {
				if records {
					return nil, fileio.FieldErrorf(path, line, head[c], "parameter %s: %q %s", s.Parameters[j].Name, cell, why)
				}
				return nil, fileio.FieldErrorf(path, line, s.Parameters[j].Name, "%q %s", cell, why)
			}
			if records {
				o.X[j], v = v, s.value(j, v)
			}
			o.Values[j] = v
		}
		if records && s.mixed {
			o.Values = s.Values(o.X)
		} else if s.mixed {
			if j, why := s.checkActive(o.Values); j >= 0 {
				return nil, fileio.FieldErrorf(path, line, s.Parameters[j].Name, "%s", why)
			}
		}
		if statusCol >= 0 && bayesopt.IsFailedStatus(rec[statusCol]) {
			o.Failed, o.Value = true, math.NaN()
		}
		if withValue && !o.Failed && (bayesopt.IsFailedCell(rec[valCol]) || isInfCell(rec[valCol])) {
			o.Failed, o.Value = true, math.NaN()
		}
		if withValue && !o.Failed {
			cell := strings.TrimSpace(rec[valCol])
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fileio.FieldErrorf(path, line, "value", "%s is not a finite number%s", fileio.Excerpt(cell), fileio.SeparatorHint(cell))
			}
			if err := bayesopt.CheckObjective(v); err != nil {
				return nil, fileio.FieldErrorf(path, line, "value", "%w", err)
			}
			if minimize {
				v = -v
			}
			o.Value = v
		}
		if itCol >= 0 {
			cell := strings.TrimSpace(rec[itCol])
			it, err := strconv.Atoi(cell)
			if err != nil || it < prevIt {
				return nil, fileio.FieldErrorf(path, line, "iteration", "%q: expected an integer >= %d (iterations never decrease)", cell, prevIt)
			}
			o.Iteration, prevIt = it, it
		}
		if regCol >= 0 {
			cell := strings.TrimSpace(rec[regCol])
			r, err := strconv.Atoi(cell)
			if err != nil || r < -1 {
				return nil, fileio.FieldErrorf(path, line, "region", "%q: expected an integer >= -1", cell)
			}
			o.Region, o.HasRegion = r, true
		}
		out = append(out, o)
	}
	return out, nil
}

// isInfCell reports whether a value cell is an infinity (inf, -inf,
// +Infinity, any case): Optuna records such a trial; qvs reads it as a
// failed experiment, since no model can use the value.
func isInfCell(cell string) bool {
	v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	return err == nil && math.IsInf(v, 0)
}

// CountFailed counts the failed observations.
func CountFailed(obs []Observation) int {
	n := 0
	for _, o := range obs {
		if o.Failed {
			n++
		}
	}
	return n
}

// isRecords reports whether head is the header of a d-parameter run's
// records (bayesopt.RecordHeader(d)), up to surrounding spaces and a
// UTF-8 byte-order mark.
func isRecords(head []string, d int) bool {
	want := bayesopt.RecordHeader(d)
	if len(head) != len(want) {
		return false
	}
	for j, h := range head {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) != want[j] {
			return false
		}
	}
	return true
}

func expected(s *Space, withValue bool) []string {
	out := s.Names()
	if withValue {
		out = append(out, "value")
	}
	return out
}

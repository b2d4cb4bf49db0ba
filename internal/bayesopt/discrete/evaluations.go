package discrete

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// ReadEvaluations reads a history of finished queries from the CSV file at
// path; see parseEvaluations.
func ReadEvaluations(path string, ids []string) ([]Evaluation, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseEvaluations(f, path, ids)
}

// parseEvaluations reads a history of finished queries: CSV with a header
// naming an item column, `index` (0-based kernel row) or `id` (an entry of
// ids, the names of the n candidates in kernel order), and a `value` column
// (the objective, maximised); header names are case-insensitive, other
// columns are ignored except status. With both index and id, index is the
// key and id must name the same item. Rows are returned in file order,
// which is the order the engine is told. A header alone is an empty
// history.
//
// A failed experiment (Optuna's FAIL state) is a row whose value cell is
// empty, "nan" or "failed" (any case; bayesopt.IsFailedCell), or whose
// optional status column says "failed" or "fail" (bayesopt.IsFailedStatus,
// the rule of the continuous space.ReadObservations): it gets Failed and a
// NaN Value. An item may be listed again after rows of it that all failed
// (a retry), never after a successful row.
//
// Errors name the file (name), the line and the column: a missing or
// unknown item, a value that is not a finite number (and not a failure), an
// item listed again after a success, a row with another number of cells
// than the header.
func parseEvaluations(r io.Reader, name string, ids []string) ([]Evaluation, error) {
	n := len(ids)
	cr := fileio.NewCSVReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file; expected a header index,value or id,value", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for j, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if h == "" {
			continue
		}
		if _, dup := col[h]; dup && (h == "index" || h == "id" || h == "value") {
			return nil, fmt.Errorf("%s: line 1: column %q appears twice in the header", name, h)
		}
		col[h] = j
	}
	idxCol, hasIdx := col["index"]
	idCol, hasID := col["id"]
	valCol, hasVal := col["value"]
	statusCol, hasStatus := col["status"]
	if !hasVal || !(hasIdx || hasID) {
		return nil, fmt.Errorf("%s: line 1: header %q: expected columns index,value or id,value", name, strings.Join(header, ","))
	}
	var byID map[string]int
	if hasID {
		byID = make(map[string]int, n)
		for i, id := range ids {
			byID[id] = i
		}
	}
	var out []Evaluation
	okLine := map[int]int{} // line of each item's successful row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, fileio.LineErrorf(name, line, "%d cells, expected %d like the header", len(rec), len(header))
		}
		i := -1
		if hasIdx {
			cell := strings.TrimSpace(rec[idxCol])
			k, err := strconv.Atoi(cell)
			if err != nil || k < 0 || k >= n {
				return nil, fileio.FieldErrorf(name, line, "index", "%q is not an item index in [0, %d)", cell, n)
			}
			i = k
		}
		if hasID {
			cell := rec[idCol]
			if i >= 0 {
				// The index is the key; the id must name the same item.
				if !fileio.IDMatches(cell, ids[i]) {
					return nil, fileio.LineErrorf(name, line, "index %d is item %q but column \"id\" says %q", i, ids[i], cell)
				}
			} else {
				k, _, ok, amb := fileio.LookupID(byID, cell)
				switch {
				case amb != nil:
					return nil, fileio.FieldErrorf(name, line, "id", "%w", amb)
				case !ok:
					return nil, fileio.FieldErrorf(name, line, "id", "%q is not the id of a candidate", cell)
				}
				i = k
			}
		}
		if l, dup := okLine[i]; dup {
			return nil, fileio.LineErrorf(name, line, "item %d (id %q) was already evaluated on line %d; list each item once (or again only after failed rows)", i, ids[i], l)
		}
		if (hasStatus && bayesopt.IsFailedStatus(rec[statusCol])) || bayesopt.IsFailedCell(rec[valCol]) {
			out = append(out, Evaluation{Index: i, Value: math.NaN(), Failed: true})
			continue
		}
		cell := strings.TrimSpace(rec[valCol])
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fileio.FieldErrorf(name, line, "value", "%q is not a finite number%s", cell, fileio.SeparatorHint(cell))
		}
		if err := bayesopt.CheckObjective(v); err != nil {
			return nil, fileio.FieldErrorf(name, line, "value", "%w", err)
		}
		okLine[i] = line
		out = append(out, Evaluation{Index: i, Value: v})
	}
}

// ReadIDs reads the names of the n candidates of the kernel file kernel
// from the file at path, one per kernel row in kernel order (n unique,
// non-empty names; fileio.ReadStrings); without a file (path "") the
// candidates are named by their indices, "0" to "n-1".
func ReadIDs(path string, n int, kernel string) ([]string, error) {
	if path == "" {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = strconv.Itoa(i)
		}
		return ids, nil
	}
	ids, err := fileio.ReadStrings(path)
	if err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, fmt.Errorf("%s: %d ids but the kernel %s is %d x %d: give one id per kernel row, in kernel order", path, len(ids), kernel, n, n)
	}
	if err := fileio.CheckUniqueIDs(path, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// Solutions are the final m solutions of a history over a candidate set
// with kernel K (`qvs bayesopt solutions --kernel`): the band rule
// (bayesopt.SelectBand with bayesopt.SolutionBandFraction) over the
// successful evaluations, ranked by sign x value (sign -1: the values are
// to be minimised) with similarity K between their items, in pick order;
// vs is the VS of order 1 of the chosen set under K, failed the number of
// failed evaluations (never chosen).
func Solutions(K *mat.SymDense, all []Evaluation, m int, q vendi.Order, sign float64) (chosen []Evaluation, vs float64, failed int, err error) {
	var evals []Evaluation
	for _, e := range all {
		if !e.Failed {
			evals = append(evals, e)
		}
	}
	vals := make([]float64, len(evals))
	for i, e := range evals {
		vals[i] = sign * e.Value
	}
	sim := func(a, b int) float64 { return K.At(evals[a].Index, evals[b].Index) }
	idx, err := bayesopt.SelectBand(vals, sim, m, q, bayesopt.SolutionBandFraction)
	if err != nil {
		return nil, 0, 0, err
	}
	if vs, err = bayesopt.SetVS(len(idx), func(a, b int) float64 { return sim(idx[a], idx[b]) }); err != nil {
		return nil, 0, 0, err
	}
	chosen = make([]Evaluation, len(idx))
	for r, i := range idx {
		chosen[r] = evals[i]
	}
	return chosen, vs, len(all) - len(evals), nil
}

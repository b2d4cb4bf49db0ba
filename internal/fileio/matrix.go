package fileio

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Table is a numeric table read from a file: Rows x Cols values in row-major
// order, the header if the file had one, and the file name for messages.
type Table struct {
	Path   string
	Header []string // nil when the file had no header row
	Rows   int
	Cols   int
	Data   []float64
}

// At returns the value at row i, column j.
func (t *Table) At(i, j int) float64 { return t.Data[i*t.Cols+j] }

// Dense returns the table as a gonum matrix sharing the data.
func (t *Table) Dense() *mat.Dense { return mat.NewDense(t.Rows, t.Cols, t.Data) }

// Column returns column j as a new slice.
func (t *Table) Column(j int) []float64 {
	out := make([]float64, t.Rows)
	for i := range out {
		out[i] = t.At(i, j)
	}
	return out
}

// ReadTable reads a numeric matrix from a .npy file (1-D arrays become one
// column) or from a CSV file: numbers separated by commas, with an optional
// header row (a first row in which some cell is not a number). Every value
// must be finite unless allowNonFinite; errors name the file, the 1-based line
// and column and what was expected. An empty file, ragged rows and non-numeric
// cells are errors.
func ReadTable(path string, allowNonFinite bool) (*Table, error) {
	var t *Table
	var err error
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		t, err = readNPY(path)
	} else {
		t, err = readCSV(path)
	}
	if err != nil {
		return nil, err
	}
	if !allowNonFinite {
		for k, v := range t.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: row %d, column %d: value %v is not a finite number", path, k/t.Cols+1, k%t.Cols+1, v)
			}
		}
	}
	return t, nil
}

// MatrixShape reads an array shape as a matrix: a 1-D array of n values is
// n x 1, a 2-D array is itself; any other rank is not a matrix (ok false).
func MatrixShape(shape []int) (rows, cols int, ok bool) {
	switch len(shape) {
	case 1:
		return shape[0], 1, true
	case 2:
		return shape[0], shape[1], true
	}
	return 0, 0, false
}

func readNPY(path string) (*Table, error) {
	a, err := ReadNPYFile(path)
	if err != nil {
		return nil, err
	}
	rows, cols, ok := MatrixShape(a.Shape)
	if !ok {
		return nil, fmt.Errorf("%s: expected a 1-D or 2-D array, got shape %v", path, a.Shape)
	}
	if rows == 0 || cols == 0 {
		return nil, fmt.Errorf("%s: array is empty (shape %v)", path, a.Shape)
	}
	return &Table{Path: path, Rows: rows, Cols: cols, Data: a.Data}, nil
}

func readCSV(path string) (*Table, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := NewCSVReader(f)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	t := &Table{Path: path}
	line := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line
		}
		vals := make([]float64, len(rec))
		bad := -1
		for j, cell := range rec {
			v, err := parseNumber(cell)
			if err != nil {
				bad = j
				break
			}
			vals[j] = v
		}
		if bad >= 0 {
			if t.Header == nil && t.Rows == 0 && line == 1 {
				t.Header = rec
				t.Cols = len(rec)
				continue
			}
			return nil, &ReadError{File: path, Line: line, Column: bad + 1, Err: fmt.Errorf("%s is not a number%s", Excerpt(rec[bad]), SeparatorHint(rec[bad]))}
		}
		if t.Cols == 0 {
			t.Cols = len(rec)
		} else if len(rec) != t.Cols {
			return nil, LineErrorf(path, line, "%d values, expected %d like the first row", len(rec), t.Cols)
		}
		t.Data = append(t.Data, vals...)
		t.Rows++
	}
	if t.Rows == 0 {
		return nil, fmt.Errorf("%s: no numeric rows (empty file?)", path)
	}
	return t, nil
}

// parseNumber parses a CSV cell as a float; "inf", "-inf" and "nan" (any case)
// are accepted so that ReadTable can reject them with a precise message.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty cell")
	}
	return strconv.ParseFloat(s, 64)
}

// ReadVector reads a vector: a .npy array with one dimension (or one column),
// or a CSV with one value per row (optional header). With a multi-column CSV it
// is an error.
func ReadVector(path string) ([]float64, error) {
	t, err := ReadTable(path, false)
	if err != nil {
		return nil, err
	}
	if t.Cols != 1 {
		return nil, fmt.Errorf("%s: expected one value per row, got %d columns", path, t.Cols)
	}
	return t.Data, nil
}

// ReadStrings reads one string per line from a text/CSV file (the first
// column; an optional header named "id" is skipped). Empty files are errors.
func ReadStrings(path string) ([]string, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := NewCSVReader(f)
	cr.FieldsPerRecord = -1
	var out []string
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		v := rec[0] // verbatim, as the pool readers keep ids
		if line == 1 && strings.EqualFold(strings.TrimSpace(v), "id") {
			continue
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no ids (empty file?)", path)
	}
	return out, nil
}

// SplitIDColumn removes the column named idColumn (by header) from a CSV file
// and returns the remaining numeric table and the ids. The file must have a
// header row.
func SplitIDColumn(path, idColumn string) (*Table, []string, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	cr := NewCSVReader(f)
	cr.TrimLeadingSpace = true
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: empty file, expected a header row naming the id column %q and data rows", path, idColumn)
	}
	col := -1
	for j, h := range recs[0] {
		if strings.TrimSpace(h) == idColumn {
			col = j
		}
	}
	if col < 0 {
		for _, h := range recs[0] {
			if _, err := parseNumber(h); err == nil {
				return nil, nil, fmt.Errorf("%s: the id column %q needs a header row naming the columns, but line 1 %s holds numbers, like data: add a header line", path, idColumn, ExcerptCells(recs[0]))
			}
		}
		return nil, nil, fmt.Errorf("%s: no column named %q in header %s%s", path, idColumn, ExcerptCells(recs[0]), SeparatorHint(recs[0]...))
	}
	t := &Table{Path: path, Cols: len(recs[0]) - 1}
	var ids []string
	for i, rec := range recs[1:] {
		for j, cell := range rec {
			if j == col {
				ids = append(ids, cell) // verbatim, as the pool readers keep ids
				continue
			}
			v, err := parseNumber(cell)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, &ReadError{File: path, Line: i + 2, Column: j + 1, Field: recs[0][j], Err: fmt.Errorf("%s is not a finite number%s", Excerpt(cell), SeparatorHint(cell))}
			}
			t.Data = append(t.Data, v)
		}
		t.Rows++
	}
	if t.Rows == 0 {
		return nil, nil, fmt.Errorf("%s: a header row but no data rows", path)
	}
	t.Header = append(append([]string{}, recs[0][:col]...), recs[0][col+1:]...)
	return t, ids, nil
}

// EachRow calls fn for every data row of a CSV whose header (ncols cells) the
// caller has already read, with the row's 1-based line number in the file
// (as the csv.Reader counts it: blank lines and lines inside quoted cells
// included). Blank lines are skipped; a row with another number of cells, or a
// CSV syntax error, stops with an error naming the file and line. An error
// returned by fn is returned as is.
func EachRow(cr *csv.Reader, path string, ncols int, fn func(line int, rec []string) error) error {
	return eachRow(cr, path, ncols, 0, fn)
}

// eachRow is EachRow for a reader that starts offset lines into the file.
func eachRow(cr *csv.Reader, path string, ncols, offset int, fn func(line int, rec []string) error) error {
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, shiftParseError(err, offset))
		}
		// The reader's own position: it skips blank lines and a quoted
		// cell may span lines, so counting records would misname the line.
		line, _ := cr.FieldPos(0)
		line += offset
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != ncols {
			return LineErrorf(path, line, "%d cells, expected %d like the header", len(rec), ncols)
		}
		if err := fn(line, rec); err != nil {
			return err
		}
	}
}

package fileio

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ColumnIndex is the index of the column named name in t's header
// (names compared trimmed, as written otherwise), or -1 when t has no
// header or no such column.
func (t *Table) ColumnIndex(name string) int {
	for j, h := range t.Header {
		if strings.TrimSpace(h) == strings.TrimSpace(name) {
			return j
		}
	}
	return -1
}

// Select returns a new table of t's columns cols, in that order (header
// included when t has one). cols must be valid column indices.
func (t *Table) Select(cols []int) *Table {
	out := &Table{Path: t.Path, Rows: t.Rows, Cols: len(cols), Data: make([]float64, 0, t.Rows*len(cols))}
	if t.Header != nil {
		for _, j := range cols {
			out.Header = append(out.Header, t.Header[j])
		}
	}
	for i := 0; i < t.Rows; i++ {
		for _, j := range cols {
			out.Data = append(out.Data, t.At(i, j))
		}
	}
	return out
}

// UnnamedColumn reports whether a header cell names no column: empty, or
// pandas' "Unnamed: N" (what pandas reads back for an empty header cell;
// df.to_csv writes the row index under an empty header).
func UnnamedColumn(name string) bool {
	name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
	return name == "" || strings.HasPrefix(name, "Unnamed: ")
}

// labelWords are the header names LabelLikeColumn recognises (compared
// case-insensitively), besides the prefix "is_".
var labelWords = []string{"label", "labels", "target", "y", "class", "activity", "active"}

// LabelLikeColumn reports whether a header name looks like a label or a
// target rather than a feature: label, target, y, class, activity, active
// (any case) or a name starting with is_. A column "y" in a header that also
// has "x" is a coordinate, not a label.
func LabelLikeColumn(name string, header []string) bool {
	n := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")))
	if n == "y" {
		for _, h := range header {
			if strings.ToLower(strings.TrimSpace(h)) == "x" {
				return false
			}
		}
	}
	for _, w := range labelWords {
		if n == w {
			return true
		}
	}
	return strings.HasPrefix(n, "is_")
}

// ColumnSpec names the roles of a CSV's columns, as the user gave them (""
// or nil: not given), and the flags or keys that gave them, for messages.
type ColumnSpec struct {
	ID, Label, Quality, Fingerprint string
	Group                           string   // a text column grouping the rows (score --group-column)
	Features                        []string // explicit feature columns
	Prefix                          string   // or: the columns named Prefix...
	Exclude                         []string // columns never features
	// Flag names for messages, e.g. "--id-column" or "pool.csv.id_column".
	IDFlag, LabelFlag, QualityFlag, FingerprintFlag, FeaturesFlag, PrefixFlag, ExcludeFlag string
	GroupFlag                                                                              string
	// Name, if set, is how a message names a config key among the Flag
	// names in passing ("leave it out with --exclude-columns (key
	// pool.csv.exclude_columns) target"): the command line names the flag
	// that set the key. A SettingError keeps the key itself.
	Name func(key string) string
}

// name is how a message names the key or flag k in passing (Name).
func (s ColumnSpec) name(k string) string {
	if s.Name == nil {
		return k
	}
	return s.Name(k)
}

// Columns is a resolved header: the index of each role (-1 when absent),
// the feature columns in file order (or the order Features named them) and
// the unnamed columns, which are never features (see ResolveUnnamed).
type Columns struct {
	ID, Label, Quality, Fingerprint int
	Group                           int
	Features                        []int
	Unnamed                         []int
}

// ResolveColumns assigns the header's columns to roles. Unnamed columns
// (UnnamedColumn) are never features; a column that looks like a label or
// target (LabelLikeColumn) is not a feature by default: it is an error
// naming it and the flags that leave it out or include it, unless it is the
// label column, excluded, or named in Features. With Fingerprint set, no
// feature column is read. Every name the spec gives must be in the header.
// Errors start with path.
func ResolveColumns(path string, header []string, s ColumnSpec) (*Columns, error) {
	names := make([]string, len(header))
	for j, h := range header {
		names[j] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	}
	find := func(flag, name string) (int, error) {
		name = strings.TrimSpace(name)
		for j, h := range names {
			if h == name {
				return j, nil
			}
		}
		// Typed, so the command line can name the flag that set a key.
		return -1, &ColumnError{File: path, Setting: flag, Value: name, Header: header}
	}
	c := &Columns{ID: -1, Label: -1, Quality: -1, Fingerprint: -1, Group: -1}
	type roleOf struct{ what, flag string }
	role := map[int]roleOf{}
	for _, r := range []struct {
		name, flag, what string
		dst              *int
	}{{s.ID, s.IDFlag, "id", &c.ID}, {s.Label, s.LabelFlag, "label", &c.Label}, {s.Quality, s.QualityFlag, "quality", &c.Quality}, {s.Fingerprint, s.FingerprintFlag, "fingerprint", &c.Fingerprint}, {s.Group, s.GroupFlag, "group", &c.Group}} {
		if r.name == "" {
			continue
		}
		j, err := find(r.flag, r.name)
		if err != nil {
			return nil, err
		}
		if other, dup := role[j]; dup {
			return nil, fmt.Errorf("%s: column %q is both the %s column and the %s column (%s, %s)", path, names[j], other.what, r.what, other.flag, r.flag)
		}
		role[j] = roleOf{r.what, r.flag}
		*r.dst = j
	}
	excluded := map[int]bool{}
	for _, name := range s.Exclude {
		j, err := find(s.ExcludeFlag, name)
		if err != nil {
			return nil, err
		}
		excluded[j] = true
	}
	for j, h := range header {
		if _, taken := role[j]; !taken && UnnamedColumn(h) {
			c.Unnamed = append(c.Unnamed, j)
		}
	}
	if s.Fingerprint != "" {
		if len(s.Features) > 0 || s.Prefix != "" {
			return nil, fmt.Errorf("%s: give %s or feature columns (%s, %s), not both", path, s.name(s.FingerprintFlag), s.name(s.FeaturesFlag), s.name(s.PrefixFlag))
		}
		return c, nil
	}
	if len(s.Features) > 0 && s.Prefix != "" {
		return nil, fmt.Errorf("%s: give %s or %s, not both", path, s.name(s.FeaturesFlag), s.name(s.PrefixFlag))
	}
	if len(s.Features) > 0 {
		for _, name := range s.Features {
			j, err := find(s.FeaturesFlag, name)
			if err != nil {
				return nil, err
			}
			if r, taken := role[j]; taken {
				return nil, fmt.Errorf("%s: column %q is both the %s column and a feature column (%s, %s)", path, names[j], r.what, s.name(r.flag), s.name(s.FeaturesFlag))
			}
			if UnnamedColumn(header[j]) {
				return nil, fmt.Errorf("%s: %s: column %d has no name (a row index): it is never a feature", path, s.name(s.FeaturesFlag), j+1)
			}
			c.Features = append(c.Features, j)
		}
		return c, nil
	}
	for j, h := range names {
		if _, taken := role[j]; taken || excluded[j] || UnnamedColumn(header[j]) {
			continue
		}
		if s.Prefix != "" && !strings.HasPrefix(h, s.Prefix) {
			continue
		}
		if s.Prefix == "" && LabelLikeColumn(h, names) {
			return nil, fmt.Errorf("%s: column %q looks like a label or target, so it is not a feature by default: leave it out with %s %s, or include it by naming the features with %s", path, h, s.name(s.ExcludeFlag), h, s.name(s.FeaturesFlag))
		}
		c.Features = append(c.Features, j)
	}
	if len(c.Features) == 0 {
		if s.Prefix != "" {
			return nil, &ColumnError{File: path, Setting: s.PrefixFlag, Value: s.Prefix, Prefix: true, Header: header}
		}
		return nil, fmt.Errorf("%s: no feature columns left in the header %s (besides the id, label, quality, unnamed and excluded columns)", path, ExcerptCells(header))
	}
	return c, nil
}

// ResolveUnnamed decides what the unnamed columns of a CSV are, given their
// values (values[u] holds column c.Unnamed[u] of every data row, trimmed):
// a column holding 0, 1, ..., n-1 in order is the row index (dropped); the
// first other one holding unique non-empty values becomes the id column
// when c.ID is -1 (later ones are dropped as row labels); any other is an
// error naming it. notes say what was decided, one line each, for stderr.
func ResolveUnnamed(path string, header []string, c *Columns, values [][]string) (notes []string, err error) {
	for u, j := range c.Unnamed {
		name := fmt.Sprintf("%q (column %d, no name)", strings.TrimSpace(header[j]), j+1)
		vals := values[u]
		index := true
		for i, v := range vals {
			if v != strconv.Itoa(i) {
				index = false
				break
			}
		}
		if index {
			notes = append(notes, fmt.Sprintf("%s: column %s holds 0..%d: read as the row index (as pandas' to_csv writes it), not a feature", path, name, len(vals)-1))
			continue
		}
		seen := make(map[string]int, len(vals))
		unique := true
		for i, v := range vals {
			if _, dup := seen[v]; dup || v == "" {
				unique = false
				break
			}
			seen[v] = i
		}
		if !unique {
			return notes, fmt.Errorf("%s: column %s is neither a row index (0..n-1) nor unique ids, and a column without a name is never a feature: name it in the header (and choose it as a feature explicitly), or delete it", path, name)
		}
		if c.ID < 0 {
			c.ID = j
			notes = append(notes, fmt.Sprintf("%s: column %s holds unique values: read as the item ids, not a feature", path, name))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s: column %s holds unique values: read as row labels (the ids come from column %q), not a feature", path, name, strings.TrimSpace(header[c.ID])))
	}
	return notes, nil
}

// StandardizeRows z-scores each column of x in place: (v - mean) / sd with
// the population standard deviation (divisor n, not n - 1); a constant
// column becomes all zeros.
func StandardizeRows(x [][]float64) {
	if len(x) == 0 {
		return
	}
	n := float64(len(x))
	for c := range x[0] {
		var s float64
		for _, row := range x {
			s += row[c]
		}
		mean := s / n
		var ss float64
		for _, row := range x {
			ss += (row[c] - mean) * (row[c] - mean)
		}
		sd := math.Sqrt(ss / n)
		for _, row := range x {
			if sd > 0 {
				row[c] = (row[c] - mean) / sd
			} else {
				row[c] = 0
			}
		}
	}
}

// RowViews returns t's rows as slices sharing t.Data.
func (t *Table) RowViews() [][]float64 {
	rows := make([][]float64, t.Rows)
	for i := range rows {
		rows[i] = t.Data[i*t.Cols : (i+1)*t.Cols : (i+1)*t.Cols]
	}
	return rows
}

// ColumnData is a CSV read by ReadColumnsCSV: the feature columns as a
// table (header = their names), and the other roles' values, one per row.
type ColumnData struct {
	Features     *Table    // nil with a fingerprint column
	IDs          []string  // nil without an id column
	Quality      []float64 // nil without a quality column
	Fingerprints []string  // the fingerprint column's text, trimmed (nil without)
	Groups       []string  // the group column's text, trimmed (nil without)
	Lines        []int     // each row's 1-based line in the file
	Columns      *Columns
	Notes        []string // what ResolveUnnamed decided, for stderr
}

// ReadColumnsCSV reads a CSV whose first row is a header (a row in which
// some cell is not a number; ok is false, and nothing else is returned, when
// the first row is all numbers: a headerless matrix for ReadTable), assigns
// its columns by ResolveColumns and ResolveUnnamed, and parses the feature
// and quality cells as finite numbers. Errors name the file, the line and
// the column.
func ReadColumnsCSV(path string, s ColumnSpec) (d *ColumnData, ok bool, err error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	cr := NewCSVReader(f)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, false, fmt.Errorf("%s: empty file", path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	numeric := true
	for _, h := range header {
		if _, err := parseNumber(h); err != nil {
			numeric = false
		}
	}
	if numeric {
		return nil, false, nil
	}
	cols, err := ResolveColumns(path, header, s)
	if err != nil {
		return nil, true, err
	}
	d = &ColumnData{Columns: cols}
	unnamed := make([][]string, len(cols.Unnamed))
	var texts []string
	feat := &Table{Path: path, Cols: len(cols.Features)}
	for _, j := range cols.Features {
		feat.Header = append(feat.Header, strings.TrimSpace(header[j]))
	}
	number := func(line int, rec []string, j int) (float64, error) {
		v, err := parseNumber(rec[j])
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, FieldErrorf(path, line, strings.TrimSpace(header[j]), "%s is not a finite number%s", Excerpt(rec[j]), SeparatorHint(rec[j]))
		}
		return v, nil
	}
	err = EachRow(cr, path, len(header), func(line int, rec []string) error {
		d.Lines = append(d.Lines, line)
		for _, j := range cols.Features {
			v, err := number(line, rec, j)
			if err != nil {
				return err
			}
			feat.Data = append(feat.Data, v)
		}
		if cols.Quality >= 0 {
			v, err := number(line, rec, cols.Quality)
			if err != nil {
				return err
			}
			d.Quality = append(d.Quality, v)
		}
		if cols.Fingerprint >= 0 {
			texts = append(texts, strings.TrimSpace(rec[cols.Fingerprint]))
		}
		if cols.ID >= 0 {
			d.IDs = append(d.IDs, rec[cols.ID]) // verbatim, as the pool readers keep ids
		}
		if cols.Group >= 0 {
			d.Groups = append(d.Groups, strings.TrimSpace(rec[cols.Group]))
		}
		for u, j := range cols.Unnamed {
			unnamed[u] = append(unnamed[u], strings.TrimSpace(rec[j]))
		}
		feat.Rows++
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	if feat.Rows == 0 {
		return nil, true, fmt.Errorf("%s: a header row but no data rows", path)
	}
	hadID := cols.ID >= 0
	if d.Notes, err = ResolveUnnamed(path, header, cols, unnamed); err != nil {
		return nil, true, err
	}
	if !hadID && cols.ID >= 0 {
		for u, j := range cols.Unnamed {
			if j == cols.ID {
				d.IDs = unnamed[u]
			}
		}
	}
	d.Fingerprints = texts
	if cols.Fingerprint < 0 {
		d.Features = feat
	}
	return d, true, nil
}

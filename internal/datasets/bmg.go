package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// magpieProperties is the default elemental property set of the BMG
// composition features: the 22 properties of Ward et al. 2016's general
// "magpie" preset (as in matminer's ElementProperty.from_preset("magpie")),
// each a file <name>.table in the Magpie folder.
var magpieProperties = []string{
	"Number", "MendeleevNumber", "AtomicWeight", "MeltingT", "Column", "Row",
	"CovalentRadius", "Electronegativity", "NsValence", "NpValence",
	"NdValence", "NfValence", "NValence", "NsUnfilled", "NpUnfilled",
	"NdUnfilled", "NfUnfilled", "NUnfilled", "GSvolume_pa", "GSbandgap",
	"GSmagmom", "SpaceGroupNumber",
}

// Composition is a parsed chemical formula: elements in order of first
// appearance with their amounts (as written, e.g. atomic percent).
type Composition struct {
	Elements []string
	Amounts  []float64
}

// Fractions returns the amounts divided by their sum.
func (c Composition) Fractions() []float64 {
	var s float64
	for _, a := range c.Amounts {
		s += a
	}
	f := make([]float64, len(c.Amounts))
	for i, a := range c.Amounts {
		f[i] = a / s
	}
	return f
}

// ParseFormula parses a formula such as "Ag20Al25La55", "Fe80B20",
// "Ag0Pd79Si21" (zero amounts are kept; the element then has fraction 0) or
// "Zr41.2Ti13.8Cu12.5Ni10Be22.5". An element without a number has amount 1;
// an element written twice has its amounts added. Errors: unknown element
// symbols, stray characters, negative or non-finite amounts, a total of 0.
func ParseFormula(s string) (Composition, error) {
	var c Composition
	index := map[string]int{}
	i := 0
	if strings.TrimSpace(s) == "" {
		return c, fmt.Errorf("empty formula")
	}
	for i < len(s) {
		if s[i] < 'A' || s[i] > 'Z' {
			return c, fmt.Errorf("formula %q: character %d (%q) is not the start of an element symbol", s, i+1, s[i])
		}
		j := i + 1
		for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
			j++
		}
		sym := s[i:j]
		if atomicNumber(sym) == 0 {
			return c, fmt.Errorf("formula %q: %q is not an element symbol", s, sym)
		}
		k := j
		for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] == '.') {
			k++
		}
		amount := 1.0
		if k > j {
			v, err := strconv.ParseFloat(s[j:k], 64)
			if err != nil {
				return c, fmt.Errorf("formula %q: amount %q of %s is not a number", s, s[j:k], sym)
			}
			amount = v
		}
		if m, ok := index[sym]; ok {
			c.Amounts[m] += amount
		} else {
			index[sym] = len(c.Elements)
			c.Elements = append(c.Elements, sym)
			c.Amounts = append(c.Amounts, amount)
		}
		i = k
	}
	var total float64
	for _, a := range c.Amounts {
		total += a
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return c, fmt.Errorf("formula %q: amounts sum to %v, expected a positive total", s, total)
	}
	return c, nil
}

// magpieTable is one elemental property: Values[Z-1] for atomic number Z,
// NaN where the table says "Missing" or has no line.
type magpieTable struct {
	Name   string
	Values []float64
}

// readMagpieTable reads dir/<name>.table: one value per line, line i for
// atomic number i, "Missing" for unknown values. A line with several values
// (e.g. OxidationStates) is an error: only scalar properties are supported.
func readMagpieTable(dir, name string) (*magpieTable, error) {
	if err := fileio.CheckPlainName(name); err != nil {
		return nil, fmt.Errorf("magpie property: %w", err)
	}
	path := filepath.Join(dir, name+".table")
	data, err := fileio.ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("magpie property %q: %w", name, err)
	}
	t := &magpieTable{Name: name}
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
	for ln, line := range lines {
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "Missing":
			t.Values = append(t.Values, math.NaN())
		case len(f) == 1:
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil || math.IsInf(v, 0) {
				return nil, fileio.LineErrorf(path, ln+1, "%q is not a number or \"Missing\"", f[0])
			}
			t.Values = append(t.Values, v)
		case len(f) == 0:
			t.Values = append(t.Values, math.NaN())
		default:
			return nil, fileio.LineErrorf(path, ln+1, "%d values: only one-value (scalar) properties are supported", len(f))
		}
	}
	return t, nil
}

// Value returns the property of element z (NaN if unknown).
func (t *magpieTable) Value(z int) float64 {
	if z < 1 || z > len(t.Values) {
		return math.NaN()
	}
	return t.Values[z-1]
}

// compositionFeatures are Magpie-style features of a list of compositions.
type compositionFeatures struct {
	Names   []string    // column names
	X       [][]float64 // one row per composition
	Skipped []string    // properties dropped because an element present in the data lacks a value
	Dropped []string    // zero-variance columns removed (only when filtered)
}

// computeCompositionFeatures builds, for each composition, the element
// fractions (one column "frac_<El>" per element with a positive fraction
// somewhere in the data, ordered by Z) followed by five statistics per
// property, over the elements present (fraction > 0) with weights = fractions:
// mean = sum f_e p_e; avg_dev = sum f_e |p_e - mean|; min; max; range =
// max - min (the Magpie statistics of Ward et al. 2016, without the mode).
//
// NaN policy: a property whose table lacks the value of an element that
// occurs (with a positive fraction) in the data is skipped entirely and
// listed in Skipped; imputing a value would invent chemistry.
func computeCompositionFeatures(comps []Composition, tables []*magpieTable) *compositionFeatures {
	present := map[int]bool{}
	for _, c := range comps {
		for e, f := range c.Fractions() {
			if f > 0 {
				present[atomicNumber(c.Elements[e])] = true
			}
		}
	}
	zs := make([]int, 0, len(present))
	for z := range present {
		zs = append(zs, z)
	}
	slices.Sort(zs)
	col := map[int]int{}
	out := &compositionFeatures{}
	for c, z := range zs {
		col[z] = c
		out.Names = append(out.Names, "frac_"+elementSymbol(z))
	}
	var used []*magpieTable
	for _, t := range tables {
		ok := true
		for _, z := range zs {
			if math.IsNaN(t.Value(z)) {
				ok = false
				break
			}
		}
		if !ok {
			out.Skipped = append(out.Skipped, t.Name)
			continue
		}
		used = append(used, t)
		for _, stat := range []string{"mean", "avg_dev", "min", "max", "range"} {
			out.Names = append(out.Names, t.Name+"_"+stat)
		}
	}
	out.X = make([][]float64, len(comps))
	for i, c := range comps {
		row := make([]float64, len(zs), len(out.Names))
		fr := c.Fractions()
		for e, f := range fr {
			if f > 0 {
				row[col[atomicNumber(c.Elements[e])]] += f
			}
		}
		for _, t := range used {
			var mean float64
			lo, hi := math.Inf(1), math.Inf(-1)
			for e, f := range fr {
				if f > 0 {
					v := t.Value(atomicNumber(c.Elements[e]))
					mean += f * v
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			var dev float64
			for e, f := range fr {
				if f > 0 {
					dev += f * math.Abs(t.Value(atomicNumber(c.Elements[e]))-mean)
				}
			}
			row = append(row, mean, dev, lo, hi, hi-lo)
		}
		out.X[i] = row
	}
	return out
}

// Standardize removes the columns whose values are all equal (listing them in
// Dropped) and z-scores the others: (x - mean) / sd with the population
// standard deviation. Columns are compared exactly, so a column is dropped
// only if it carries no information at all.
func (f *compositionFeatures) Standardize() {
	n := len(f.X)
	if n == 0 {
		return
	}
	var keep []int
	var means, sds []float64
	for c := range f.Names {
		var s float64
		constant := true
		for _, row := range f.X {
			s += row[c]
			constant = constant && row[c] == f.X[0][c]
		}
		if constant {
			f.Dropped = append(f.Dropped, f.Names[c])
			continue
		}
		mean := s / float64(n)
		var ss float64
		for _, row := range f.X {
			ss += (row[c] - mean) * (row[c] - mean)
		}
		keep = append(keep, c)
		means = append(means, mean)
		sds = append(sds, math.Sqrt(ss/float64(n)))
	}
	names := make([]string, len(keep))
	for k, c := range keep {
		names[k] = f.Names[c]
	}
	for i, row := range f.X {
		z := make([]float64, len(keep))
		for k, c := range keep {
			z[k] = (row[c] - means[k]) / sds[k]
		}
		f.X[i] = z
	}
	f.Names = names
}

// bmgRecord is one row of the Landolt glass table.
type bmgRecord struct {
	Formula     string
	Composition Composition
	Identifier  string // AM amorphous, AC amorphous + crystalline, CR crystalline
}

// readBMGTable reads the glass table: a header with the columns "Formula" and
// "identifier" (any order, other columns ignored), then one alloy per row.
// Repeated formulas are kept: they are distinct experiments, sometimes with
// different outcomes.
func readBMGTable(path string) ([]bmgRecord, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, expected a header with Formula and identifier", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fc, ic := -1, -1
	for j, h := range header {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) {
		case "Formula":
			fc = j
		case "identifier":
			ic = j
		}
	}
	if fc < 0 || ic < 0 {
		return nil, fmt.Errorf("%s: header %q lacks the column \"Formula\" or \"identifier\"", path, header)
	}
	var recs []bmgRecord
	err = fileio.EachRow(cr, path, len(header), func(line int, rec []string) error {
		formula := strings.TrimSpace(rec[fc])
		comp, err := ParseFormula(formula)
		if err != nil {
			return fileio.LineErrorf(path, line, "%w", err)
		}
		id := strings.TrimSpace(rec[ic])
		if id == "" {
			return fileio.LineErrorf(path, line, "empty identifier")
		}
		recs = append(recs, bmgRecord{Formula: formula, Composition: comp, Identifier: id})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no data rows after the header", path)
	}
	return recs, nil
}

// loadBMG builds the bulk metallic glass pool. If the folder cfg.Dir (under
// the data directory) holds the authors' folder format, that is loaded (the
// paper's exact pool). Otherwise the Landolt substitute cfg.File is used:
// formulas parsed; features = computeCompositionFeatures with cfg.Properties
// from cfg.ElementsDir, zero-variance columns dropped, z-scored; positive =
// identifier in cfg.Targets; IDs = formulas, repeats kept as items of their
// own with IDs "formula#2", "formula#3", ...; the Euclidean kNN
// graph with cfg.K neighbours and unweighted edges, as the authors built
// theirs.
func loadBMG(cfg BMGConfig, dataDir, cacheDir string, workers int) (*Pool, error) {
	if err := checkPositive("pool.bmg.k", cfg.K); err != nil {
		return nil, err
	}
	dir := dataPath(dataDir, cfg.Dir)
	if hasFolder(dir) {
		p, err := loadFolder(dir, knn.MetricEuclidean)
		if err != nil {
			return nil, err
		}
		p.Name = KindBMG
		return p, nil
	}
	if len(cfg.Targets) == 0 {
		return nil, fmt.Errorf("pool.bmg.targets: empty, expected the positive identifiers (e.g. AM)")
	}
	if len(cfg.Properties) == 0 {
		return nil, fmt.Errorf("pool.bmg.properties: empty, expected Magpie property names such as %q", magpieProperties[:3])
	}
	path := filepath.Join(dir, cfg.File)
	recs, err := readBMGTable(path)
	if err != nil {
		return nil, err
	}
	if cfg.K >= len(recs) {
		return nil, fmt.Errorf("pool.bmg.k: %d, expected less than the %d alloys of %s", cfg.K, len(recs), path)
	}
	edir := dataPath(dataDir, cfg.ElementsDir)
	tables := make([]*magpieTable, len(cfg.Properties))
	for i, name := range cfg.Properties {
		if tables[i], err = readMagpieTable(edir, name); err != nil {
			return nil, fmt.Errorf("pool.bmg.properties: %w", err)
		}
	}
	comps := make([]Composition, len(recs))
	p := &Pool{Name: KindBMG, Metric: knn.MetricEuclidean, IDs: make([]string, len(recs)), Labels: make([]bool, len(recs))}
	seen := map[string]int{}
	for i, r := range recs {
		comps[i] = r.Composition
		// IDs must identify items (e.g. in an observed-labels file), so the
		// k-th repeat of a formula (k >= 2) gets the suffix "#k".
		seen[r.Formula]++
		p.IDs[i] = r.Formula
		if c := seen[r.Formula]; c > 1 {
			p.IDs[i] = fmt.Sprintf("%s#%d", r.Formula, c)
		}
		p.Labels[i] = slices.Contains(cfg.Targets, r.Identifier)
	}
	if p.PositiveCount() == 0 {
		return nil, fmt.Errorf("pool.bmg.targets: no alloy of %s has identifier in %q", path, cfg.Targets)
	}
	feats := computeCompositionFeatures(comps, tables)
	feats.Standardize()
	if len(feats.Names) == 0 {
		return nil, fmt.Errorf("%s: every composition feature is constant", path)
	}
	p.Dense = feats.X
	g, _, err := knn.CachedKNN(cacheDir, p.Dense, nil, cfg.K, knn.MetricEuclidean, workers)
	if err != nil {
		return nil, err
	}
	w, _ := knn.EdgeWeights(g, knn.SimilarityUnweighted)
	p.SetGraph(g, w)
	return p, nil
}

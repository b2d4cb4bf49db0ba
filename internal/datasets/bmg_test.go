package datasets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qvs-dev/qvs/internal/testutil"
)

func TestElementTable(t *testing.T) {
	// Anchors from the periodic table.
	for sym, z := range map[string]int{"H": 1, "C": 6, "Fe": 26, "Zr": 40, "La": 57, "Lu": 71, "Hf": 72, "Au": 79, "U": 92, "Og": 118} {
		if atomicNumber(sym) != z || elementSymbol(z) != sym {
			t.Errorf("%s: Z = %d, symbol(%d) = %q", sym, atomicNumber(sym), z, elementSymbol(z))
		}
	}
	if len(atomicNumbers) != 118 {
		t.Errorf("%d distinct symbols, want 118", len(atomicNumbers))
	}
	if atomicNumber("Xx") != 0 || elementSymbol(0) != "" || elementSymbol(119) != "" {
		t.Error("unknown symbols must map to 0 / \"\"")
	}
}

func TestParseFormula(t *testing.T) {
	tests := []struct {
		in    string
		elems []string
		amts  []float64
		err   string
	}{
		{"Ag20Al25La55", []string{"Ag", "Al", "La"}, []float64{20, 25, 55}, ""},
		{"Ag0Pd79Si21", []string{"Ag", "Pd", "Si"}, []float64{0, 79, 21}, ""},
		{"Zr41.2Ti13.8Cu12.5Ni10Be22.5", []string{"Zr", "Ti", "Cu", "Ni", "Be"}, []float64{41.2, 13.8, 12.5, 10, 22.5}, ""},
		{"FeB", []string{"Fe", "B"}, []float64{1, 1}, ""},
		{"Fe40Ni40Fe20", []string{"Fe", "Ni"}, []float64{60, 40}, ""},
		{"Xx20Fe80", nil, nil, `"Xx" is not an element`},
		{"fe80B20", nil, nil, "character 1"},
		{"Fe80 B20", nil, nil, "character 5"},
		{"Fe0B0", nil, nil, "sum to 0"},
		{"Fe1.2.3", nil, nil, "not a number"},
		{"", nil, nil, "empty"},
	}
	for _, tc := range tests {
		c, err := ParseFormula(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(c.Elements, tc.elems) || !slices.Equal(c.Amounts, tc.amts) {
			t.Errorf("%q: %v %v %v", tc.in, c.Elements, c.Amounts, err)
		}
	}
	c, _ := ParseFormula("Ag20Al25La55")
	if f := c.Fractions(); math.Abs(f[0]-0.2) > 1e-15 || math.Abs(f[2]-0.55) > 1e-15 {
		t.Errorf("fractions %v", f)
	}
}

// tinyMagpie writes three property tables covering Z = 1..30: "P" (= Z),
// "Q" (= 10 for all), and "R" (Missing for Fe, Z = 26).
func tinyMagpie(t *testing.T) string {
	dir := t.TempDir()
	var p, q, r []string
	for z := 1; z <= 30; z++ {
		p = append(p, fmt.Sprint(z))
		q = append(q, "10")
		if z == 26 {
			r = append(r, "Missing")
		} else {
			r = append(r, fmt.Sprintf("%g", float64(z)/2))
		}
	}
	os.WriteFile(filepath.Join(dir, "P.table"), []byte(strings.Join(p, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "Q.table"), []byte(strings.Join(q, "\n")), 0o644)
	os.WriteFile(filepath.Join(dir, "R.table"), []byte(strings.Join(r, "\n")), 0o644)
	os.WriteFile(filepath.Join(dir, "Multi.table"), []byte("1 2\n3\n"), 0o644)
	return dir
}

func TestCompositionFeatures(t *testing.T) {
	dir := tinyMagpie(t)
	var tables []*magpieTable
	for _, name := range []string{"P", "Q", "R"} {
		tb, err := readMagpieTable(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	if _, err := readMagpieTable(dir, "Multi"); err == nil || !strings.Contains(err.Error(), "line 1: 2 values") {
		t.Errorf("multi-valued table: %v", err)
	}
	if !math.IsNaN(tables[2].Value(26)) || tables[0].Value(5) != 5 || !math.IsNaN(tables[0].Value(31)) {
		t.Error("table values")
	}
	var comps []Composition
	for _, s := range []string{"Fe80B20", "Ni50Al50", "Ni0Al100"} {
		c, _ := ParseFormula(s)
		comps = append(comps, c)
	}
	f := computeCompositionFeatures(comps, tables)
	// Elements with a positive fraction somewhere, by Z: B(5) Al(13) Fe(26)
	// Ni(28). R lacks Fe: skipped.
	wantNames := []string{"frac_B", "frac_Al", "frac_Fe", "frac_Ni",
		"P_mean", "P_avg_dev", "P_min", "P_max", "P_range",
		"Q_mean", "Q_avg_dev", "Q_min", "Q_max", "Q_range"}
	if !slices.Equal(f.Names, wantNames) || !slices.Equal(f.Skipped, []string{"R"}) {
		t.Fatalf("names %v skipped %v", f.Names, f.Skipped)
	}
	// Fe80B20 with P = Z: mean = 0.8*26 + 0.2*5 = 21.8; avg dev =
	// 0.8*4.2 + 0.2*16.8 = 6.72; min 5, max 26, range 21.
	// Ni0Al100: Ni (fraction 0) is absent: min = max = 13.
	want := [][]float64{
		{0.2, 0, 0.8, 0, 21.8, 6.72, 5, 26, 21, 10, 0, 10, 10, 0},
		{0, 0.5, 0, 0.5, 20.5, 7.5, 13, 28, 15, 10, 0, 10, 10, 0},
		{0, 1, 0, 0, 13, 0, 13, 13, 0, 10, 0, 10, 10, 0},
	}
	for i := range want {
		for c := range want[i] {
			if math.Abs(f.X[i][c]-want[i][c]) > 1e-12 {
				t.Errorf("row %d %s = %v, want %v", i, f.Names[c], f.X[i][c], want[i][c])
			}
		}
	}
	f.Standardize()
	// Constant columns dropped: the five Q statistics.
	if !slices.Equal(f.Dropped, []string{"Q_mean", "Q_avg_dev", "Q_min", "Q_max", "Q_range"}) || len(f.Names) != 9 || len(f.X[0]) != 9 {
		t.Fatalf("dropped %v, kept %v", f.Dropped, f.Names)
	}
	for c := range f.Names {
		var s, ss float64
		for _, row := range f.X {
			s += row[c]
			ss += row[c] * row[c]
		}
		if math.Abs(s) > 1e-12 || math.Abs(ss/3-1) > 1e-12 {
			t.Errorf("%s: mean %v, mean square %v after z-scoring", f.Names[c], s/3, ss/3)
		}
	}
}

func TestLoadBMGTiny(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "bmg"), 0o755)
	writeFile(t, filepath.Join(data, "bmg"), "glass.csv", "Formula,identifier,MG?\n"+
		"Fe80B20,AM,TRUE\nFe80B20,CR,FALSE\nNi50Al50,AC,FALSE\nNi60Al40,AM,TRUE\nCu50Zr50,CR,FALSE\nCu60Zr40,AM,TRUE")
	mag := tinyMagpie(t)
	// P covers Z <= 30 only, so it lacks Zr (40) and is skipped; P40
	// covers every element here.
	var p []string
	for z := 1; z <= 40; z++ {
		p = append(p, fmt.Sprint(z))
	}
	os.WriteFile(filepath.Join(mag, "P40.table"), []byte(strings.Join(p, "\n")), 0o644)
	cfg := DefaultConfig(KindBMG).BMG
	cfg.File, cfg.ElementsDir, cfg.Properties, cfg.K = "glass.csv", mag, []string{"P40", "P"}, 2
	pool, err := Load(Config{Kind: KindBMG, BMG: cfg}, data, t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if pool.Name != KindBMG || pool.Len() != 6 || fmt.Sprint(pool.Labels) != "[true false false true false true]" || pool.IDs[0] != "Fe80B20" || pool.IDs[1] != "Fe80B20#2" {
		t.Fatalf("pool %q %d %v %v", pool.Name, pool.Len(), pool.Labels, pool.IDs)
	}
	// Repeated formulas are kept; they are duplicates in feature space.
	if pool.Distance(0, 1) != 0 {
		t.Errorf("repeated formula at distance %v", pool.Distance(0, 1))
	}
	for i, w := range pool.Weights {
		for _, v := range w {
			if v != 1 {
				t.Fatalf("row %d has weight %v, want unweighted edges", i, v)
			}
		}
	}
	// Ties in distance go to the lower index: item 1's nearest is item 0.
	if pool.Neighbors[1][0] != 0 || pool.Neighbors[0][0] != 1 {
		t.Errorf("neighbours %v", pool.Neighbors)
	}
	cfg.Targets = []string{"XX"}
	if _, err := loadBMG(cfg, data, "", 1); err == nil || !strings.Contains(err.Error(), "pool.bmg.targets") {
		t.Errorf("no positives: %v", err)
	}
	cfg.Targets, cfg.Properties = []string{"AM"}, []string{"Nope"}
	if _, err := loadBMG(cfg, data, "", 1); err == nil || !strings.Contains(err.Error(), "pool.bmg.properties") {
		t.Errorf("missing property: %v", err)
	}
	writeFile(t, filepath.Join(data, "bmg"), "glass.csv", "Formula,identifier\nFe80B20,AM\nQq3,AM\n")
	if _, err := loadBMG(cfg, data, "", 1); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("bad formula: %v", err)
	}
	// The authors' folder, when present, wins.
	folder := tinyFolder(t)
	cfg.Dir = folder
	pool, err = loadBMG(cfg, data, "", 1)
	if err != nil || pool.Len() != 4 || pool.Name != KindBMG {
		t.Errorf("folder BMG: %v, %v", pool, err)
	}
}

func TestLoadBMGReal(t *testing.T) {
	start := time.Now()
	p, err := Load(DefaultConfig(KindBMG), testutil.DataDir(t, "bmg/glassdata_ward2016_landolt.csv", "elements/magpie"), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Counts from bmg/PROVENANCE.md: 6,836 rows, 4,868 AM.
	if p.Len() != 6836 || p.PositiveCount() != 4868 {
		t.Errorf("%d alloys, %d AM; want 6836, 4868", p.Len(), p.PositiveCount())
	}
	ids := map[string]bool{}
	for _, id := range p.IDs {
		ids[id] = true
	}
	if len(ids) != p.Len() {
		t.Errorf("%d distinct IDs for %d alloys", len(ids), p.Len())
	}
	for i, nb := range p.Neighbors {
		if len(nb) != 50 {
			t.Fatalf("alloy %d has %d neighbours, want 50", i, len(nb))
		}
	}
	t.Logf("bmg: %d alloys, %d features, %v", p.Len(), len(p.Dense[0]), time.Since(start))
}

func TestRealBMGFeatures(t *testing.T) {
	data := testutil.DataDir(t, "bmg/glassdata_ward2016_landolt.csv", "elements/magpie")
	recs, err := readBMGTable(filepath.Join(data, "bmg", "glassdata_ward2016_landolt.csv"))
	if err != nil {
		t.Fatal(err)
	}
	comps := make([]Composition, len(recs))
	distinct := map[string]bool{}
	for i, r := range recs {
		comps[i] = r.Composition
		distinct[r.Formula] = true
	}
	if len(distinct) != 5792 { // bmg/PROVENANCE.md
		t.Errorf("%d distinct formulas, want 5792", len(distinct))
	}
	var tables []*magpieTable
	for _, name := range magpieProperties {
		tb, err := readMagpieTable(filepath.Join(data, "elements", "magpie"), name)
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	f := computeCompositionFeatures(comps, tables)
	f.Standardize()
	t.Logf("%d features; skipped properties %v; dropped constant columns %v", len(f.Names), f.Skipped, f.Dropped)
	for i, row := range f.X {
		for c, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("alloy %d feature %s = %v", i, f.Names[c], v)
			}
		}
	}
}

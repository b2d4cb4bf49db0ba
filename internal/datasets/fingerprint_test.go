package datasets

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
)

// TestParseFingerprintFPS: the FPS convention of chemfp (its sdf2fps
// --hex: "Bit #0 is the first bit (1<<0) of the first byte"; --binary:
// "Bit #0 comes first. Example: 00100000 encodes the value 4"), so the bit
// string 00100000 and the hex 04 are the same fingerprint, and 01f2 (bytes
// 0x01, 0xf2) sets bits 0 and 9, 12, 13, 14, 15.
func TestParseFingerprintFPS(t *testing.T) {
	setBits := func(w []uint64) []int {
		var on []int
		for i := range 64 * len(w) {
			if w[i/64]>>(i%64)&1 == 1 {
				on = append(on, i)
			}
		}
		return on
	}
	for _, c := range []struct {
		s, format string
		nbits     int
		on        []int
	}{
		{"00100000", FingerprintBits, 8, []int{2}},
		{"04", FingerprintHex, 8, []int{2}},
		{"0100", FingerprintHex, 16, []int{0}},
		{"01f2", FingerprintHex, 16, []int{0, 9, 12, 13, 14, 15}},
		{"01F2", FingerprintHex, 16, []int{0, 9, 12, 13, 14, 15}},
		{" 1" + strings.Repeat("0", 63) + "1 ", FingerprintBits, 65, []int{0, 64}},
		{strings.Repeat("00", 8) + "80", FingerprintHex, 72, []int{71}},
	} {
		w, n, err := parseFingerprint(c.s, c.format)
		if err != nil || n != c.nbits || !slices.Equal(setBits(w), c.on) {
			t.Errorf("%q (%s): bits %v of %d, %v; want %v of %d", c.s, c.format, setBits(w), n, err, c.on, c.nbits)
		}
	}
	for _, c := range []struct{ s, format, want string }{
		{"0102", FingerprintBits, `character 4 is "2", expected '0' or '1'`},
		{"001x", FingerprintBits, `character 4 is "x", expected '0' or '1'`},
		{"0g", FingerprintHex, `character 2 is "g", expected a hexadecimal digit`},
		{"010", FingerprintHex, "3 hexadecimal digits, expected an even number"},
		{"  ", FingerprintBits, "empty fingerprint"},
		{"01", "base64", `format "base64" is not one of bits, hex`},
		{strings.Repeat("0", maxFingerprintBits+1), FingerprintBits, "more than the 65536 bits"},
	} {
		if _, _, err := parseFingerprint(c.s, c.format); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.20q: error %v, want %q", c.s, err, c.want)
		}
	}
}

// minMaxTanimoto is the count Tanimoto by its definition.
func minMaxTanimoto(a, b []float64) float64 {
	var lo, hi float64
	for f := range a {
		lo += math.Min(a[f], b[f])
		hi += math.Max(a[f], b[f])
	}
	if hi == 0 {
		return 1
	}
	return lo / hi
}

// TestCountFingerprintsTanimoto: the bit expansion of counts gives Σ min /
// Σ max exactly (compared as rationals by the same division), and on 0/1
// rows it is plain Tanimoto on the bits themselves; the all-zero cases are
// 1 (two empty) and 0 (empty and not).
func TestCountFingerprintsTanimoto(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, maxCount := range []int{1, 5} {
		rows := make([][]float64, 12)
		for i := range rows {
			rows[i] = make([]float64, 9)
			if i == 0 || i == 1 {
				continue // two all-zero rows
			}
			for f := range rows[i] {
				rows[i][f] = float64(rng.IntN(maxCount + 1))
			}
		}
		b, err := FingerprintsFromCounts(rows, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			for j := range rows {
				got, want := Tanimoto(b[i], b[j]), minMaxTanimoto(rows[i], rows[j])
				if got != want {
					t.Fatalf("max %d rows %d, %d: %v, Σmin/Σmax %v", maxCount, i, j, got, want)
				}
			}
		}
		if Tanimoto(b[0], b[1]) != 1 || Tanimoto(b[0], b[2]) != 0 && minMaxTanimoto(rows[0], rows[2]) == 0 {
			t.Errorf("all-zero: %v, %v", Tanimoto(b[0], b[1]), Tanimoto(b[0], b[2]))
		}
		if maxCount == 1 {
			// 0/1 rows keep one bit per column: the same words as the bits.
			for i, row := range rows {
				var w uint64
				for f, v := range row {
					if v == 1 {
						w |= 1 << f
					}
				}
				if len(b[i]) != 1 || b[i][0] != w {
					t.Fatalf("row %d: %x, want %x", i, b[i], w)
				}
			}
		}
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{-1, "row 2, feature 1: -1 is not a count"}, {0.5, "0.5 is not a count"}, {math.NaN(), "NaN is not a count"}} {
		if _, err := FingerprintsFromCounts([][]float64{{1}, {c.v}}, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v", c.v, err)
		}
	}
	big := [][]float64{make([]float64, 3), make([]float64, 3)}
	big[1][0], big[1][1], big[1][2] = 30000, 30000, 30000
	if _, err := FingerprintsFromCounts(big, nil); err == nil || !strings.Contains(err.Error(), "expand to more than 65536 bits") {
		t.Errorf("big counts: %v", err)
	}
}

// bruteTanimotoKNN is the kNN graph by definition: every other item sorted
// by decreasing Tanimoto similarity, ties to the lower index, the first k.
func bruteTanimotoKNN(b [][]uint64, k int) ([][]int32, [][]float64) {
	nbr := make([][]int32, len(b))
	w := make([][]float64, len(b))
	for i := range b {
		var js []int
		for j := range b {
			if j != i {
				js = append(js, j)
			}
		}
		slices.SortStableFunc(js, func(x, y int) int { return cmp.Compare(Tanimoto(b[i], b[y]), Tanimoto(b[i], b[x])) })
		for _, j := range js[:k] {
			if s := Tanimoto(b[i], b[j]); s > 0 {
				nbr[i] = append(nbr[i], int32(j))
				w[i] = append(w[i], s)
			}
		}
	}
	return nbr, w
}

// TestLoadCSVTanimoto: a CSV pool of fingerprints, as bit strings, as FPS
// hex and as 0/1 columns, gives the brute-force Tanimoto kNN graph (edge
// weight = similarity, ties to the lower index, zero-similarity edges
// dropped), the same for all three; counts give the Σ min / Σ max graph.
func TestLoadCSVTanimoto(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, nbits, k = 30, 16, 5
	var bitsCSV, hexCSV, colsCSV, countCSV strings.Builder
	bitsCSV.WriteString("id,fp\n")
	hexCSV.WriteString("id,fp\n")
	colsCSV.WriteString("id")
	countCSV.WriteString("id")
	for f := range nbits {
		fmt.Fprintf(&colsCSV, ",b%d", f)
		fmt.Fprintf(&countCSV, ",c%d", f)
	}
	colsCSV.WriteString("\n")
	countCSV.WriteString("\n")
	want := make([][]uint64, n)
	counts := make([][]float64, n)
	for i := range n {
		want[i] = []uint64{0}
		counts[i] = make([]float64, nbits)
		var s strings.Builder
		for f := range nbits {
			if i > 0 && rng.IntN(3) == 0 { // item 0 is all zeros
				want[i][0] |= 1 << f
				s.WriteByte('1')
			} else {
				s.WriteByte('0')
			}
			counts[i][f] = float64(rng.IntN(4))
		}
		fmt.Fprintf(&bitsCSV, "m%d,%s\n", i, s.String())
		fmt.Fprintf(&hexCSV, "m%d,%02x%02x\n", i, want[i][0]&0xff, want[i][0]>>8)
		fmt.Fprintf(&colsCSV, "m%d", i)
		fmt.Fprintf(&countCSV, "m%d", i)
		for f := range nbits {
			fmt.Fprintf(&colsCSV, ",%d", want[i][0]>>f&1)
			fmt.Fprintf(&countCSV, ",%g", counts[i][f])
		}
		colsCSV.WriteString("\n")
		countCSV.WriteString("\n")
	}
	wantNbr, wantW := bruteTanimotoKNN(want, k)
	dir := t.TempDir()
	for _, c := range []struct {
		name, content, column, format string
	}{
		{"bits.csv", bitsCSV.String(), "fp", FingerprintBits},
		{"hex.csv", hexCSV.String(), "fp", FingerprintHex},
		{"cols.csv", colsCSV.String(), "", ""},
	} {
		cfg := DefaultConfig(KindCSV).CSV
		cfg.File, cfg.IDColumn, cfg.FingerprintColumn, cfg.FingerprintFormat = writeFile(t, dir, c.name, c.content), "id", c.column, c.format
		cfg.Metric, cfg.K = knn.MetricTanimoto, k
		p, err := Load(Config{Kind: KindCSV, CSV: cfg}, "", t.TempDir(), 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Metric != knn.MetricTanimoto || p.Dense != nil || p.IDs[3] != "m3" {
			t.Errorf("%s: metric %s, dense %v, ids %v", c.name, p.Metric, p.Dense != nil, p.IDs[:4])
		}
		if fmt.Sprint(p.Neighbors) != fmt.Sprint(wantNbr) || fmt.Sprint(p.Weights) != fmt.Sprint(wantW) {
			t.Errorf("%s: graph\n%v %v\nwant\n%v %v", c.name, p.Neighbors, p.Weights, wantNbr, wantW)
		}
		if len(p.Neighbors[0]) != 0 {
			t.Errorf("%s: the all-zero item has neighbours %v (similarity 0 to every other)", c.name, p.Neighbors[0])
		}
	}
	cb, err := FingerprintsFromCounts(counts, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(KindCSV).CSV
	cfg.File, cfg.IDColumn, cfg.Metric, cfg.K = writeFile(t, dir, "counts.csv", countCSV.String()), "id", knn.MetricTanimoto, k
	p, err := LoadCSV(cfg, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	nbr, w := bruteTanimotoKNN(cb, k)
	for i := range n {
		for m, j := range nbr[i] {
			if s := minMaxTanimoto(counts[i], counts[j]); s != w[i][m] {
				t.Fatalf("count similarity %d-%d: %v vs Σmin/Σmax %v", i, j, w[i][m], s)
			}
		}
	}
	if fmt.Sprint(p.Neighbors) != fmt.Sprint(nbr) || fmt.Sprint(p.Weights) != fmt.Sprint(w) {
		t.Errorf("counts: graph differs from brute force")
	}
	for _, c := range []struct {
		content, want string
		mod           func(*CSVConfig)
	}{
		{"id,fp\na,0101\nb,011\nc,0000\n", `line 3, column "fp" (pool.csv.fingerprint_column): fingerprint of 3 bits, expected 4 like line 2`, nil},
		{"id,fp\na,0101\nb,0121\nc,0000\n", `line 3, column "fp" (pool.csv.fingerprint_column), format bits: character 3 is "2"`, nil},
		{"id,fp\na,0101\nb,0111\nc,0000\n", `pool.csv.fingerprint_column: fingerprints are compared by Tanimoto`, func(c *CSVConfig) { c.Metric = knn.MetricEuclidean }},
		{"id,fp\na,0101\nb,0111\nc,0000\n", `pool.csv.fingerprint_column = "fingerprint": no such column`, func(c *CSVConfig) { c.FingerprintColumn = "fingerprint" }},
		{"id,fp\na,0101\nb,0111\nc,0000\n", `pool.csv.fingerprint_format = "b64": expected one of`, func(c *CSVConfig) { c.FingerprintFormat = "b64" }},
		{"id,x\na,1\nb,0.5\nc,0\n", `column "x": 0.5 is not a count`, func(c *CSVConfig) { c.FingerprintColumn = "" }},
		{"id,fp\na,0101\nb,0111\nc,0000\n", `"cosine" is not one of "native", "unweighted"`, func(c *CSVConfig) { c.Similarity = "cosine" }},
		{"id,fp\na,0101\nb,0111\nc,0000\n", `pool.csv.standardize: z-scored features are not fingerprints`, func(c *CSVConfig) { c.Standardize = true }},
	} {
		cfg := DefaultConfig(KindCSV).CSV
		cfg.File, cfg.IDColumn, cfg.FingerprintColumn, cfg.Metric, cfg.K = writeFile(t, dir, "bad.csv", c.content), "id", "fp", knn.MetricTanimoto, 1
		if c.mod != nil {
			c.mod(&cfg)
		}
		if _, err := LoadCSV(cfg, "", 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
}

// FuzzParseFingerprint: never panics; a parsed fingerprint has the length
// its text implies, no bit set beyond it, and bits and hex agree.
func FuzzParseFingerprint(f *testing.F) {
	for _, s := range []string{"00100000", "04", "01f2", "0g", "", "1 0", strings.Repeat("ff", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range FingerprintFormats {
			w, n, err := parseFingerprint(s, format)
			if err != nil {
				continue
			}
			if n < 1 || len(w) != (n+63)/64 {
				t.Fatalf("%q %s: %d words for %d bits", s, format, len(w), n)
			}
			if r := n % 64; r != 0 && w[len(w)-1]>>r != 0 {
				t.Fatalf("%q %s: bits set beyond %d", s, format, n)
			}
			if format == FingerprintHex {
				var bs strings.Builder
				for i := range n {
					bs.WriteByte(byte('0' + w[i/64]>>(i%64)&1))
				}
				w2, n2, err := parseFingerprint(bs.String(), FingerprintBits)
				if err != nil || n2 != n || !slices.Equal(w, w2) {
					t.Fatalf("%q: hex and bits disagree", s)
				}
			}
		}
	})
}

// BenchmarkParseFingerprint: one 2,048-bit fingerprint as a bit string and
// as FPS hex (the per-row cost of reading a fingerprint column).
func BenchmarkParseFingerprint(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var bs, hs strings.Builder
	for i := 0; i < 2048; i++ {
		bs.WriteByte(byte('0' + rng.IntN(2)))
	}
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&hs, "%02x", rng.IntN(256))
	}
	for _, c := range []struct{ name, s, format string }{{"bits", bs.String(), FingerprintBits}, {"hex", hs.String(), FingerprintHex}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := parseFingerprint(c.s, c.format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

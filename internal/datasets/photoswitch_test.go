package datasets

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/testutil"
)

func TestTanimoto(t *testing.T) {
	tests := []struct {
		name string
		a, b []uint64
		want float64
	}{
		{"identical", []uint64{0b1011}, []uint64{0b1011}, 1},
		{"disjoint", []uint64{0b0011}, []uint64{0b1100}, 0},
		{"half", []uint64{0b0011}, []uint64{0b0001}, 0.5},
		// |and| = 1 (bit 64), |or| = 3 (bits 0, 64, 65) across two words.
		{"two words", []uint64{1, 1}, []uint64{0, 3}, 1.0 / 3},
		{"both empty", []uint64{0, 0}, []uint64{0, 0}, 1},
		{"one empty", []uint64{0}, []uint64{5}, 0},
	}
	for _, tc := range tests {
		if got := Tanimoto(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Tanimoto = %v, want %v", tc.name, got, tc.want)
		}
		if got := Tanimoto(tc.b, tc.a); got != tc.want {
			t.Errorf("%s: Tanimoto not symmetric: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tinyPhotoswitch mimics the real file: trailing space in "Smiles ", the
// λ header, floats for lambda, no trailing newline.
const tinyPhotoswitch = "Smiles ,Core ID,Morgan fingerprint (2048 bits),$λ^{max}$(nm)\n" +
	"CC,1,1000000000000000000000000000000000000000000000000000000000000000011,450.0\n" +
	"CN,2,0100000000000000000000000000000000000000000000000000000000000000001,449.0\n" +
	"\"C(=O)N\",3,0000000000000000000000000000000000000000000000000000000000000000000,500.0"

func TestReadPhotoswitchTiny(t *testing.T) {
	p := writeFile(t, t.TempDir(), "ps.csv", tinyPhotoswitch)
	tab, err := readPhotoswitch(p)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 3 || tab.NBits != 67 {
		t.Fatalf("got %d rows, %d bits; want 3 rows, 67 bits", tab.Len(), tab.NBits)
	}
	// Row 1: bits 0, 65 and 66 set: word 0 bit 0; word 1 bits 1 and 2.
	if got := tab.Bits[0]; len(got) != 2 || got[0] != 1 || got[1] != 0b110 {
		t.Errorf("row 1 bits = %b, want [1 110]", got)
	}
	if tab.Smiles[2] != "C(=O)N" || tab.Core[1] != 2 || tab.LambdaMax[0] != 450 {
		t.Errorf("parsed %q %d %v", tab.Smiles[2], tab.Core[1], tab.LambdaMax[0])
	}
	// Row 1 and row 2 share bit 66 only; union = {0, 1, 65, 66}.
	if got := Tanimoto(tab.Bits[0], tab.Bits[1]); got != 0.25 {
		t.Errorf("Tanimoto(row1, row2) = %v, want 0.25", got)
	}
}

func TestReadPhotoswitchErrors(t *testing.T) {
	const hdr = "Smiles ,Core ID,Morgan fingerprint (2048 bits),$λ^{max}$(nm)\n"
	tests := []struct {
		name, content, want string
	}{
		{"empty", "", "empty file"},
		{"missing column", "Smiles ,Core ID,$λ^{max}$(nm)\nC,1,3\n", "Morgan fingerprint"},
		{"bad bit", hdr + "C,1,0120,400\n", "line 2"},
		{"ragged fingerprint", hdr + "C,1,0100,400\nN,1,010,400\n", "line 3"},
		{"bad lambda", hdr + "C,1,0100,abc\n", "not a finite number"},
		{"nan lambda", hdr + "C,1,0100,NaN\n", "not a finite number"},
		{"bad core", hdr + "C,x,0100,400\n", "not an integer"},
		{"short row", hdr + "C,1,0100\n", ": 3 cells, expected 4"},
		{"header only", hdr, "no data rows"},
	}
	for _, tc := range tests {
		p := writeFile(t, t.TempDir(), "ps.csv", tc.content)
		_, err := readPhotoswitch(p)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q should name the file and contain %q", tc.name, err, tc.want)
		}
	}
}

func TestReadPhotoswitchReal(t *testing.T) {
	p := filepath.Join(testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"), "photoswitch", "UMAP-AllHits.csv")
	tab, err := readPhotoswitch(p)
	if err != nil {
		t.Fatal(err)
	}
	// Counts from photoswitch/PROVENANCE.md.
	if tab.Len() != 1919 || tab.NBits != 2048 {
		t.Fatalf("%d rows, %d bits; want 1919, 2048", tab.Len(), tab.NBits)
	}
	pos := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range tab.LambdaMax {
		if l >= 450 {
			pos++
		}
		lo, hi = math.Min(lo, l), math.Max(hi, l)
	}
	if pos != 718 {
		t.Errorf("%d molecules with lambda-max >= 450, want 718", pos)
	}
	if lo < 300 || hi > 602 {
		t.Errorf("lambda-max range [%v, %v], want within [300, 602]", lo, hi)
	}
}

func TestLoadPhotoswitchReal(t *testing.T) {
	cache := t.TempDir()
	p, err := Load(DefaultConfig(KindPhotoswitch), testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"), cache, 0)
	if err != nil {
		t.Fatal(err)
	}
	// photoswitch/PROVENANCE.md: 718 of 1,919 have lambda-max >= 450 nm.
	if p.Name != KindPhotoswitch || p.Len() != 1919 || p.PositiveCount() != 718 || p.Metric != knn.MetricTanimoto {
		t.Fatalf("pool %q: %d items, %d positives, metric %q", p.Name, p.Len(), p.PositiveCount(), p.Metric)
	}
	// Brute-force check of a few rows: the 20 most Tanimoto-similar others,
	// ties to the lower index, weight = similarity.
	for _, i := range []int{0, 1, 500, 1918} {
		type cand struct {
			v float64 // minus the similarity
			j int32
		}
		var c []cand
		for j := range p.Len() {
			if j != i {
				c = append(c, cand{-Tanimoto(p.Bits[i], p.Bits[j]), int32(j)})
			}
		}
		slices.SortFunc(c, func(a, b cand) int { return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.j, b.j)) })
		for m := 0; m < 20; m++ {
			if p.Neighbors[i][m] != c[m].j || p.Weights[i][m] != -c[m].v {
				t.Fatalf("row %d, rank %d: got %d (%v), want %d (%v)", i, m, p.Neighbors[i][m], p.Weights[i][m], c[m].j, -c[m].v)
			}
		}
	}
	// Distance is 1 - Tanimoto; colliding fingerprints (26 rows) are at 0.
	zero := 0
	for i := range p.Len() {
		if p.Weights[i][0] == 1 {
			zero++
		}
	}
	if zero == 0 {
		t.Error("no row has an identical-fingerprint neighbour; PROVENANCE.md lists 26 collisions")
	}
	cfg := DefaultConfig(KindPhotoswitch)
	cfg.Photoswitch.Threshold = 700
	if _, err := Load(cfg, testutil.DataDir(t, "photoswitch/UMAP-AllHits.csv"), "", 1); err == nil || !strings.Contains(err.Error(), "threshold") {
		t.Errorf("no positives: %v", err)
	}
}

package datasets

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fuzzWrite writes data to dir/name for the path-based readers under test.
func fuzzWrite(t *testing.T, dir, name string, data []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// csrSeed is a valid scipy CSR .npz (the folder tests' graph).
func csrSeed(f *testing.F) []byte {
	p := filepath.Join(f.TempDir(), "seed.npz")
	writeScipyCSR(f, p, 4, 4, []int32{0, 3, 5, 7, 7}, []int32{0, 1, 3, 0, 2, 1, 3},
		[]float64{1, 0.5, 0.9, 0.5, 0.5, 0, 0.25}, "csr")
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzLoadFolder: a folder of arbitrary features.npy, labels.npy and
// csr_weights.npz never panics the loader, and a pool it returns passes
// Validate.
func FuzzLoadFolder(f *testing.F) {
	feat := rawNPY("<f8", false, []int{4, 2}, leBytes([]float64{0, 0, 3, 4, 6, 8, 0, 1}))
	lab := rawNPY("<i8", false, []int{4}, leBytes([]int64{1, 0, 2, -1}))
	f.Add(feat, lab, csrSeed(f))
	f.Fuzz(func(t *testing.T, features, labels, csr []byte) {
		dir := t.TempDir()
		fuzzWrite(t, dir, folderFeatures, features)
		fuzzWrite(t, dir, folderLabels, labels)
		fuzzWrite(t, dir, folderCSRWeights, csr)
		p, err := loadFolder(dir, "")
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("loadFolder returned an invalid pool: %v", err)
		}
	})
}

// FuzzReadKernelSet: a kernel-set folder (the MOF format: kernel CSV and
// table CSV) never panics the reader; a set it returns has an n x n kernel,
// n unique ids and finite objectives.
func FuzzReadKernelSet(f *testing.F) {
	f.Add([]byte(mofKernelCSV), []byte(mofTable))
	f.Add([]byte("1\n"), []byte("id,storage,energy_penalty\na,1,\n"))
	f.Fuzz(func(t *testing.T, kernel, table []byte) {
		dir := t.TempDir()
		files := mofFiles(dir)
		fuzzWrite(t, dir, filepath.Base(files.Kernel), kernel)
		fuzzWrite(t, dir, filepath.Base(files.Table), table)
		set, err := ReadKernelSet("mof", files)
		if err != nil {
			return
		}
		n := set.Len()
		if r, c := set.Kernel.Dims(); r != n || c != n || len(set.Objective) != n {
			t.Fatalf("%d ids, kernel %d x %d, %d objectives", n, r, c, len(set.Objective))
		}
		seen := map[string]bool{}
		for i, id := range set.IDs {
			if seen[id] {
				t.Fatalf("id %q twice", id)
			}
			seen[id] = true
			if v := set.Objective[i]; math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("objective %d is %v", i, v)
			}
		}
	})
}

// idxBytes is an uncompressed IDX file: magic, dimensions (big-endian) and
// data.
func idxBytes(magic uint32, dims []uint32, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	binary.Write(&b, binary.BigEndian, dims)
	b.Write(data)
	return b.Bytes()
}

// FuzzReadIDX: the Fashion-MNIST IDX readers never panic and never return
// more values than the file holds bytes (they used to allocate what the
// header promised, up to 16 GiB, before reading).
func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(idxLabelsMagic, []uint32{3}, []byte{0, 9, 1}))
	f.Add(idxBytes(idxImagesMagic, []uint32{2, 2, 2}, []byte{0, 1, 2, 3, 4, 5, 6, 7}))
	f.Add(idxBytes(idxImagesMagic, []uint32{1 << 28, 1 << 3, 1 << 3}, nil))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzWrite(t, dir, "x-idx-ubyte", data)
		if labels, err := readIDXLabels(p); err == nil && len(labels) > len(data) {
			t.Fatalf("%d labels from %d bytes", len(labels), len(data))
		}
		if im, err := readIDXImages(p); err == nil && (len(im.Pixels) != im.N*im.Size() || len(im.Pixels) > len(data)) {
			t.Fatalf("%d x %d x %d images, %d pixels from %d bytes", im.N, im.Rows, im.Cols, len(im.Pixels), len(data))
		}
	})
}

// TestReadIDXHugeClaim: a 16-byte label file promising 2^28 labels is an
// error after reading what is there, without allocating the promise.
func TestReadIDXHugeClaim(t *testing.T) {
	p := fuzzWrite(t, t.TempDir(), "l-idx1-ubyte", idxBytes(idxLabelsMagic, []uint32{1 << 28}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	var before, after runtimeMem
	before.read()
	_, err := readIDXLabels(p)
	after.read()
	if err == nil || !strings.Contains(err.Error(), "header promises 268435456 labels, data is shorter: 8 of 268435456 bytes") {
		t.Errorf("error %v", err)
	}
	if n := after.total - before.total; n > 1<<20 {
		t.Errorf("allocated %d bytes for an 16-byte file", n)
	}
}

// FuzzParseFormula: formulas never panic the parser; a composition it
// returns has matching elements and amounts, finite non-negative amounts
// with a positive total.
func FuzzParseFormula(f *testing.F) {
	for _, s := range []string{"Ag20Al25La55", "Fe80B20", "Ag0Pd79Si21", "Zr41.2Ti13.8Cu12.5Ni10Be22.5", "CuZr", "Xx1", "Fe1e400", "Fe-1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseFormula(s)
		if err != nil {
			return
		}
		if len(c.Elements) == 0 || len(c.Elements) != len(c.Amounts) {
			t.Fatalf("%q: %d elements, %d amounts", s, len(c.Elements), len(c.Amounts))
		}
		total := 0.0
		for _, a := range c.Amounts {
			if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
				t.Fatalf("%q: amount %v", s, a)
			}
			total += a
		}
		if !(total > 0) || math.IsInf(total, 0) {
			t.Fatalf("%q: total %v", s, total)
		}
	})
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// FuzzReadBMGTable: the glass table reader never panics; every alloy it
// accepts has a parsed composition.
func FuzzReadBMGTable(f *testing.F) {
	f.Add([]byte("Formula,identifier,MG?\nFe80B20,AM,TRUE\nCu50Zr50,CR,FALSE\n"))
	f.Add([]byte("identifier,Formula\nAC,Zr41.2Ti13.8Cu12.5Ni10Be22.5\nAM,Qq\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := readBMGTable(fuzzWrite(t, dir, "glass.csv", data))
		if err != nil {
			return
		}
		for _, r := range recs {
			if len(r.Composition.Elements) == 0 || len(r.Composition.Elements) != len(r.Composition.Amounts) {
				t.Fatalf("record %+v", r)
			}
		}
	})
}

// FuzzReadPhotoswitch: the photoswitch table reader never panics; an
// accepted table has one fingerprint of NBits bits, core and lambda per
// molecule. The seed is a made-up molecule in the file's layout.
func FuzzReadPhotoswitch(f *testing.F) {
	bits := strings.Repeat("0", 2047) + "1"
	f.Add([]byte("Smiles ,Core ID,Morgan fingerprint (2048 bits),$λ^{max}$(nm)\nCc1ccccc1/N=N/c1ccccc1,1," + bits + ",320.5\n"))
	f.Add([]byte("Smiles ,Core ID,Morgan fingerprint (2048 bits),$λ^{max}$(nm)\nC,1,01,\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := readPhotoswitch(fuzzWrite(t, dir, "UMAP-AllHits.csv", data))
		if err != nil {
			return
		}
		n := len(tb.Smiles)
		if len(tb.Core) != n || len(tb.Bits) != n || len(tb.LambdaMax) != n {
			t.Fatalf("%d molecules, %d cores, %d fingerprints, %d lambdas", n, len(tb.Core), len(tb.Bits), len(tb.LambdaMax))
		}
		for _, b := range tb.Bits {
			if len(b) != (tb.NBits+63)/64 {
				t.Fatalf("fingerprint of %d words for %d bits", len(b), tb.NBits)
			}
		}
	})
}

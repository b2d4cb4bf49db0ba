package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// Header cells of the photoswitch table (photoswitch/UMAP-AllHits.csv, see
// its PROVENANCE.md). The SMILES header really ends with a space.
const (
	photoswitchSmilesHeader = "Smiles "
	photoswitchCoreHeader   = "Core ID"
	photoswitchBitsHeader   = "Morgan fingerprint (2048 bits)"
	photoswitchLambdaHeader = "$λ^{max}$(nm)"
)

// photoswitchTable is the photoswitch table of Mukadum et al. 2021: one row
// per azoarene molecule.
type photoswitchTable struct {
	Smiles    []string
	Core      []int      // azoarene core id (1-29)
	Bits      [][]uint64 // Morgan fingerprint: bit j of the string is word j/64, bit j%64
	NBits     int        // fingerprint length in bits (2048)
	LambdaMax []float64  // DFT absorption maximum of the E isomer, nm
}

// Len is the number of molecules.
func (t *photoswitchTable) Len() int { return len(t.Smiles) }

// readPhotoswitch reads the photoswitch CSV. The header must have the four
// columns named in PROVENANCE.md (matched after trimming spaces, in any
// order; extra columns are ignored). Fingerprints are strings of '0'/'1', all
// of the same length. Errors name the file, the 1-based line and the column.
func readPhotoswitch(path string) (*photoswitchTable, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, expected a header %q", path, []string{photoswitchSmilesHeader, photoswitchCoreHeader, photoswitchBitsHeader, photoswitchLambdaHeader})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for j, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = j
	}
	need := []string{photoswitchSmilesHeader, photoswitchCoreHeader, photoswitchBitsHeader, photoswitchLambdaHeader}
	idx := make([]int, len(need))
	for k, name := range need {
		j, ok := col[strings.TrimSpace(name)]
		if !ok {
			return nil, fmt.Errorf("%s: header has no column %q (got %q)", path, name, header)
		}
		idx[k] = j
	}
	t := &photoswitchTable{}
	err = fileio.EachRow(cr, path, len(header), func(line int, rec []string) error {
		smiles := strings.TrimSpace(rec[idx[0]])
		if smiles == "" {
			return fileio.FieldErrorf(path, line, need[0], "empty SMILES")
		}
		core, err := strconv.Atoi(strings.TrimSpace(rec[idx[1]]))
		if err != nil {
			// Some exports write integers as floats ("25.0").
			v, ferr := strconv.ParseFloat(strings.TrimSpace(rec[idx[1]]), 64)
			if ferr != nil || v != math.Trunc(v) {
				return fileio.FieldErrorf(path, line, need[1], "%q is not an integer", rec[idx[1]])
			}
			core = int(v)
		}
		fp := strings.TrimSpace(rec[idx[2]])
		if len(fp) == 0 {
			return fileio.FieldErrorf(path, line, need[2], "empty fingerprint")
		}
		if t.NBits == 0 {
			t.NBits = len(fp)
		} else if len(fp) != t.NBits {
			return fileio.FieldErrorf(path, line, need[2], "fingerprint has %d bits, expected %d like line 2", len(fp), t.NBits)
		}
		words := make([]uint64, (len(fp)+63)/64)
		for j := 0; j < len(fp); j++ {
			switch fp[j] {
			case '1':
				words[j/64] |= 1 << (j % 64)
			case '0':
			default:
				return fileio.FieldErrorf(path, line, need[2], "character %d is %q, expected '0' or '1'", j+1, fp[j])
			}
		}
		lam, err := strconv.ParseFloat(strings.TrimSpace(rec[idx[3]]), 64)
		if err != nil || math.IsNaN(lam) || math.IsInf(lam, 0) {
			return fileio.FieldErrorf(path, line, need[3], "%q is not a finite number", rec[idx[3]])
		}
		t.Smiles = append(t.Smiles, smiles)
		t.Core = append(t.Core, core)
		t.Bits = append(t.Bits, words)
		t.LambdaMax = append(t.LambdaMax, lam)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("%s: no data rows after the header", path)
	}
	return t, nil
}

// Tanimoto is the Tanimoto (Jaccard) similarity |a AND b| / |a OR b| of two
// bit vectors of the same length in words, by popcount. Two empty
// fingerprints (no bit set in either) are identical, so their similarity is
// defined as 1, so that the distance 1 - Tanimoto keeps d(x, x) = 0 for
// every x. It panics if the lengths differ (a programmer error).
func Tanimoto(a, b []uint64) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("datasets: Tanimoto of bit vectors of %d and %d words", len(a), len(b)))
	}
	var and, or int
	for i, x := range a {
		y := b[i]
		and += bits.OnesCount64(x & y)
		or += bits.OnesCount64(x | y)
	}
	if or == 0 {
		return 1
	}
	return float64(and) / float64(or)
}

// loadPhotoswitch builds the photoswitch pool: one item per molecule (ID =
// SMILES), positive when lambda-max >= cfg.Threshold nm, Morgan fingerprints
// as bit features, metric tanimoto, and the Tanimoto kNN graph with cfg.K
// neighbours (self excluded) weighted by the Tanimoto similarity.
func loadPhotoswitch(cfg PhotoswitchConfig, dataDir, cacheDir string, workers int) (*Pool, error) {
	if math.IsNaN(cfg.Threshold) || math.IsInf(cfg.Threshold, 0) {
		return nil, fmt.Errorf("pool.photoswitch.threshold: %v, expected a finite wavelength in nm", cfg.Threshold)
	}
	if err := checkPositive("pool.photoswitch.k", cfg.K); err != nil {
		return nil, err
	}
	path := dataPath(dataDir, cfg.File)
	t, err := readPhotoswitch(path)
	if err != nil {
		return nil, err
	}
	if cfg.K >= t.Len() {
		return nil, fmt.Errorf("pool.photoswitch.k: %d, expected less than the %d molecules of %s", cfg.K, t.Len(), path)
	}
	p := &Pool{Name: KindPhotoswitch, IDs: t.Smiles, Labels: make([]bool, t.Len()), Bits: t.Bits, Metric: knn.MetricTanimoto}
	for i, l := range t.LambdaMax {
		p.Labels[i] = l >= cfg.Threshold
	}
	if p.PositiveCount() == 0 {
		return nil, fmt.Errorf("pool.photoswitch.threshold: no molecule of %s has lambda-max >= %v nm", path, cfg.Threshold)
	}
	g, w, err := knn.TanimotoGraph(t.Bits, cfg.K, knn.SimilarityNative, cacheDir, workers)
	if err != nil {
		return nil, err
	}
	p.SetGraph(g, w)
	return p, nil
}

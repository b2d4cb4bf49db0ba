package datasets

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/linalg"
)

// Fashion-MNIST file names in the upstream release (fashion-mnist/PROVENANCE.md).
var fashionFiles = [4]string{
	"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
	"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
}

// IDX magic numbers: 0x08 = unsigned byte data, then the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// idxImages is a stack of equally sized greyscale images, pixels 0-255.
type idxImages struct {
	N, Rows, Cols int
	Pixels        []uint8 // N*Rows*Cols, image-major, row-major inside an image
}

// Pixel count of one image.
func (im *idxImages) Size() int { return im.Rows * im.Cols }

// openMaybeGzip opens path and, if its name ends in .gz, decompresses it.
func openMaybeGzip(path string) (io.Reader, func() error, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return bufio.NewReader(f), f.Close, nil
	}
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
	}
	return z, func() error { z.Close(); return f.Close() }, nil
}

// readIDXHeader reads the magic number and dims big-endian uint32 sizes.
func readIDXHeader(r io.Reader, path string, magic uint32, dims int) ([]int, error) {
	hdr := make([]uint32, 1+dims)
	if err := binary.Read(r, binary.BigEndian, hdr); err != nil {
		return nil, fmt.Errorf("%s: truncated IDX header: %w", path, err)
	}
	if hdr[0] != magic {
		return nil, fmt.Errorf("%s: IDX magic number 0x%08x, expected 0x%08x", path, hdr[0], magic)
	}
	out := make([]int, dims)
	for i := range out {
		out[i] = int(hdr[1+i])
		if out[i] == 0 || out[i] > 1<<28 {
			return nil, fmt.Errorf("%s: IDX dimension %d is %d, expected 1 to 2^28", path, i, out[i])
		}
	}
	return out, nil
}

// readIDXImages reads an IDX3 unsigned-byte image file (optionally gzipped).
func readIDXImages(path string) (*idxImages, error) {
	r, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	dims, err := readIDXHeader(r, path, idxImagesMagic, 3)
	if err != nil {
		return nil, err
	}
	im := &idxImages{N: dims[0], Rows: dims[1], Cols: dims[2]}
	// Each dimension is at most 2^28, so rows x cols fits an int64 but the
	// product with N may not: divide instead (a found-by-fuzzing overflow
	// let 2^28 x 3158064 x 3168304 through as 0 pixels).
	if int64(im.Rows)*int64(im.Cols) > (1<<34)/int64(im.N) {
		return nil, fmt.Errorf("%s: %d images of %dx%d is implausibly large", path, im.N, im.Rows, im.Cols)
	}
	// Read as the data arrive: a header may promise up to 16 GiB.
	if im.Pixels, err = fileio.ReadPromised(r, int64(im.N)*int64(im.Size())); err != nil {
		return nil, fmt.Errorf("%s: header promises %d images of %dx%d pixels, data is shorter: %w", path, im.N, im.Rows, im.Cols, err)
	}
	return im, nil
}

// readIDXLabels reads an IDX1 unsigned-byte label file (optionally gzipped).
func readIDXLabels(path string) ([]uint8, error) {
	r, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	dims, err := readIDXHeader(r, path, idxLabelsMagic, 1)
	if err != nil {
		return nil, err
	}
	labels, err := fileio.ReadPromised(r, int64(dims[0]))
	if err != nil {
		return nil, fmt.Errorf("%s: header promises %d labels, data is shorter: %w", path, dims[0], err)
	}
	return labels, nil
}

// readFashionMNIST reads the four Fashion-MNIST files in dir and returns the
// training images followed by the test images (70,000 for the real data),
// with their class labels.
func readFashionMNIST(dir string) (*idxImages, []uint8, error) {
	var all *idxImages
	var labels []uint8
	for part := 0; part < 2; part++ {
		ip, lp := filepath.Join(dir, fashionFiles[2*part]), filepath.Join(dir, fashionFiles[2*part+1])
		im, err := readIDXImages(ip)
		if err != nil {
			return nil, nil, err
		}
		lab, err := readIDXLabels(lp)
		if err != nil {
			return nil, nil, err
		}
		if len(lab) != im.N {
			return nil, nil, fmt.Errorf("%s has %d labels but %s has %d images", lp, len(lab), ip, im.N)
		}
		if all == nil {
			all = im
		} else {
			if im.Rows != all.Rows || im.Cols != all.Cols {
				return nil, nil, fmt.Errorf("%s: images are %dx%d, expected %dx%d like %s", ip, im.Rows, im.Cols, all.Rows, all.Cols, fashionFiles[0])
			}
			all.N += im.N
			all.Pixels = append(all.Pixels, im.Pixels...)
		}
		labels = append(labels, lab...)
	}
	return all, labels, nil
}

// pcaCacheVersion is part of the PCA cache key; bump it when PCA changes.
const pcaCacheVersion = "qvs-pca-v2"

// loadFashion builds the Fashion-MNIST pool: the 60,000 training images then
// the 10,000 test images; positive = class in cfg.Classes; features = the
// top cfg.Components principal components of the pixels scaled to [0, 1];
// metric euclidean; the exact Euclidean kNN graph with cfg.K neighbours and
// cfg.Similarity weights. PCA scores and the graph are cached in cacheDir
// under keys of the pixel bytes and the parameters.
func loadFashion(cfg FashionConfig, dataDir, cacheDir string, workers int) (*Pool, error) {
	if err := checkPositive("pool.fashion.components", cfg.Components); err != nil {
		return nil, err
	}
	if err := checkPositive("pool.fashion.k", cfg.K); err != nil {
		return nil, err
	}
	if s := cfg.BandwidthScale; !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("pool.fashion.bandwidth_scale: %v, expected a positive number", s)
	} else if s != 1 && cfg.Similarity != knn.SimilarityGaussian {
		return nil, fmt.Errorf("pool.fashion.bandwidth_scale: %v applies only to similarity %q, not %q", s, knn.SimilarityGaussian, cfg.Similarity)
	}
	if len(cfg.Classes) == 0 {
		return nil, fmt.Errorf("pool.fashion.classes: empty, expected the positive class ids (0-9)")
	}
	dir := dataPath(dataDir, cfg.Dir)
	im, labels, err := readFashionMNIST(dir)
	if err != nil {
		return nil, err
	}
	size := im.Size()
	if cfg.Components > size {
		return nil, fmt.Errorf("pool.fashion.components: %d, expected at most the %d pixels of an image", cfg.Components, size)
	}
	if cfg.K >= im.N {
		return nil, fmt.Errorf("pool.fashion.k: %d, expected less than the %d images", cfg.K, im.N)
	}
	if err := checkGraphSize("pool.fashion.k", cfg.K, im.N, "images"); err != nil {
		return nil, err
	}
	positive := map[uint8]bool{}
	for _, c := range cfg.Classes {
		if c < 0 || c > 255 {
			return nil, fmt.Errorf("pool.fashion.classes: %d is not a class id (0-9 for Fashion-MNIST)", c)
		}
		positive[uint8(c)] = true
	}
	p := &Pool{Name: KindFashion, Labels: make([]bool, im.N), Metric: knn.MetricEuclidean}
	for i, l := range labels {
		p.Labels[i] = positive[l]
	}
	if p.PositiveCount() == 0 {
		return nil, fmt.Errorf("pool.fashion.classes: no image of %s has a class in %v", dir, cfg.Classes)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00components=%d\x00%d x %d x %d\x00", pcaCacheVersion, cfg.Components, im.N, im.Rows, im.Cols)
	h.Write(im.Pixels)
	key := hex.EncodeToString(h.Sum(nil))
	m := cfg.Components
	scores, _, err := knn.CachedFloats(cacheDir, "pca", key, im.N*m, func() ([]float64, error) {
		res, err := linalg.PCA(im.N, size, m, func(i int, dst []float64) {
			for c, v := range im.Pixels[i*size : (i+1)*size] {
				dst[c] = float64(v) / 255
			}
		}, workers)
		if err != nil {
			return nil, err
		}
		flat := make([]float64, 0, im.N*m)
		for _, row := range res.Scores {
			flat = append(flat, row...)
		}
		return flat, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pool fashion: %w", err)
	}
	p.Dense = make([][]float64, im.N)
	for i := range p.Dense {
		p.Dense[i] = scores[i*m : (i+1)*m : (i+1)*m]
	}
	g, _, err := knn.CachedKNN(cacheDir, p.Dense, nil, cfg.K, knn.MetricEuclidean, workers)
	if err != nil {
		return nil, err
	}
	w, err := knn.EdgeWeights(g, cfg.Similarity)
	if err != nil {
		return nil, fmt.Errorf("pool.fashion.similarity: %w", err)
	}
	if cfg.BandwidthScale != 1 {
		// exp(-d²/(s·h²)) = exp(-d²/h²)^(1/s).
		for e, v := range w {
			w[e] = math.Pow(v, 1/cfg.BandwidthScale)
		}
	}
	p.SetGraph(g, w)
	return p, nil
}

package cmd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// itemInput is the set of items of `qvs score` / `qvs select`: either a
// kernel matrix or embeddings, plus optional qualities and ids.
type itemInput struct {
	n          int
	kernel     *mat.SymDense // set for --kernel
	embeddings *mat.Dense    // set for --embeddings (rows scaled to unit norm for cosine)
	quality    []float64     // nil when not given
	ids        []string      // nil when not given
}

// symmetryTol is the relative asymmetry |K_ij - K_ji| / max|K| accepted in a
// kernel file (values written with ~10 significant digits round-trip).
const symmetryTol = 1e-8

type inputFlags struct {
	kernel, embeddings, quality, ids, idColumn string
	normalize, linear                          bool
}

func loadItems(f inputFlags) (*itemInput, error) {
	if (f.kernel == "") == (f.embeddings == "") {
		return nil, usageErrorf("give exactly one of --kernel or --embeddings")
	}
	in := &itemInput{}
	var t *fileio.Table
	var err error
	path := f.kernel + f.embeddings
	if f.idColumn != "" {
		t, in.ids, err = fileio.SplitIDColumn(path, f.idColumn)
	} else {
		t, err = fileio.ReadTable(path, false)
	}
	if err != nil {
		return nil, err
	}
	if f.kernel != "" {
		if t.Rows != t.Cols {
			return nil, fmt.Errorf("%s: kernel must be square, got %d rows x %d columns", path, t.Rows, t.Cols)
		}
		var maxAbs float64
		for _, v := range t.Data {
			maxAbs = math.Max(maxAbs, math.Abs(v))
		}
		for i := 0; i < t.Rows; i++ {
			for j := i + 1; j < t.Cols; j++ {
				if math.Abs(t.At(i, j)-t.At(j, i)) > symmetryTol*maxAbs {
					return nil, fmt.Errorf("%s: kernel is not symmetric: row %d, column %d is %v but row %d, column %d is %v",
						path, i+1, j+1, t.At(i, j), j+1, i+1, t.At(j, i))
				}
			}
		}
		K := mat.NewSymDense(t.Rows, nil)
		for i := 0; i < t.Rows; i++ {
			for j := i; j < t.Cols; j++ {
				K.SetSym(i, j, 0.5*(t.At(i, j)+t.At(j, i)))
			}
		}
		if f.normalize {
			if K, err = vendi.Normalize(K); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		in.kernel, in.n = K, t.Rows
	} else {
		X := t.Dense()
		if !f.linear {
			for i := 0; i < t.Rows; i++ {
				row := X.RawRowView(i)
				norm := math.Sqrt(mat.Dot(mat.NewVecDense(len(row), row), mat.NewVecDense(len(row), row)))
				if norm == 0 {
					return nil, fmt.Errorf("%s: row %d is all zeros: cosine similarity is undefined (use --linear)", path, i+1)
				}
				for j := range row {
					row[j] /= norm
				}
			}
		}
		in.embeddings, in.n = X, t.Rows
	}
	if f.quality != "" {
		q, err := fileio.ReadVector(f.quality)
		if err != nil {
			return nil, err
		}
		if len(q) != in.n {
			return nil, fmt.Errorf("%s: %d qualities for %d items in %s", f.quality, len(q), in.n, path)
		}
		for i, v := range q {
			if v < 0 {
				return nil, fmt.Errorf("%s: row %d: quality %v is negative (qualities must be >= 0; rescale them, e.g. min-max to [0, 1])", f.quality, i+1, v)
			}
		}
		in.quality = q
	}
	if f.ids != "" {
		if in.ids != nil {
			return nil, usageErrorf("give --ids or --id-column, not both")
		}
		ids, err := fileio.ReadStrings(f.ids)
		if err != nil {
			return nil, err
		}
		if len(ids) != in.n {
			return nil, fmt.Errorf("%s: %d ids for %d items in %s", f.ids, len(ids), in.n, path)
		}
		in.ids = ids
	}
	return in, nil
}

// vendiKernel returns the greedy kernel of the items: the matrix, or the
// cosine / linear kernel of the embeddings (row dot products).
func (in *itemInput) vendiKernel() vendi.Kernel {
	if in.kernel != nil {
		return vendi.DenseKernel(in.kernel)
	}
	X := in.embeddings
	return vendi.FuncKernel(in.n, func(i, j int) float64 {
		a, b := X.RawRowView(i), X.RawRowView(j)
		var s float64
		for k := range a {
			s += a[k] * b[k]
		}
		return s
	})
}

func (in *itemInput) score(q float64) (float64, error) {
	if in.kernel != nil {
		return vendi.Score(in.kernel, q)
	}
	// Rows are already unit-norm for cosine; Linear keeps them as they are.
	return vendi.ScoreEmbeddings(in.embeddings, vendi.Linear, q)
}

func (f *inputFlags) register(c interface {
	StringVar(p *string, name, value, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
}) {
	c.StringVar(&f.kernel, "kernel", "", "kernel matrix, n x n (.csv or .npy)")
	c.StringVar(&f.embeddings, "embeddings", "", "embeddings, n x d (.csv or .npy); cosine kernel unless --linear")
	c.StringVar(&f.quality, "quality", "", "quality scores, one per item, >= 0 (.csv or .npy)")
	c.StringVar(&f.ids, "ids", "", "item ids, one per line (optional header 'id')")
	c.StringVar(&f.idColumn, "id-column", "", "name of an id column in the --kernel/--embeddings CSV (requires a header)")
	c.BoolVar(&f.normalize, "normalize", false, "rescale the kernel to unit diagonal, K_ij / sqrt(K_ii K_jj)")
	c.BoolVar(&f.linear, "linear", false, "embeddings: linear kernel X X^T instead of cosine")
}

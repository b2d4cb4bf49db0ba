package surrogate

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// Diversity kernels of MethodQVS, over the members of the qVS set (the
// pending items and the candidates).
const (
	// diversityKNN is the symmetrised kNN kernel (W + Wᵀ)/2 with unit
	// diagonal, W keeping each member's defaultDiversityK most similar
	// other members under the GP's kernel: the kernel qVS-AS uses on its
	// pool's graph (vendi.SymmetrizeKNN), built on the members.
	diversityKNN = "knn"
	// diversityDense is the GP's kernel itself between every two members.
	diversityDense = "dense"
)

// Diversities lists the diversity kernels.
var Diversities = []string{diversityKNN, diversityDense}

// defaultDiversityK is the neighbours per member of diversityKNN (the
// pool graphs' default k).
const defaultDiversityK = 20

// diversityKernel returns the diversity kernel named kind over members,
// from their Gram matrix g (row-major, unit diagonal).
func diversityKernel(kind string, g []float64, L, k int) (vendi.Kernel, error) {
	switch kind {
	case diversityDense:
		return vendi.DenseKernel(mat.NewSymDense(L, g)), nil
	case diversityKNN:
		k = min(k, L-1)
		nbr := make([][]int32, L)
		w := make([][]float64, L)
		ord := make([]int32, 0, L)
		for i := 0; i < L; i++ {
			row := g[i*L : (i+1)*L]
			ord = ord[:0]
			for j := 0; j < L; j++ {
				if j != i {
					ord = append(ord, int32(j))
				}
			}
			sort.SliceStable(ord, func(a, b int) bool { return row[ord[a]] > row[ord[b]] })
			for _, j := range ord[:k] {
				if row[j] > 0 {
					nbr[i] = append(nbr[i], j)
					w[i] = append(w[i], min(row[j], 1))
				}
			}
		}
		return vendi.SymmetrizeKNN(L, nbr, w)
	}
	return nil, fmt.Errorf("surrogate: unknown diversity kernel %q, expected knn or dense", kind)
}

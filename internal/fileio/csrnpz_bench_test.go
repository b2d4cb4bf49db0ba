package fileio

import (
	"math/rand/v2"
	"testing"
)

// knnLikeCSR is a kNN graph's CSR as `qvs graph` writes it: n rows of k
// neighbours (columns near the row, as a renumbered pool's are, with some
// far), weights in (0, 1].
func knnLikeCSR(n, k int) *CSR {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int, 0, n*k), Data: make([]float64, 0, n*k)}
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			c := rng.IntN(n)
			if j < k/2 {
				c = (i + 1 + rng.IntN(1000)) % n
			}
			m.Indices = append(m.Indices, c)
			m.Data = append(m.Data, 1-rng.Float64())
		}
		m.Indptr[i+1] = len(m.Indices)
	}
	return m
}

// BenchmarkEncodeCSRNPZ: the .npz of a 200,000-item k = 20 graph (`qvs
// graph --out`), 4,000,000 edges.
func BenchmarkEncodeCSRNPZ(b *testing.B) {
	m := knnLikeCSR(200_000, 20)
	var size countWriter
	b.ReportAllocs()
	for b.Loop() {
		size = 0
		if err := encodeCSRNPZ(&size, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size)/float64(len(m.Data)), "bytes/edge")
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

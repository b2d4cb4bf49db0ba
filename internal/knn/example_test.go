package knn_test

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/knn"
)

func ExampleDenseKNN() {
	x := [][]float64{{0}, {1}, {3}, {4}}
	g, _ := knn.DenseKNN(x, 2, knn.MetricEuclidean, 1)
	for i := range x {
		fmt.Println(i, g.Neighbors(i), g.Distances(i))
	}
	// Output:
	// 0 [1 2] [1 3]
	// 1 [0 2] [1 2]
	// 2 [3 1] [1 2]
	// 3 [2 1] [1 3]
}

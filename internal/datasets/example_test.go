package datasets_test

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/datasets"
)

func ExampleTanimoto() {
	a := []uint64{0b1011} // bits 0, 1, 3
	b := []uint64{0b0011} // bits 0, 1
	fmt.Println(datasets.Tanimoto(a, b))
	// Output: 0.6666666666666666
}

func ExampleParseFormula() {
	c, _ := datasets.ParseFormula("Ag20Al25La55")
	fmt.Println(c.Elements, c.Fractions())
	// Output: [Ag Al La] [0.2 0.25 0.55]
}

func ExampleLoad() {
	// The default pool needs no data: 4,000 clustered points, about 5 %
	// positive, with a 20-nearest-neighbour graph.
	p, err := datasets.Load(datasets.DefaultConfig(""), "", "", 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name, p.Len(), len(p.Neighbors[0]), p.Metric)
	// Output: synthetic 4000 20 euclidean
}

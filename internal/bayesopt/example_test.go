package bayesopt_test

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// The first points of the unscrambled 2-d Sobol' sequence.
func ExampleSobol() {
	s, _ := bayesopt.NewSobol(2)
	for _, p := range s.Points(4) {
		fmt.Println(p)
	}
	// Output:
	// [0 0]
	// [0.5 0.5]
	// [0.75 0.25]
	// [0.25 0.75]
}

// A trust region in a 12-d problem whose regions each get 2 points a batch:
// it halves after ceil(12/2) = 6 failed batches.
func ExampleTrustRegion() {
	tr := bayesopt.NewTrustRegion(bayesopt.DefaultTrustRegionRules(12, 2))
	tr.Recenter(100)
	fmt.Println(tr.Update([]float64{100.05}), tr.Length) // +0.05 < 1e-3 * 100: not enough
	fmt.Println(tr.Update([]float64{101}), tr.Length)    // > 100.05 * (1 + 1e-3)
	for i := 0; i < 5; i++ {
		tr.Update([]float64{0})
	}
	fmt.Println(tr.Update([]float64{0}), tr.Length)
	// Output:
	// failed 0.8
	// succeeded 0.8
	// shrunk 0.4
}

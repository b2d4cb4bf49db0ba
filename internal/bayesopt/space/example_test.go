package space_test

import (
	"fmt"
	"math"

	"github.com/qvs-dev/qvs/internal/bayesopt/space"
)

// A space with a log-scaled and an integer parameter: the engine searches
// log(ppm) and snaps rpm to integers; Values maps back.
func ExampleParse() {
	sp, err := space.Parse("space.yaml", []byte(`parameters:
  - {name: ppm, lower: 1, upper: 1000, scale: log}
  - {name: rpm, lower: 100, upper: 900, type: int}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := sp.Bounds()
	fmt.Printf("engine box: [%.4f, %.4f] x [%v, %v]\n", lo[0], hi[0], lo[1], hi[1])
	x := []float64{math.Log(10), 433.7}
	sp.Snap(x)
	fmt.Println(sp.Names(), sp.Values(x))
	_, err = space.Parse("space.yaml", []byte("parameters:\n  - {name: ppm, lower: 0, upper: 1000, scale: log}\n"))
	fmt.Println(err)
	// Output:
	// engine box: [0.0000, 6.9078] x [100, 900]
	// [ppm rpm] [10.000000000000002 434]
	// space.yaml: line 2, column 5: parameter 1 ("ppm"): scale: log needs lower > 0, got 0
}

package discrete_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
)

// Ask and tell on six candidates: 0-1 and 2-3-4 are groups of near
// duplicates, 5 stands alone. With items 0 and 2 evaluated, ucb asks for
// the two neighbours of the best item; qVS (q = 1) adds the unexplored
// item 5 first.
func ExampleEngine() {
	K := mat.NewSymDense(6, []float64{
		1, 0.9, 0.1, 0.1, 0.1, 0,
		0.9, 1, 0.1, 0.1, 0.1, 0,
		0.1, 0.1, 1, 0.9, 0.9, 0,
		0.1, 0.1, 0.9, 1, 0.9, 0,
		0.1, 0.1, 0.9, 0.9, 1, 0,
		0, 0, 0, 0, 0, 1,
	})
	for _, method := range []string{discrete.MethodUCB, discrete.MethodQVS} {
		s := discrete.DefaultSettings()
		s.Method, s.Q, s.Init, s.Batch = method, 1, 2, 2
		e, err := discrete.NewEngine("example", K, nil, s)
		if err != nil {
			panic(err)
		}
		if err := e.Tell(discrete.Evaluation{Index: 0, Value: 1}, discrete.Evaluation{Index: 2, Value: 3}); err != nil {
			panic(err)
		}
		batch, err := e.Ask(2)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %v\n", method, batch)
	}
	// Output:
	// ucb: [3 4]
	// qvs: [5 3]
}

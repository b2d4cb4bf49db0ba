package tasks_test

import (
	"context"
	"fmt"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks"
)

// The rover heading straight for the goal (every step 0.03) crosses four
// obstacles: f = -6.3773481093 in the original Python rover code.
func ExampleLookup() {
	obj, err := tasks.Lookup("rover")
	if err != nil {
		panic(err)
	}
	x := make([]float64, obj.Dim())
	for i := range x {
		x[i] = 0.03
	}
	f, err := obj.Evaluate(context.Background(), x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: d = %d, f = %.6f\n", obj.Name(), obj.Dim(), f)
	// Output: rover: d = 60, f = -6.377348
}

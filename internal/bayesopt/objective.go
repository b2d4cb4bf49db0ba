package bayesopt

// Objective is a black-box function to maximise over a box, with the task's
// own diversity distance between two solutions (reference notes §3).
// Evaluate must be safe for concurrent use and deterministic.
type Objective interface {
	Name() string
	Dim() int
	// Bounds returns the lower and upper corners of the search box.
	Bounds() (lower, upper []float64)
	// Evaluate returns f(x) for x inside the box.
	Evaluate(x []float64) float64
	// Distance is the task's diversity distance between two solutions.
	Distance(a, b []float64) float64
}

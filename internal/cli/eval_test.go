package cli

import (
	"slices"
	"testing"

	"github.com/qvs-dev/qvs/internal/bayesopt/tasks/rover"
)

// TestEvalRoverTrajectories: eval draws a rover campaign's trajectories
// (Figure 4) on the map cmd passes, which is the rover's own: its 34
// obstacles, start, goal and trajectory of a point.
func TestEvalRoverTrajectories(t *testing.T) {
	m, ok := evalPaths()["rover"]
	if !ok || m.Dim != rover.Dim || len(m.Obstacles) != 34 || m.Start != rover.Start || m.Goal != rover.Goal {
		t.Fatalf("rover map: dim %d, %d obstacles, start %v, goal %v", m.Dim, len(m.Obstacles), m.Start, m.Goal)
	}
	for i, o := range rover.Obstacles() {
		if m.Obstacles[i] != [2][2]float64{o.Low, o.High} {
			t.Errorf("obstacle %d: %v, want %v", i, m.Obstacles[i], o)
		}
	}
	x := make([]float64, rover.Dim)
	for i := range x {
		x[i] = 0.01 * float64(i%7)
	}
	if !slices.Equal(m.Path(x), rover.Trajectory(x)) {
		t.Error("the map's path is not rover.Trajectory")
	}
}

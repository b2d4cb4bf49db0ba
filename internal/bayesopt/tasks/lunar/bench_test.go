package lunar

import (
	"context"
	"testing"
)

// BenchmarkEvaluate is one objective evaluation: 50 episodes in parallel.
func BenchmarkEvaluate(b *testing.B) {
	task := New()
	for b.Loop() {
		task.Evaluate(context.Background(), DefaultX)
	}
}

// BenchmarkEpisode is one episode of the default heuristic (seed 0, 193 steps).
func BenchmarkEpisode(b *testing.B) {
	for b.Loop() {
		episode(DefaultX, 0)
	}
}

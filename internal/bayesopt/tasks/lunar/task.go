package lunar

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/ByteArena/box2d"

	"github.com/qvs-dev/qvs/internal/parallel"
)

// numEpisodes is the number of fixed-seed episodes (seeds 0..49) whose mean
// return is the objective.
const numEpisodes = 50

// dim is the number of heuristic weights.
const dim = 12

// Task is the lunar lander objective: the mean return of the heuristic
// controller with w = 2x over numEpisodes fixed-seed episodes, run in
// parallel. Deterministic and safe for concurrent use.
type Task struct {
	// Workers bounds the episodes run at once; 0 means runtime.GOMAXPROCS(0).
	Workers int
}

// New returns the lunar lander task.
func New() *Task { return &Task{} }

// Name returns "lunar".
func (*Task) Name() string { return "lunar" }

// dim returns 12.
func (*Task) Dim() int { return dim }

// Bounds returns [0, 1]^12.
func (*Task) Bounds() (lower, upper []float64) {
	lower, upper = make([]float64, dim), make([]float64, dim)
	for i := range upper {
		upper[i] = 1
	}
	return lower, upper
}

// Evaluate returns the mean return over episodes 0..49. A NaN in x, or x
// of another length than Dim, is an error.
func (t *Task) Evaluate(_ context.Context, x []float64) (float64, error) {
	if len(x) != t.Dim() {
		return math.NaN(), fmt.Errorf("lunar: x has %d entries, want %d", len(x), t.Dim())
	}
	returns := t.Returns(x)
	if returns == nil {
		return math.NaN(), fmt.Errorf("lunar: x has a NaN")
	}
	sum := 0.0
	for _, r := range returns { // in episode order: the mean is bitwise reproducible
		sum += r
	}
	return sum / numEpisodes, nil
}

// Returns runs the numEpisodes episodes and returns their returns in seed
// order, or nil if x has a NaN.
func (t *Task) Returns(x []float64) []float64 {
	if len(x) != dim {
		panic("lunar: x must have 12 entries")
	}
	for _, v := range x {
		if math.IsNaN(v) {
			return nil
		}
	}
	workers := t.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, numEpisodes)
	returns := make([]float64, numEpisodes)
	parallel.Blocks(numEpisodes, 1, workers, func(_, ep, _ int) {
		returns[ep] = runEpisode(x, uint64(ep))
	})
	return returns
}

// Distance is the Euclidean distance in x, the ROBOT code's lunar distance.
func (*Task) Distance(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

func runEpisode(x []float64, seed uint64) float64 {
	if raceDetector {
		// See race.go: the port's statistics counters are unsynchronised.
		raceMu.Lock()
		defer raceMu.Unlock()
	}
	total, _ := episode(x, seed)
	return total
}

var raceMu sync.Mutex

// box2dOnce guards the port's lazily built contact-function table
// (s_registers, filled on the first contact of the process without a lock):
// one single-threaded warm-up fills it before any episode runs, after which
// it is only read.
var box2dOnce sync.Once

func warmUpBox2D() {
	world := box2d.MakeB2World(box2d.MakeB2Vec2(0, -10))
	bd := box2d.MakeB2BodyDef()
	ground := world.CreateBody(&bd)
	edge := box2d.MakeB2EdgeShape()
	edge.Set(box2d.MakeB2Vec2(-1, 0), box2d.MakeB2Vec2(1, 0))
	fd := box2d.MakeB2FixtureDef()
	fd.Shape = &edge
	fd.Filter = box2d.MakeB2Filter()
	ground.CreateFixtureFromDef(&fd)
	bd = box2d.MakeB2BodyDef()
	bd.Type = box2d.B2BodyType.B2_dynamicBody
	bd.Position = box2d.MakeB2Vec2(0, 0.05)
	body := world.CreateBody(&bd)
	box := box2d.MakeB2PolygonShape()
	box.SetAsBox(0.1, 0.1)
	fd = box2d.MakeB2FixtureDef()
	fd.Shape = &box
	fd.Density = 1
	fd.Filter = box2d.MakeB2Filter()
	body.CreateFixtureFromDef(&fd)
	world.Step(1.0/fps, 1, 1) // overlapping fixtures: the first contact is created here
}

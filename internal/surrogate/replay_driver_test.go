//go:build replay

package surrogate

// The tuning replay of Request's settings (not a test: go test -tags
// replay -run Replay ./internal/surrogate, with the environment below).
// It replays the scored-library protocol (an initial batch of R_BATCHFRAC
// of the pool drawn by PCG(seed, 77), then R_ROUNDS batches of the same
// size, a hit in the top R_HITFRAC of the scores, ties included) for every
// configuration of R_CONFIGS and prints per seed the hits found, VS_1 of
// the hits (Tanimoto) and the largest wall and CPU seconds of a round.
//
//	R_POOL    packed fingerprints (.npy, scripts/fingerprints.py)
//	R_SCORES  one score per pool row, in row order: a CSV with a header
//	          (the value in its second column) or one number per line
//	R_MIN=1   lower is better;  R_SEEDS=1,2,3
//	R_CONFIGS "greedy;qvs;qvs,hist=all,p=0.5": a method, then key=value
//	          settings: acq, beta, q, c (candidates per batch), p
//	          (QualityPower), rank (QualityRank), hist (History), hp
//	          (HitPower), tau (HitTopFraction), div, exact (MaxExact)
//	R_VERBOSE=1  a line a round: labels, sds computed (Result.Evaluated),
//	          candidates, CPU seconds
import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/parallel"
	"github.com/qvs-dev/qvs/internal/vendi"
)

func cpuTime() time.Duration { return time.Duration(parallel.CPUSeconds() * 1e9) }

func env(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func TestReplay(t *testing.T) {
	minimize := env("R_MIN", "0") == "1"
	cfg := datasets.DefaultConfig(datasets.KindCSV)
	cfg.CSV.File = env("R_POOL", "")
	cfg.CSV.Metric = knn.MetricTanimoto
	pool, err := datasets.LoadWith(cfg, "", "", knn.GraphOptions{Workers: 2, FeaturesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(env("R_SCORES", ""))
	if err != nil {
		t.Fatal(err)
	}
	var y []float64
	for k, l := range strings.Fields(string(raw)) {
		if _, v, ok := strings.Cut(l, ","); ok {
			if k == 0 {
				continue // header
			}
			l = v
		}
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("%s line %d: %v", env("R_SCORES", ""), k+1, err)
		}
		y = append(y, v)
	}
	n := pool.Len()
	if len(y) != n {
		t.Fatalf("%d values %d items", len(y), n)
	}
	better := func(v float64) float64 {
		if minimize {
			return -v
		}
		return v
	}
	ord := make([]int, n)
	for i := range ord {
		ord[i] = i
	}
	sort.Slice(ord, func(a, b int) bool { return better(y[ord[a]]) > better(y[ord[b]]) })
	frac, _ := strconv.ParseFloat(env("R_HITFRAC", "0.01"), 64)
	nh := int(math.Ceil(frac * float64(n)))
	isHit := make([]bool, n)
	thrHit := better(y[ord[nh-1]])
	nh = 0
	for i := range y {
		if better(y[i]) >= thrHit {
			isHit[i] = true
			nh++
		}
	}
	bfrac, _ := strconv.ParseFloat(env("R_BATCHFRAC", "0.01"), 64)
	b := int(math.Round(bfrac * float64(n)))
	rounds, _ := strconv.Atoi(env("R_ROUNDS", "5"))
	kern := newTanimotoKernel(pool.Bits)
	fmt.Printf("# %s %s n=%d hits=%d batch=%d rounds=%d\n", cfg.CSV.File, env("R_SCORES", ""), n, nh, b, rounds)
	for _, s := range strings.Split(env("R_SEEDS", "1,2,3"), ",") {
		seed, _ := strconv.ParseUint(s, 10, 64)
		rng := rand.New(rand.NewPCG(seed, 77))
		init := rng.Perm(n)[:b]
		for _, c := range strings.Split(env("R_CONFIGS", "qvs;greedy"), ";") {
			f := strings.Split(c, ",")
			req := Request{Method: f[0], Minimize: minimize, Batch: b, Seed: seed, Workers: 2}
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				x, _ := strconv.ParseFloat(v, 64)
				switch k {
				case "acq":
					req.Acquisition = v
				case "beta":
					req.Beta = x
				case "q":
					req.Q = vendi.Order(x)
				case "c":
					req.Candidates = int(x * float64(b))
				case "p":
					req.QualityPower = x
				case "rank":
					req.QualityRank = true
				case "hist":
					req.History = v
				case "div":
					req.Diversity = v
				case "hp":
					req.HitPower = x
				case "tau":
					req.HitTopFraction = x
				case "exact":
					req.MaxExact = int(x)
				default:
					t.Fatalf("config %q: key %q", c, k)
				}
			}
			obs := append([]int(nil), init...)
			var maxRound, maxCPU time.Duration
			for r := 0; r < rounds; r++ {
				req.Observed = obs
				req.Values = make([]float64, len(obs))
				for k, i := range obs {
					req.Values[k] = y[i]
				}
				t0 := time.Now()
				c0 := cpuTime()
				res, err := Suggest(context.Background(), pool, req)
				maxCPU = max(maxCPU, cpuTime()-c0)
				if err != nil {
					t.Fatal(c, err)
				}
				maxRound = max(maxRound, time.Since(t0))
				if os.Getenv("R_VERBOSE") != "" {
					fmt.Printf("  round %d labels %d evaluated %d cand %d cpu %.2f\n", r, res.Scored, res.Evaluated, res.Candidates, (cpuTime() - c0).Seconds())
				}
				obs = append(obs, res.Picks...)
			}
			var hits []int
			for _, i := range obs {
				if isHit[i] {
					hits = append(hits, i)
				}
			}
			vs := 0.0
			if len(hits) > 0 {
				vs, _ = vendi.Score(mat.NewSymDense(len(hits), gram(kern, hits, 2)), 1)
			}
			fmt.Printf("seed %d %-28s hits %4d  VS1 %7.2f  maxround %6.2fs cpu %6.2fs\n", seed, c, len(hits), vs, maxRound.Seconds(), maxCPU.Seconds())
		}
	}
}

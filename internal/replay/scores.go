package replay

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
)

// ReadScores reads a library's scores: a CSV (or CSV.gz) with the header
// id,value or index,value, the evaluations format of `qvs bayesopt
// suggest --kernel` (discrete.ReadEvaluations; scripts/fingerprints.py's
// OUT.scores.csv), ids as the pool names its items (ids[i] is item i). It
// returns the scores by pool index. Every item needs exactly one finite
// score, since a replay reveals the score of every item it acquires: a
// failed row (an empty, nan or failed value) or an item without a row is
// an error naming the file and the item.
func ReadScores(path string, ids []string) ([]float64, error) {
	evals, err := discrete.ReadEvaluations(path, ids)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, len(ids))
	scored := make([]bool, len(ids))
	for _, e := range evals {
		if e.Failed || scored[e.Index] {
			return nil, fmt.Errorf("%s: item %q has a failed score: a replay needs every item's score%s", path, ids[e.Index], scoredOnlyHint)
		}
		scores[e.Index], scored[e.Index] = e.Value, true
	}
	missing, first := 0, -1
	for i, ok := range scored {
		if !ok {
			if first < 0 {
				first = i
			}
			missing++
		}
	}
	if missing > 0 {
		return nil, fmt.Errorf("%s: %d of the pool's %d items have no score (the first: %q); a replay needs every item's score%s", path, missing, len(ids), ids[first], scoredOnlyHint)
	}
	return scores, nil
}

// scoredOnlyHint says how to make a pool of the scored molecules alone.
const scoredOnlyHint = " (scripts/fingerprints.py --scored-only writes a pool of the molecules with a finite score)"

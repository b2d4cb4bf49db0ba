package space

import (
	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Solutions selects the final m solutions among the observed rows by
// bayesopt.SelectSolutions (the band rule; failed rows never count) at
// order q under the space's diversity distance, and summarises them. The
// indices are into obs; fed the records of a `qvs bayesopt --space` run
// with that run's q (1 for methods other than qvs) and M, they are the
// rows of its runs/KEY.solutions.csv.
func Solutions(s *Space, obs []Observation, m int, q vendi.Order) ([]int, bayesopt.SolutionSet, error) {
	evs := make([]bayesopt.Evaluation, len(obs))
	for i, o := range obs {
		evs[i] = bayesopt.Evaluation{X: o.engine(s), Value: o.Value, Failed: o.Failed}
	}
	idx, err := bayesopt.SelectSolutions(s, evs, m, q)
	if err != nil {
		return nil, bayesopt.SolutionSet{}, err
	}
	set, err := bayesopt.Summarise(s, evs, idx)
	return idx, set, err
}

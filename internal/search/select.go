package search

import (
	"fmt"
	"math"
	"strconv"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// SELECT is the UCB-style diverse search policy of Vanchinathan et al. 2015
// as the authors run it with the kNN model: with p the
// probability of a candidate and v = p(1 - p) its Bernoulli variance,
//
//	SELECT(x) = (1 - λ)(p + β √v) + (λ / 2) log(1 + v).
//
// A batch is built greedily, fantasising each pick's label.
type SELECT struct {
	Beta, Lambda float64
	Fantasy      Fantasy
}

func (SELECT) Name() string { return "select" }

func (s SELECT) Params() string {
	return "beta=" + strconv.FormatFloat(s.Beta, 'g', -1, 64) +
		" lambda=" + strconv.FormatFloat(s.Lambda, 'g', -1, 64) +
		" fantasy=" + s.Fantasy.String()
}

// Score is SELECT's acquisition value of a candidate with probability p.
func (s SELECT) Score(p float64) float64 {
	v := p * (1 - p)
	return (1-s.Lambda)*(p+s.Beta*math.Sqrt(v)) + s.Lambda/2*math.Log1p(v)
}

// Scores returns SELECT(x) for every item (labelled items get -Inf).
func (s SELECT) Scores(m *Model) []float64 {
	score := m.Probabilities(nil)
	for i, p := range score {
		if m.Observed(i) {
			score[i] = math.Inf(-1)
		} else {
			score[i] = s.Score(p)
		}
	}
	return score
}

func (s SELECT) Batch(st *State, b int) ([]int, error) {
	if math.IsNaN(s.Beta) || math.IsNaN(s.Lambda) {
		return nil, fmt.Errorf("search: SELECT beta and lambda must be numbers")
	}
	if err := st.checkBatch(b); err != nil {
		return nil, err
	}
	fm := st.fantasyModel(s.Fantasy)
	score := s.Scores(fm)
	picks := make([]int, 0, b)
	for len(picks) < b {
		x, err := argmaxUnobserved(score, fm)
		if err != nil {
			return nil, err
		}
		picks = append(picks, x)
		fm.Observe(x, bool(s.Fantasy))
		score[x] = math.Inf(-1)
		// Only x's reverse neighbours change probability.
		rev, _ := fm.g.rev.Of(x)
		for _, j := range rev {
			if !fm.Observed(int(j)) {
				score[j] = s.Score(fm.Probability(int(j)))
			}
		}
	}
	return picks, nil
}

// selectMethod is SELECT in a campaign: one run per (beta, lambda) of
// select.betas x select.lambdas, each with select.fantasy.
var selectMethod = Method{
	Name: "select",
	Grid: []string{"select.betas", "select.lambdas"},
	New: func(s PolicySettings, _ vendi.Kernel) Policy {
		return SELECT{Beta: s.Beta, Lambda: s.Lambda, Fantasy: s.Fantasy}
	},
	Settings: func(p Protocol) ([]Setting, error) {
		fan, err := ParseFantasy(p.SELECT.Fantasy)
		if err != nil {
			return nil, fmt.Errorf("select.fantasy: %w", err)
		}
		if len(p.SELECT.Betas) == 0 || len(p.SELECT.Lambdas) == 0 {
			return nil, fmt.Errorf("method select needs select.betas and select.lambdas")
		}
		var out []Setting
		for _, b := range p.SELECT.Betas {
			for _, l := range p.SELECT.Lambdas {
				if err := CheckBeta(b); err != nil {
					return nil, fmt.Errorf("select.betas: %w", err)
				}
				if err := CheckLambda(l); err != nil {
					return nil, fmt.Errorf("select.lambdas: %w", err)
				}
				out = append(out, Setting{Labels: []string{"b" + num(b), "l" + num(l), fan.String()}, Settings: PolicySettings{Beta: b, Lambda: l, Fantasy: fan}})
			}
		}
		return out, nil
	},
}

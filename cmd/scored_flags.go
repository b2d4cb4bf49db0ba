package cmd

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/surrogate"
)

// bindScoreSettings binds the flags of the scored settings on t to s
// (cli.ScoreSettings, all but --minimize, which each command binds
// itself): the one declaration `as suggest` and `as replay` share. A field
// stays zero, surrogate's default, unless its flag is given; --help shows
// the default. replay: the flags are also config keys (a replay's
// config.yaml records them) and say that their hits are the model's, not
// the benchmark's --top; else (as suggest) each usage starts "scores: ".
func bindScoreSettings(t *configkeys.Table, f *pflag.FlagSet, s *cli.ScoreSettings, replay bool) {
	key := func(flag string) string {
		if !replay {
			return ""
		}
		return strings.ReplaceAll(flag, "-", "_")
	}
	pre, hit := "scores: ", ""
	if replay {
		pre, hit = "", " (the model's hits; the benchmark's hits are --top)"
	}
	configkeys.Bind(t, optFloatVar(f), "hit-threshold", key("hit-threshold"), nil, pre+"a hit scores at least T (at most T with --minimize); used by --acquisition phit and --history expected|gain, and reported"+hit, &s.HitThreshold)
	configkeys.Bind(t, floatVar(f, fractionIn01), "hit-top-fraction", key("hit-top-fraction"), surrogate.DefaultHitTopFraction, pre+"without --hit-threshold, a hit is in the best fraction f of the scored items"+hit, &s.HitTopFraction)
	configkeys.BindChoice(t, "acquisition", key("acquisition"), surrogate.DefaultAcquisition, surrogate.Acquisitions, pre+"quality of qvs and ranking of top: "+strings.Join(surrogate.Acquisitions, "|"), &s.Acquisition)
	configkeys.Bind(t, floatVar(f, positive), "ucb-beta", key("ucb-beta"), surrogate.DefaultBeta, pre+"exploration weight of ucb, mean + sqrt(beta) sd", &s.UCBBeta)
	configkeys.BindChoice(t, "gp-kernel", key("gp-kernel"), "auto", append([]string{"auto"}, surrogate.Kernels...), pre+"GP kernel on the pool's features: auto|"+strings.Join(surrogate.Kernels, "|")+" (auto: tanimoto for fingerprints, minmax for counts with --metric tanimoto, else matern52)", &s.GPKernel)
	configkeys.BindChoice(t, "diversity", key("diversity"), surrogate.DefaultDiversity, surrogate.Diversities, pre+"diversity kernel of qvs over the candidates: dense (the GP kernel; with q = 2 a closed-form greedy) or knn (symmetrised 20-nearest-neighbour graph of the GP kernel)", &s.Diversity)
	configkeys.BindChoice(t, "history", key("history"), surrogate.DefaultHistory, surrogate.Histories, pre+"what qvs's diversity term (q = 2, dense) counts beside the batch: "+strings.Join(surrogate.Histories, "|")+"; hits and all: the scored hits or all scored items; expected: the expected hit set (the scored hits, and each candidate weighted by its probability of being a hit), gain: its expected gain per pick (docs/results.md, \"setting by setting\", has the trade-offs); the default applies with --q 2 and --diversity dense, none otherwise", &s.History)
	hp := surrogate.DefaultHitPower
	configkeys.Bind(t, optFloatVar(f), "hit-power", key("hit-power"), &hp, pre+"with --history expected or gain, each quality times (p/p_max)^a, p the candidate's probability of being a hit, p_max the largest (0: none)", &s.HitPower)
	configkeys.BindMinInt(t, "candidates", key("candidates"), 0, 1, pre+"items of highest acquisition the qvs greedy chooses among (default "+strconv.Itoa(surrogate.DefaultCandidateFactor)+" x batch, "+strconv.Itoa(surrogate.MinCandidates)+" to "+strconv.Itoa(surrogate.MaxCandidates)+")", &s.Candidates)
}

// checkConfigZeros refuses a replay config whose ucb_beta,
// hit_top_fraction or candidates is 0: the field's zero is the default,
// so the value would be taken for a key left out (the flags refuse it when
// parsed: positive, fractionIn01, BindMinInt).
func checkConfigZeros(g *GlobalOptions) error {
	for _, k := range []struct{ flag, want string }{
		{"ucb-beta", "expected a finite number > 0"},
		{"hit-top-fraction", "expected a fraction in (0, 1]"},
		{"candidates", "expected at least 1"},
	} {
		key := strings.ReplaceAll(k.flag, "-", "_")
		v, err := peekConfig(g, key)
		if err != nil {
			return err
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f == 0 {
			return cli.Usagef("config %s: --%s (key %s) %s: %s", g.Config, k.flag, key, v, k.want)
		}
	}
	return nil
}

// positive and fractionIn01 check --ucb-beta and --hit-top-fraction when
// they are parsed: their zero is the default's field value, never a value
// to give (ScoreSettings.Check refuses the others a config gives).
func positive(v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return errors.New("expected a finite number > 0")
	}
	return nil
}

func fractionIn01(v float64) error {
	if !(v > 0 && v <= 1) {
		return errors.New("expected a fraction in (0, 1]")
	}
	return nil
}

// optFloat is a float64 flag value whose field is a pointer, nil until
// the flag is given (a setting whose every value, 0 included, differs
// from leaving it out); def is the default --help shows (nil: none).
type optFloat struct {
	p   **float64
	def *float64
}

func (o optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return errors.New("expected a number")
	}
	*o.p = &v
	return nil
}

func (o optFloat) String() string {
	switch {
	case o.p != nil && *o.p != nil:
		return cli.Float(**o.p)
	case o.def != nil:
		return cli.Float(*o.def)
	}
	return ""
}

func (o optFloat) Type() string { return "float64" }

// optFloatVar defines an optFloat flag, for configkeys.Bind.
func optFloatVar(fs *pflag.FlagSet) func(p **float64, name string, def *float64, usage string) {
	return func(p **float64, name string, def *float64, usage string) {
		fs.Var(optFloat{p, def}, name, usage)
	}
}

package cmd

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/surrogate"
)

// asSuggestOptions are the flags of `qvs as suggest`: the pool and the
// protocol keys (asOptions, resolveASConfig) and the run's options.
type asSuggestOptions struct {
	as  asOptions
	run cli.ASSuggestOptions
}

func newASSuggestCmd(g *GlobalOptions) *cobra.Command {
	o := &asSuggestOptions{}
	c := &cobra.Command{
		Use:   "suggest (--pool pool.csv|X.npy [--ids ids.txt] [--knn auto|exact|approx] [--id-column id] [--features f1,f2,... | --feature-prefix x | --fingerprint-column fp] [--exclude-columns c1,...] [--metric euclidean|cosine|tanimoto] [--k 20] | --graph W.npz|edges.csv [--ids ids.csv] | --kernel K.npy|K.csv [--k 20] [--ids ids.csv] | --config configs/TASK.yaml | --pool-dir DIR) [--observed FILE] [--pending FILE] --batch B --method " + strings.Join(search.Methods, "|") + " (scores: " + strings.Join(surrogate.Methods, "|") + ") [--q Q] [--prior a1] [--minimize] [--acquisition " + strings.Join(surrogate.Acquisitions, "|") + "] [--format csv|table|json]",
		Short: "Suggest the next batch of items to label or score, given the labels or scores observed so far",
		Long: `Fits the kNN model to the labelled items in FILE (CSV with header index,label
or id,label; label 1 = positive, 0 = negative) and prints the next batch the
chosen policy queries. Columns: rank, index (0-based item), id, probability
(the kNN model's Pr(y = 1) given FILE) and qvs (qVS_Q in the table), the
paper's eq. 7 value of the observed positives (quality 1) plus the picks so
far (quality = probability) under order --q.

The first batch (no labels yet: no --observed, or FILE with its header
alone) is a cold start: every item has the same probability, the prior a1,
so qVS-AS's eq. 7 is a1 x VS_q of the batch and its greedy picks the most
diverse batch under the kNN kernel (greedy on VS_q; pending items first);
the prior scales the probability and qvs columns, never the batch. One-step,
ECI, SELECT and ENS have only ties to rank, so they return that same batch
(said on stderr; JSON: cold_start, picked_by) and rank from the next call
on; random stays random. Then append each batch's labels to FILE and ask
again.

Large pools: --pool X.npy, a float32/float64/uint8 matrix one row per item
(ids from --ids FILE, one per line, else the row index; uint8 with --metric
tanimoto holds fingerprints packed MSB-first as numpy.packbits writes them).
From ` + strconv.Itoa(knn.ApproxMinItems) + ` items (` + strconv.Itoa(knn.ApproxMinItemsTanimoto) + ` with --metric tanimoto) the kNN graph of
--pool is approximate (--knn auto; exact or approx to choose): its recall@k, measured against brute force on
sampled rows, is printed on stderr. Graphs are cached under --cache-dir,
keyed by the features.

The pool: --pool pool.csv, one row per item with a header, the feature
columns (--features or --feature-prefix; default every column but --id-column,
a column named label and --exclude-columns) and the kNN graph built with
--metric and --k; or your own similarity: --graph W.npz (a CSR matrix
saved by scipy.sparse.save_npz, row i = i's neighbours) or --graph
edges.csv (header i,j,w with 0-based indices, or id_i,id_j,w), used as
given, or --kernel K.npy|K.csv (a dense n x n similarity, whose kNN graph
keeps the --k largest entries of each row, the diagonal excluded, ties to
the lower index), with --ids ids.csv naming the items (one per line, in
order); weights must lie in [0, 1], self loops are ignored, zeros dropped;
or a config (--config, pool.kind csv or graph, see configs/README.md); or
the authors' folder format (--pool-dir, described in configs/README.md).
The pool needs no labels: only the labels in FILE are used. Columns never
leak into the features: a column without a name (the index pandas' to_csv
writes) is read as the row index when it holds 0..n-1, as the ids when its
values are unique (said on stderr), else refused; a column named like a
label or target (target, y without x, class, activity, active, is_*) is
refused unless --exclude-columns leaves it out or --features names it.

Fingerprints (chemists' libraries): --metric tanimoto compares items by
Tanimoto similarity, |a AND b| / |a OR b|, on a text column of fingerprints
(--fingerprint-column fp; --fingerprint-format bits: '0'/'1' characters, bit
0 first, as RDKit's ToBitString; hex: chemfp's FPS convention, two hex
digits per byte, bytes in order, bit i is 1<<(i%8) of byte i/8, so '04' is
'00100000') or on the feature columns: 0/1 bits, or non-negative integer
counts compared by sum(min)/sum(max), which equals Tanimoto on 0/1. Two
all-zero fingerprints have similarity 1, an all-zero and any other 0. The
kNN graph is exact; an edge weighs the Tanimoto similarity, ties go to the
lower index, edges of similarity 0 are dropped.

The diversity kernel of qVS-AS (and the qvs column) is the symmetrised
graph, k(i, j) = (W_ij + W_ji)/2 for i != j with unit diagonal, W the kNN
graph's weights (0 off the graph): items that are not neighbours either
way count as dissimilar.

The model's prior a1 (its Pr(y = 1) far from every label) is --prior a1, else
the config key prior (a number or estimate), else the estimate from your
labels (empirical Bayes): the a1 that maximises the leave-one-out
likelihood of the labels in FILE under the kNN model, with one pseudo-label
of each class. A label with no labelled neighbour counts as one draw of a1;
a positive found next to other positives is explained by them and barely
moves a1, so labels a search gathered around its positives do not inflate
it, and the pool's size plays no part. With no label a1 = 1/2, with one
positive alone 2/3 (unknown: the next batch explores). How close it comes
to the true prevalence and what it costs in positives found:
docs/results.md, "The default prior". 'prior: prevalence' (the paper
configs) is the authors' rule: the pool's true prevalence, read from every
label of the pool, which a real user does not have; suggest refuses it from
a config and takes it only as --prior prevalence on a pool labelled
throughout. The prior used is printed on stderr.

qvs and the hyperparameters --threshold (eci), --beta/--lambda (select) and
--fantasy (eci, select, ens) choose the policy; ens looks ahead over
--remaining queries (this batch included; default: the config's budget).

Experiments still running: --pending FILE (CSV with header index or id,
resolved as in --observed) lists items chosen earlier whose labels are not
known yet. They are never suggested and not labelled: the policy treats them
as the first picks of this batch (qvs: members of the set with their
probability as quality, also in the qvs column; eci, select, ens: their
labels fantasised as --fantasy says; one-step, random: skipped). So with the
first j items of a batch pending, the output is the rest of that batch (for
ens with --remaining j smaller: pending queries are spent). An item both
pending and in --observed is an error: remove it from the pending file once
its label is known.
Exact ties (common among items far from every label) are broken at random
from --seed, as campaigns do (config key ties: index picks the lowest
index); random draws from --seed too.

Scores instead of labels (docking scores, IC50, yields): FILE with a value
(or score) column instead of label, e.g. header id,value, fits a Gaussian
process to the scores on the pool's own features (--gp-kernel auto: Tanimoto
for fingerprints, MinMax for counts with --metric tanimoto, else Matern-5/2;
constant mean, signal and noise variance and length scale by maximum
marginal likelihood on standardised scores; exact up to 3,000 scores, beyond
that the DTC approximation on 600 inducing scores, the best half and a random
half) and needs no kNN graph. --minimize when lower is better. A row whose
value is empty, nan or failed (any case), or whose status column says failed,
is a failed measurement: left out of the fit, never suggested again. Methods:
qvs (default; the paper's Algorithm 3: greedy qVS_Q over the 4 x batch items
of highest acquisition, at least 100 and at most 4,000, with the acquisition
as quality and a diversity kernel over them: --diversity dense, the GP
kernel itself, or knn, its symmetrised 20-nearest-neighbour graph; --q
defaults to 2 with scores: on the dense kernel VS_2 = (tr K)^2/||K||_F^2 has a
closed form, so the greedy costs one kernel row per pick, and it found about as
many hits as q = 1), greedy (the top posterior means), top (the top acquisitions) and
random. --acquisition ucb (default: mean + sqrt(--ucb-beta) x sd, beta 1,
min-max scaled to [0, 1] over the candidates as quality), ei (expected
improvement over the best score), phit (probability of a hit: a score beyond
--hit-threshold, else in the best --hit-top-fraction of the scores, default
0.05), mean, or thompson (one joint draw from the posterior over the
candidates, reproducible from --seed). Defaults chosen on photoswitch
wavelengths and RDKit logP and QED of a screening library (docs/results.md).
Columns: rank, index, id, the acquisition (none with --acquisition mean:
it is the mean), the posterior mean and sd of the score (your units and
sign), and for qvs the quality (the acquisition's, times (p/p_max)^a, p the
probability of a hit and p_max the largest among the candidates, under
--history expected or gain) and the qvs column
(qVS_Q of the pending items and the picks so far; under --history expected
or gain, the default, qVS_2 of the expected hit set: their mean quality
times VS_2 of the scored hits, weight 1, and of them, weight p); stderr
describes the fitted GP and counts the hits.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runASSuggest(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.as.poolDir, "pool-dir", "", "pool in the authors' folder format")
	t := configkeys.NewTable(f)
	o.as.table = t
	o.as.csv.register(t, &o.as.cfg)
	r := &o.run
	*r = cli.DefaultASSuggestOptions()
	l, s := &r.Labels, &r.Scores
	configkeys.BindFunc(t, "seed", "seed", func() { o.as.cfg.Seed = g.Seed })
	configkeys.Bind(t, f.StringVar, "observed", "", "", "CSV of labelled items: header index,label or id,label (- reads stdin); none, or the header alone, for the first batch (cold start: the most diverse); or scored items: header index,value or id,value (a GP, see below)", &r.Observed)
	configkeys.Bind(t, f.StringVar, "pending", "", "", "CSV of items whose experiments are still running: header index or id; never suggested, treated as this batch's first picks (- reads stdin)", &r.Pending)
	configkeys.Bind(t, f.IntVar, "batch", "", r.Batch, "number of items to suggest (at most 500; with scores at most 10,000)", &r.Batch)
	configkeys.Bind(t, f.StringVar, "method", "", r.Method, "policy: "+strings.Join(search.Methods, "|"), &r.Method)
	configkeys.BindValue(t, "q", "", r.Q, "order q of qVS-AS and of the qvs column (inf allowed; with scores the default is 2)", &r.Q)
	configkeys.BindValue(t, "format", "", r.Format, "output format: table, csv or json (one document: docs/json.md)", &r.Format)
	configkeys.Bind(t, f.BoolVar, "raw-ids", "", false, "keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)", &r.RawIDs)
	// 0/1 labels only (r.Labels) ...
	configkeys.Bind(t, f.StringVar, "prior", "prior", "", "kNN model prior a1: a number in (0, 1), estimate or prevalence (default: the config's prior key, else estimate)", &o.as.cfg.Prior, &l.Prior)
	configkeys.Bind(t, floatVar(f, search.CheckThreshold), "threshold", "", l.Threshold, "ECI similarity threshold", &l.Threshold)
	configkeys.Bind(t, floatVar(f, search.CheckBeta), "beta", "", l.Beta, "SELECT beta", &l.Beta)
	configkeys.Bind(t, floatVar(f, search.CheckLambda), "lambda", "", l.Lambda, "SELECT lambda", &l.Lambda)
	configkeys.Bind(t, f.StringVar, "fantasy", "", l.Fantasy, "fantasised label of batch policies: pessimistic or optimistic", &l.Fantasy)
	configkeys.Bind(t, f.IntVar, "remaining", "", 0, "ENS: queries left including this batch (default: the config's budget)", &l.Remaining)
	// ... and scores only (r.Scores).
	configkeys.Bind(t, f.BoolVar, "minimize", "", false, "scores: lower is better (docking scores, IC50)", &s.Minimize)
	bindScoreSettings(t, f, s, false)
	return c
}

// runASSuggest fills the run's options from the flags (the settings
// table applies them; which were given decides defaults and refusals)
// and runs it; the pool and protocol are resolved when the run asks.
func runASSuggest(c *cobra.Command, g *GlobalOptions, o *asSuggestOptions) error {
	t, r := o.as.table, &o.run
	g.table = t
	t.Apply()
	r.LabelFlags, r.ScoreFlags = givenFlags(t, &r.Labels), givenFlags(t, &r.Scores)
	r.QGiven, r.Labels.PriorGiven, r.Labels.RemainingGiven = t.Changed("q"), t.Changed("prior"), t.Changed("remaining")
	r.OwnGraph = t.Changed("graph") || t.Changed("kernel")
	r.PoolGiven = g.Config != "" || r.OwnGraph || t.Changed("pool-dir") || t.Changed("pool")
	r.Resolve = func() (datasets.Config, search.Protocol, error) {
		cfg, err := resolveASConfig(c, g, &o.as, search.PriorEstimate)
		return cfg.Pool, cfg.Protocol, err
	}
	return run(g, c, r, cli.RunASSuggest)
}

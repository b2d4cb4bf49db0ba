package cmd

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/search"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// maxASSuggestBatch bounds `qvs as suggest --batch`. On the 4,000-item
// synthetic pool a batch of 500 takes about 1 s with every method, 1,000
// over a minute with qVS-AS (the chosen set merges into one kNN block whose
// exact secular updates and eigendecompositions grow like B^3 per pick) and
// ~10 s for the qvs column of scattered (random) picks.
const maxASSuggestBatch = 500

type asSuggestOptions struct {
	as        asOptions
	observed  string
	pending   string
	batch     int
	method    string
	q         vendi.Order
	format    string
	rawIDs    bool
	threshold float64
	beta      float64
	lambda    float64
	fantasy   string
	remaining int
	scored    scoredOptions
}

func newASSuggestCmd(g *GlobalOptions) *cobra.Command {
	o := &asSuggestOptions{}
	c := &cobra.Command{
		Use:   "suggest (--pool pool.csv|X.npy [--ids ids.txt] [--knn auto|exact|approx] [--id-column id] [--features f1,f2,... | --feature-prefix x | --fingerprint-column fp] [--exclude-columns c1,...] [--metric euclidean|cosine|tanimoto] [--k 20] | --graph W.npz|edges.csv [--ids ids.csv] | --kernel K.npy|K.csv [--k 20] [--ids ids.csv] | --config configs/TASK.yaml | --pool-dir DIR) [--observed FILE] [--pending FILE] --batch B --method qvs|one-step|eci|select|ens|random (scores: qvs|greedy|top|random) [--q Q] [--prior a1] [--minimize] [--acquisition ucb|ei|phit|mean] [--format csv|table|json]",
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
marginal likelihood on standardised scores; exact up to 1,000 scores, beyond
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
0.05) or mean. Defaults chosen on photoswitch wavelengths and RDKit logP and
QED of a screening library (docs/results.md). Columns: rank, index, id, the
acquisition, the posterior mean and sd of the score (your units and sign),
and for qvs the quality and the qvs column (qVS_Q of the pending items and
the picks so far); stderr describes the fitted GP and counts the hits.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runASSuggest(c, g, o) },
	}
	f := c.Flags()
	f.StringVar(&o.as.poolDir, "pool-dir", "", "pool in the authors' folder format")
	t := configkeys.NewTable(f)
	o.as.table = t
	o.as.csv.register(t, &o.as.cfg)
	o.as.bindPrior(t, "kNN model prior a1: a number in (0, 1), estimate or prevalence (default: the config's prior key, else estimate)")
	configkeys.BindFunc(t, "seed", "seed", func() { o.as.cfg.Seed = g.Seed })
	f.StringVar(&o.observed, "observed", "", "CSV of labelled items: header index,label or id,label (- reads stdin); none, or the header alone, for the first batch (cold start: the most diverse); or scored items: header index,value or id,value (a GP, see below)")
	f.StringVar(&o.pending, "pending", "", "CSV of items whose experiments are still running: header index or id; never suggested, treated as this batch's first picks (- reads stdin)")
	f.IntVar(&o.batch, "batch", 5, "number of items to suggest (at most 500; with scores at most 10,000)")
	f.StringVar(&o.method, "method", "qvs", "policy: "+strings.Join(search.Methods, "|"))
	o.q = 1
	f.Var(&o.q, "q", "order q of qVS-AS and of the qvs column (inf allowed; with scores the default is 2)")
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json (one document: docs/json.md)")
	f.BoolVar(&o.rawIDs, "raw-ids", false, "keep ids as they are in --format csv (default: an id a spreadsheet would run as a formula, =... +... -... @..., gets a leading '; qvs reads both back)")
	f.Float64Var(&o.threshold, "threshold", 0.5, "ECI similarity threshold")
	f.Float64Var(&o.beta, "beta", 1, "SELECT beta")
	f.Float64Var(&o.lambda, "lambda", 0.5, "SELECT lambda")
	f.StringVar(&o.fantasy, "fantasy", "pessimistic", "fantasised label of batch policies: pessimistic or optimistic")
	f.IntVar(&o.remaining, "remaining", 0, "ENS: queries left including this batch (default: the config's budget)")
	o.scored.register(c)
	return c
}

func runASSuggest(c *cobra.Command, g *GlobalOptions, o *asSuggestOptions) error {
	fl := c.Flags()
	// Scores (a value column) go to the GP; 0/1 labels to the kNN model.
	if o.observed != "" {
		scored, err := search.ObservedHasScores(o.observed)
		if err != nil {
			return err
		}
		if scored {
			return runASSuggestScored(c, g, o)
		}
	}
	if err := flagsOnlyFor(c, "scores (a value column in --observed)", scoredFlags); err != nil {
		return err
	}
	if err := checkSuggestFlags(o.batch, maxASSuggestBatch,
		"larger batches cost minutes: the exact greedy and the qvs column grow faster than the cube of the batch; ask for more in later calls with the labels observed so far",
		o.format, o.method, search.Methods); err != nil {
		return err
	}
	if g.Config == "" && !fl.Changed("pool-dir") && !fl.Changed("pool") && !fl.Changed("graph") && !fl.Changed("kernel") {
		return usageErrorf("give the pool with --pool FILE.csv, --graph FILE, --kernel FILE, --config FILE or --pool-dir DIR")
	}
	q := o.q // parsed and checked with the flag
	fan, err := search.ParseFantasy(o.fantasy)
	if err != nil {
		return usageErrorf("--fantasy: %w", err)
	}
	for _, chk := range []struct {
		flag  string
		check func(float64) error
		v     float64
	}{{"threshold", search.CheckThreshold, o.threshold}, {"beta", search.CheckBeta, o.beta}, {"lambda", search.CheckLambda, o.lambda}} {
		if err := chk.check(chk.v); err != nil {
			return usageErrorf("--%s: %v", chk.flag, err)
		}
	}
	if c.Flags().Changed("remaining") && o.remaining < o.batch {
		return usageErrorf("--remaining %d is less than --batch %d: ENS looks ahead over the queries left, this batch included", o.remaining, o.batch)
	}
	cfg, err := resolveASConfig(c, g, &o.as, search.PriorEstimate)
	if err != nil {
		return err
	}
	prior, err := search.ParsePrior(cfg.Prior)
	if err != nil {
		return configError(g.Config, err)
	}
	if prior.Rule == search.PriorPrevalence && !fl.Changed("prior") {
		return configErrorf(g.Config, "prior: prevalence reads every label of the pool, which a real search does not have; suggest uses your labels (remove the key for the default estimate, or give a number); to use the pool's labels anyway pass --prior prevalence")
	}
	if err := checkASSuggestInputs(cfg.Pool, o.observed, o.pending); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	pool, err := loadASPool(cfg.Pool, g, stderr)
	if err != nil {
		return err
	}
	// A suggestion reads the kNN graph only: the features go before the
	// model and kernel are built.
	pool.DropFeatures()
	// No --observed (or a header alone) is a cold start: search.Suggest.
	var observed []search.Observation
	if o.observed != "" {
		if observed, err = search.ParseObserved(o.observed, pool.Pool); err != nil {
			return err
		}
	}
	var pending []int
	if o.pending != "" {
		if pending, err = search.ParsePending(o.pending, pool.Pool, observed, o.observed); err != nil {
			return err
		}
	}
	if free := pool.Len() - len(observed) - len(pending); o.batch > free {
		return fmt.Errorf("--batch %d: pool %s has %s, %d labelled and %d pending: ask for at most %d", o.batch, pool.Name, nItems(pool.Len(), "item"), len(observed), len(pending), free)
	}
	remaining := cfg.Budget
	if fl.Changed("remaining") {
		remaining = o.remaining
	}
	if remaining < o.batch {
		// The budget (the config's, or the default) is smaller than the
		// batch asked for; only ENS reads the horizon, so only ENS warns.
		if o.method == "ens" {
			fmt.Fprintf(c.ErrOrStderr(), "qvs as suggest: warning: budget %d is less than --batch %d; ENS looks ahead over %d queries (set --remaining)\n", remaining, o.batch, o.batch)
		}
		remaining = o.batch
	}
	steps := newStepLog(stderr, g.Quiet)
	steps.step(fmt.Sprintf("picking a batch of %d (%s)", o.batch, o.method))
	s, err := search.Suggest(pool, search.SuggestRequest{
		Observed: observed, Pending: pending, Prior: prior, Ties: cfg.Ties, Seed: cfg.Seed,
		Method: o.method, Settings: search.PolicySettings{Threshold: o.threshold, Beta: o.beta, Lambda: o.lambda, Fantasy: fan, Q: q},
		Batch: o.batch, Remaining: remaining, Workers: g.Workers, ConsumeGraph: true,
	})
	steps.end()
	if err != nil {
		return err
	}
	if !g.Quiet {
		if s.ColdStart {
			describeColdStart(stderr, prior, s, o.method, q)
		} else {
			describePrior(stderr, prior, s.A1, &s.Fit)
		}
	}
	id := func(i int) string {
		if pool.IDs != nil {
			return pool.IDs[i]
		}
		return strconv.Itoa(i)
	}
	if o.format == "csv" || o.format == formatJSON {
		head := []string{"rank", "index", "id", "probability", "qvs"}
		rows := make([][]string, len(s.Picks))
		for r, x := range s.Picks {
			rows[r] = []string{strconv.Itoa(r + 1), strconv.Itoa(x), id(x), fullPrecision(s.Probabilities[r]), fullPrecision(s.Values[r])}
		}
		if o.format == formatJSON {
			// JSON keeps ids verbatim: no spreadsheet opens it.
			return writeJSONTable(c.OutOrStdout(), "as suggest", head, rows,
				jsonField{"method", o.method}, jsonField{"q", jsonNumber(float64(q))}, jsonField{"prior_a1", s.A1},
				jsonField{"labelled", len(observed)}, jsonField{"pending", len(pending)},
				jsonField{"cold_start", s.ColdStart}, jsonField{"picked_by", s.PickedBy})
		}
		for _, r := range rows {
			r[2] = csvID(r[2], o.rawIDs)
		}
		return writeSuggestions(c.OutOrStdout(), "csv", head, rows, nil)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rank\tindex\tid\tprobability\tqVS_%s\n", q.String())
	for r, x := range s.Picks {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.4f\t%.4f\n", r+1, x, tableCell(id(x)), s.Probabilities[r], s.Values[r])
	}
	tw.Flush()
	_, err = c.OutOrStdout().Write(buf.Bytes())
	return err
}

func fullPrecision(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

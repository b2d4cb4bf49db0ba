package eval

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// methodStyle says how a method's runs appear in a table.
type methodStyle struct {
	label, tex string // row label (plain, LaTeX); the star of a tuned row is added automatically
	section    int    // rule-separated block of the table
	order      int    // position within the section
	byQ        bool   // one row per q, labelled "q = Q" under the method label
	qAlias     string // q to sort and label this method by when its own q is empty (UCB is q = 0)
	qSuffix    string // appended to the setting label, e.g. " (UCB)"
}

// styleOf returns the style of method under the table's known methods;
// unknown methods come last, in a section of their own, one row per q.
func styleOf(known map[string]methodStyle, method string) methodStyle {
	if s, ok := known[strings.ToLower(method)]; ok {
		return s
	}
	return methodStyle{label: method, tex: texEscape(method), section: 9, order: 100, byQ: true}
}

// asMethods are the rows of Tables 1-3: random, ECI*, SELECT* above the
// rule, qVS-AS per q below it (the paper's layout), then the baselines the
// paper ran but did not tabulate (one-step = qVS-AS with q = 0; ENS).
var asMethods = map[string]methodStyle{
	"random":   {label: "random search", tex: "random search", section: 0, order: 0},
	"eci":      {label: "ECI", tex: "ECI", section: 0, order: 1},
	"select":   {label: "SELECT", tex: "SELECT", section: 0, order: 2},
	"qvs":      {label: "qVS-AS", tex: "qVS-AS", section: 1, byQ: true},
	"qvs-as":   {label: "qVS-AS", tex: "qVS-AS", section: 1, byQ: true},
	"one-step": {label: "one-step", tex: "one-step", section: 2, order: 0},
	"ens":      {label: "ENS", tex: "ENS", section: 2, order: 1},
}

// boMethods are the rows of the continuous BayesOpt summary (Figure 3's methods).
var boMethods = map[string]methodStyle{
	"random": {label: "random search", tex: "random search", section: 0, order: 0},
	"turbo":  {label: "TuRBO", tex: "TuRBO", section: 0, order: 1},
	"robot":  {label: "ROBOT", tex: "ROBOT", section: 0, order: 2},
	"qvs":    {label: "qVS-BayesOpt", tex: "qVS-BayesOpt", section: 1, byQ: true},
}

// discreteMethods are the rows of Table 4: q = 0 is UCB (regular BayesOpt).
var discreteMethods = map[string]methodStyle{
	"random": {label: "random search", tex: "random search", section: 0, order: 0},
	"ucb":    {label: "qVS-BayesOpt", tex: "qVS-BayesOpt", section: 1, byQ: true, qAlias: "0", qSuffix: " (UCB)"},
	"qvs":    {label: "qVS-BayesOpt", tex: "qVS-BayesOpt", section: 1, byQ: true},
}

// replayMethods are the rows of a replay's table (surrogate.Suggest's
// methods): random above the rule, the GP's batches below, qVS per q.
var replayMethods = map[string]methodStyle{
	"random": {label: "random", tex: "random", section: 0, order: 0},
	"greedy": {label: "GP greedy (top mean)", tex: "GP greedy (top mean)", section: 1, order: 0},
	"top":    {label: "GP top acquisition", tex: "GP top acquisition", section: 1, order: 1},
	"qvs":    {label: "GP + qVS", tex: "GP + qVS", section: 2, byQ: true},
}

// replayColumns are a replay's columns: the hits found after each round
// (hits_r0 ... in summary order, with the items acquired by then when
// config.yaml says), VS_1 of the hits found, and the seconds a round
// (at least three significant digits).
func replayColumns(c *Campaign) []Column {
	var cols []Column
	for _, h := range c.Header {
		r, ok := strings.CutPrefix(h, "hits_r")
		if _, err := strconv.Atoi(r); !ok || err != nil {
			continue
		}
		name := "hits, round " + r
		cols = append(cols, Column{Key: h, Name: name, Group: "hits found", TeX: "round " + r, Better: 1})
	}
	return append(cols,
		Column{Key: "vs_q1", Name: "VS_1 of hits", TeX: "VS$_1$ of hits", Better: 1},
		// Seconds get significant digits: a small library's rounds take
		// milliseconds, which two decimals print as 0.00 for every method.
		Column{Key: "seconds_per_round", Name: "wall s/round", TeX: "wall s/round", Better: -1, SigDigits: distanceSigDigits},
		Column{Key: "cpu_seconds_per_round", Name: "CPU s/round", TeX: "CPU s/round", Better: -1, SigDigits: distanceSigDigits})
}

// replayTable builds the table of a replay campaign (`qvs as replay`).
func replayTable(c *Campaign) *Table {
	t := buildTable(c, replayColumns(c), replayMethods)
	t.Name = c.Name + "-replay-table"
	t.Campaign = c.Name
	t.Label = "tab:" + c.Name + "-replay"
	total := "the library's top scores"
	if len(c.Runs) > 0 {
		if n := c.Runs[0]["hits_total"]; n != "" {
			total = "the library's " + n + " top-scored items"
		}
	}
	t.Title = fmt.Sprintf("Hits (%s) found after each round of the %s replay (round 0: the random initial batch), VS_1 of the hits found, "+
		"and the wall and CPU seconds of a round's choice, mean (standard error) over %s.", total, c.Name, repeatsText(c))
	return t
}

// activeSearchColumns are the columns of Tables 1-3, after the number of
// positives found (not in the paper's tables, but what active search
// maximises and what every VS column is bounded by: 1 <= VS_q <= positives).
var activeSearchColumns = []Column{
	{Key: "positives", Name: "positives found", TeX: "positives found", Better: 1},
	{Key: "vs_q0", Name: "VS q=0", Group: "Vendi Score", TeX: "$q = 0$", Better: 1},
	{Key: "vs_q0.1", Name: "VS q=0.1", Group: "Vendi Score", TeX: "$q = 0.1$", Better: 1},
	{Key: "vs_q0.5", Name: "VS q=0.5", Group: "Vendi Score", TeX: "$q = 0.5$", Better: 1},
	{Key: "vs_q1", Name: "VS q=1", Group: "Vendi Score", TeX: "$q = 1$", Better: 1},
	{Key: "vs_q2", Name: "VS q=2", Group: "Vendi Score", TeX: "$q = 2$", Better: 1},
	{Key: "vs_qinf", Name: "VS q=inf", Group: "Vendi Score", TeX: "$q = \\infty$", Better: 1},
	{Key: "max_pairwise_distance", Name: "max. pairwise dist.", TeX: "max.\\ pairwise dist.", Better: 1, SigDigits: distanceSigDigits},
	{Key: "kernel_det_per_item", Name: "kernel det. (per item)", TeX: "kernel det.\\ (per item)", Better: 1},
}

// kernelDetNote is the note under every active-search table: the paper does
// not define its "kernel matrix det.", so the column's definition is ours.
const kernelDetNote = "kernel det. (per item) is |det K|^(1/n), the geometric mean of the absolute eigenvalues of " +
	"the n positives' kernel K (the diversity kernel of the VS columns): the paper's \"kernel matrix det.\" is defined by no " +
	"public code and its values cannot be the raw determinant, so this definition is inferred; summary.csv keeps the raw " +
	"kernel_det and kernel_logdet."

// userValueSigDigits is the significant digits of the value columns of a
// campaign on a user's space.
const userValueSigDigits = 3

// bayesOptColumns are the columns of the continuous BayesOpt summary: the
// best value found and the spread of the final M solutions.
var bayesOptColumns = []Column{
	{Key: "best_value", Name: "best value", TeX: "best value", Better: 1},
	{Key: "solutions_mean_value", Name: "solutions' mean value", TeX: "solutions' mean value", Better: 1},
	{Key: "solutions_mean_distance", Name: "solutions' mean distance", TeX: "solutions' mean distance", Better: 1, SigDigits: distanceSigDigits},
	{Key: "solutions_min_distance", Name: "solutions' min. distance", TeX: "solutions' min.\\ distance", Better: 1, SigDigits: distanceSigDigits},
	{Key: "solutions_vs", Name: "solutions' VS", TeX: "solutions' VS", Better: 1},
}

// discreteKnown are summary columns of a discrete BayesOpt campaign that are
// not extra metrics of the best item.
// (evaluations is the budget; best_index and best_id name the best item).
var discreteKnown = map[string]bool{"key": true, "method": true, "q": true, "params": true, "repeat": true, "seconds": true,
	"best_value": true, "edc": true, "evaluations": true, "best_index": true, "best_id": true}

// discreteColumns are Table 4's column (best value) plus EDC and every other
// numeric summary column (the extra metrics of the best item, e.g. the
// energy penalty of the paper's Figure 6), unranked since their direction
// is unknown.
func discreteColumns(c *Campaign) []Column {
	cols := []Column{
		{Key: "best_value", Name: "best value", TeX: "best value", Better: 1},
		{Key: "edc", Name: "EDC", TeX: "EDC", Better: 1},
	}
	for _, h := range c.Header {
		if discreteKnown[h] || !numericColumn(c, h) {
			continue
		}
		name := strings.ReplaceAll(h, "_", " ")
		cols = append(cols, Column{Key: h, Name: name, TeX: texEscape(name)})
	}
	return cols
}

// numericColumn reports whether every non-empty entry of col parses as a
// number (and at least one does).
func numericColumn(c *Campaign, col string) bool {
	seen := false
	for _, r := range c.Runs {
		s := strings.TrimSpace(r[col])
		if s == "" {
			continue
		}
		if math.IsNaN(parseFloat(s)) && !strings.EqualFold(s, "nan") {
			return false
		}
		seen = true
	}
	return seen
}

// TableOf builds the table of c's kind; nil for an unknown kind.
func TableOf(c *Campaign) *Table {
	switch c.Kind {
	case KindActiveSearch:
		return activeSearchTable(c)
	case KindDiscreteBO:
		return discreteTable(c)
	case KindContinuousBO:
		return bayesOptTable(c)
	case KindReplay:
		return replayTable(c)
	}
	return nil
}

// activeSearchTable builds a Table 1-3 of an active-search campaign.
func activeSearchTable(c *Campaign) *Table {
	t := buildTable(c, activeSearchColumns, asMethods)
	t.Name = c.Name + "-as-table"
	t.Campaign = c.Name
	t.Label = "tab:" + c.Name + "-as"
	t.Title = fmt.Sprintf("Vendi scores of the positives collected in the %s active-search campaign, mean (standard error) over %s; "+
		"the best in each column in bold (ties at the printed precision included); a star marks a row that takes the best hyperparameter setting per column.",
		c.Name, repeatsText(c))
	t.Notes = append(t.Notes, kernelDetNote)
	return t
}

// discreteTable builds the Table 4 layout of a discrete BayesOpt campaign.
func discreteTable(c *Campaign) *Table {
	t := buildTable(c, discreteColumns(c), discreteMethods)
	t.Name = c.Name + "-table4"
	t.Campaign = c.Name
	t.Label = "tab:" + c.Name + "-table4"
	good := "the good items found"
	if th, ok := configNumber(c.Config, "good_threshold"); ok {
		objective := "objective"
		if data, ok := c.Config["data"].(map[string]any); ok {
			if name, ok := data["objective_column"].(string); ok && name != "" {
				objective = name
			}
		}
		good += ", " + objective + " >= " + strconv.FormatFloat(th, 'g', -1, 64)
	}
	t.Title = fmt.Sprintf("Best objective value found and EDC (VS_1 of %s) in the %s discrete BayesOpt campaign, "+
		"mean (standard error) over %s; q = 0 is regular BayesOpt (UCB)%s.", good, c.Name, repeatsText(c), discreteFurther(t.Columns))
	return t
}

// discreteFurther describes the columns after best value and EDC: the
// count of good items found and the metrics of the best item, naming only
// those the campaign has (a task: kernel campaign without metric_columns
// has none of the latter).
func discreteFurther(cols []Column) string {
	good, metrics := false, 0
	for _, col := range cols[2:] {
		if col.Key == "good_found" {
			good = true
		} else {
			metrics++
		}
	}
	var parts []string
	if good {
		parts = append(parts, "good items found")
	}
	if metrics > 0 {
		parts = append(parts, "metrics of the best item")
	}
	switch {
	case len(parts) == 0:
		return ""
	case good && metrics == 0:
		return "; further column: good items found"
	}
	return "; further columns: " + strings.Join(parts, " and ")
}

// configNumber is the number under key in a campaign's config.yaml.
func configNumber(cfg map[string]any, key string) (float64, bool) {
	switch v := cfg[key].(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// bayesOptTable builds the summary of a continuous BayesOpt campaign. For
// a campaign that minimised its objective (config minimize: true, an
// --objective-cmd with --minimize) the value columns show the values as
// the objective printed them, lower being better; summary.csv keeps them
// maximised (negated), as the engine sees them.
func bayesOptTable(c *Campaign) *Table {
	cols := bayesOptColumns
	minimised := c.Config["minimize"] == true
	if _, user := c.Config["space"]; user {
		// A user's objective can be of any size: its values get
		// significant digits (0.0158 is not 0.02), and the failed
		// evaluations their column. The paper's tasks keep their layout.
		cols = slices.Clone(cols)
		for i := range cols {
			if cols[i].Key == "best_value" || cols[i].Key == "solutions_mean_value" {
				cols[i].SigDigits = userValueSigDigits
			}
		}
		if slices.Contains(c.Header, "failures") {
			cols = append(cols, Column{Key: "failures", Name: "failures", TeX: "failures", Better: -1})
		}
	}
	if minimised {
		cols = slices.Clone(cols)
		for i := range cols {
			if cols[i].Key == "best_value" || cols[i].Key == "solutions_mean_value" {
				cols[i].Negate, cols[i].Better = true, -1
			}
		}
	}
	t := buildTable(c, cols, boMethods)
	t.Name = c.Name + "-bo-table"
	t.Campaign = c.Name
	t.Label = "tab:" + c.Name + "-bo"
	t.Title = fmt.Sprintf("Best value and the final solutions' value and diversity in the %s BayesOpt campaign, mean (standard error) over %s.",
		c.Name, repeatsText(c))
	if minimised {
		t.Title = fmt.Sprintf("Best (lowest) value and the final solutions' value and diversity in the %s BayesOpt campaign, which minimised its objective, mean (standard error) over %s; values as the objective printed them (summary.csv holds them negated).",
			c.Name, repeatsText(c))
	}
	return t
}

func repeatsText(c *Campaign) string {
	lo, hi := math.MaxInt, 0
	for _, g := range c.Groups() {
		lo, hi = min(lo, len(g.Runs)), max(hi, len(g.Runs))
	}
	switch {
	case hi == 0:
		return "no repeats"
	case lo == hi && hi == 1:
		return "1 repeat"
	case lo == hi:
		return fmt.Sprintf("%d repeats", hi)
	}
	return fmt.Sprintf("%d to %d repeats", lo, hi)
}

// rowKey identifies a table row: a method and (for per-q methods) an order.
type rowKey struct {
	style  methodStyle
	method string
	q      string
	groups []*group // one per hyperparameter setting
}

// qValue parses an order as written in summaries ("inf" = +Inf); "" is NaN.
func qValue(s string) float64 {
	if strings.EqualFold(strings.TrimSpace(s), "inf") {
		return math.Inf(1)
	}
	return parseFloat(s)
}

// texQ renders an order for LaTeX ("inf" -> \infty).
func texQ(q string) string {
	if strings.EqualFold(q, "inf") {
		return "\\infty"
	}
	return q
}

// buildTable lays out one row per (method, q) and a cell per column. A row
// with several hyperparameter settings (params) is starred and takes, per
// column, the setting with the best mean (ties: more repeats, then smaller
// standard error, then the first setting in params order); the settings
// taken are listed in the notes. Bold marks the best per column.
func buildTable(c *Campaign, cols []Column, known map[string]methodStyle) *Table {
	var keys []*rowKey
	index := map[string]*rowKey{}
	for _, g := range c.Groups() {
		st := styleOf(known, g.Method)
		q := ""
		if st.byQ {
			q = g.Q
			if q == "" {
				q = st.qAlias
			}
		}
		id := st.label + "\x00" + q + "\x00" + strings.ToLower(g.Method)
		rk := index[id]
		if rk == nil {
			rk = &rowKey{style: st, method: g.Method, q: q}
			index[id] = rk
			keys = append(keys, rk)
		}
		rk.groups = append(rk.groups, g)
	}
	sort.SliceStable(keys, func(a, b int) bool {
		x, y := keys[a], keys[b]
		if x.style.section != y.style.section {
			return x.style.section < y.style.section
		}
		if x.style.order != y.style.order {
			return x.style.order < y.style.order
		}
		if x.style.label != y.style.label {
			return x.style.label < y.style.label
		}
		qx, qy := qValue(x.q), qValue(y.q)
		if qx != qy {
			return qx < qy || math.IsNaN(qy)
		}
		return strings.ToLower(x.method) > strings.ToLower(y.method) // "ucb" before "qvs" at q = 0
	})
	t := &Table{Columns: cols}
	for _, rk := range keys {
		st := rk.style
		r := Row{Method: st.label, TeXMethod: st.tex, Section: st.section}
		if st.byQ && rk.q != "" {
			r.Setting = "q = " + rk.q + st.qSuffix
			r.TeXSetting = "$q = " + texQ(rk.q) + "$" + texEscape(st.qSuffix)
		}
		starred := len(rk.groups) > 1
		if starred {
			if r.Setting != "" {
				r.Setting += "*"
				r.TeXSetting += "$^*$"
			} else {
				r.Method += "*"
				r.TeXMethod += "$^*$"
			}
			sort.SliceStable(rk.groups, func(a, b int) bool { return rk.groups[a].Params < rk.groups[b].Params })
		}
		for _, col := range cols {
			r.Cells = append(r.Cells, bestSetting(rk.groups, col))
		}
		if starred {
			t.Notes = append(t.Notes, starNote(r, cols))
		} else if p := rk.groups[0].Params; p != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s.", r.Label(), p))
		}
		t.Rows = append(t.Rows, r)
	}
	t.MarkBest()
	return t
}

// bestSetting summarises col for each setting and returns the best one's
// cell (the only one's when there is a single setting).
func bestSetting(groups []*group, col Column) Cell {
	var best Cell
	found := false
	for _, g := range groups {
		s := g.Stat(col.Key)
		if col.Negate {
			s.Mean = -s.Mean
		}
		cell := Cell{Stat: s, SigDigits: col.SigDigits}
		if len(groups) > 1 {
			cell.Params = g.Params
		}
		if !found || better(cell.Stat, best.Stat, col.Better) {
			best, found = cell, true
		}
	}
	return best
}

// better reports whether a beats b in a column ranked by dir (0 counts as
// higher-is-better when choosing a setting).
func better(a, b Stat, dir int) bool {
	if a.N == 0 {
		return false
	}
	if b.N == 0 {
		return true
	}
	if dir == 0 {
		dir = 1
	}
	if a.Mean != b.Mean {
		return float64(dir)*(a.Mean-b.Mean) > 0
	}
	if a.N != b.N {
		return a.N > b.N
	}
	return a.SE < b.SE
}

// starNote lists the setting a starred row took per column, grouped:
// "ECI*: threshold=0.5 for VS q=0, VS q=0.1; threshold=0.7 for ...".
func starNote(r Row, cols []Column) string {
	var order []string
	by := map[string][]string{}
	for j, c := range r.Cells {
		if c.N == 0 {
			continue
		}
		if _, ok := by[c.Params]; !ok {
			order = append(order, c.Params)
		}
		by[c.Params] = append(by[c.Params], cols[j].Name)
	}
	parts := make([]string, len(order))
	for i, p := range order {
		parts[i] = p + " for " + strings.Join(by[p], ", ")
	}
	return strings.TrimSuffix(r.Label()+": best setting per column: "+strings.Join(parts, "; "), ".") + "."
}

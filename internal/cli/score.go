package cli

import (
	"strconv"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/items"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// ScoreOptions are the settings of `qvs score`.
type ScoreOptions struct {
	Items  ItemsOptions
	Orders vendi.Orders
	Format Format
}

// DefaultScoreOptions are the flags' defaults.
func DefaultScoreOptions() ScoreOptions {
	return ScoreOptions{Orders: vendi.Orders{0, 0.1, 0.5, 1, 2, vendi.OrderInf}, Format: formats(FormatTable),
		Items: ItemsOptions{Emb: EmbeddingOptions{Kernel: items.Cosine, FingerprintFormat: datasets.FingerprintBits}}}
}

// scoreRow is one order's scores.
type scoreRow struct {
	Q   string   `json:"q"`
	VS  float64  `json:"vs"`
	QVS *float64 `json:"qvs,omitempty"`
}

// scoreRows are the rows of scores.
func scoreRows(scores []items.Score) []scoreRow {
	rows := make([]scoreRow, len(scores))
	for k, s := range scores {
		rows[k] = scoreRow{Q: s.Q.String(), VS: s.VS, QVS: s.QVS}
	}
	return rows
}

// groupScores are the scores of one group of score --group-column.
type groupScores struct {
	Group  string     `json:"group"`
	N      int        `json:"n"`
	Scores []scoreRow `json:"scores"`
}

// RunScore prints VS_q (and qVS_q) of the items for each order: one row
// per order, or with --group-column one row per group under the kernel of
// all the items (items.GroupScores).
func RunScore(e *Env, o *ScoreOptions) error {
	o.Items.RawNPY = true
	in, err := loadItems(e, &o.Items)
	if err != nil {
		return err
	}
	note := func(order int, what string) {
		noteDenseEig(e.Err, e.Quiet, order, "qvs score: eigendecomposing "+what)
	}
	if in.Groups != nil {
		return scoreGroups(e, o, in, note)
	}
	scores, err := in.Scores(o.Orders, note)
	if err != nil {
		return err
	}
	rows := scoreRows(scores)
	if o.Format.Value == FormatJSON {
		return writeIndentedJSON(e.Out, map[string]any{"n": in.N, "scores": rows})
	}
	t := table{Head: []string{"q", "vs"}, TableHead: []string{"q", "VS"}, Right: true,
		Round: roundColumns(fixed(6), 1, 2)}
	if in.Quality != nil {
		t.Head, t.TableHead = append(t.Head, "qvs"), append(t.TableHead, "qVS")
	}
	for _, r := range rows {
		row := []string{r.Q, Float(r.VS)}
		if r.QVS != nil {
			row = append(row, Float(*r.QVS))
		}
		t.Rows = append(t.Rows, row)
	}
	return t.Write(e.Out, o.Format.Value)
}

// scoreGroups prints, for each group of the items (in order of first
// appearance), VS_q (and qVS_q) of its items under the kernel of all the
// items (items.GroupScores): one RBF length scale, the one printed, for
// every group.
func scoreGroups(e *Env, o *ScoreOptions, in *items.Items, note func(int, string)) error {
	groups, err := in.GroupScores(o.Orders, note)
	if err != nil {
		return err
	}
	out := make([]groupScores, len(groups))
	for k, gr := range groups {
		out[k] = groupScores{Group: gr.Name, N: gr.N, Scores: scoreRows(gr.Scores)}
	}
	if o.Format.Value == FormatJSON {
		doc := map[string]any{"n": in.N, "group_column": o.Items.Emb.GroupColumn, "groups": out}
		if l, ok := in.LengthScale(); ok {
			doc["length_scale"] = l
		}
		return writeIndentedJSON(e.Out, doc)
	}
	t := table{Head: []string{"group", "n"}, TableHead: []string{"group", "n"}, Right: true}
	for _, q := range o.Orders {
		t.Head, t.TableHead = append(t.Head, "vs_q"+q.String()), append(t.TableHead, "VS_"+q.String())
	}
	if in.Quality != nil {
		for _, q := range o.Orders {
			t.Head, t.TableHead = append(t.Head, "qvs_q"+q.String()), append(t.TableHead, "qVS_"+q.String())
		}
	}
	scores := make([]int, len(t.Head)-2)
	for k := range scores {
		scores[k] = k + 2
	}
	t.Round = roundColumns(fixed(6), scores...)
	for _, gs := range out {
		row := []string{gs.Group, strconv.Itoa(gs.N)}
		for _, s := range gs.Scores {
			row = append(row, Float(s.VS))
		}
		for _, s := range gs.Scores {
			if s.QVS != nil {
				row = append(row, Float(*s.QVS))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t.Write(e.Out, o.Format.Value)
}

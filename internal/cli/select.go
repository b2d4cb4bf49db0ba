package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// SelectOptions are the settings of `qvs select`.
type SelectOptions struct {
	Items  ItemsOptions
	K      int
	Q      vendi.Order
	Prefix string // comma-separated 0-based rows already chosen
	Format Format
	RawIDs bool
}

// DefaultSelectOptions are the flags' defaults.
func DefaultSelectOptions() SelectOptions {
	o := SelectOptions{Q: 1, Format: formats(FormatTable)}
	o.Items.Emb = DefaultScoreOptions().Items.Emb
	return o
}

// RunSelect picks o.K items greedily maximising qVS_q given the prefix
// (items.Items.Select) and prints them with the qVS of the prefix plus the
// picks so far.
func RunSelect(e *Env, o *SelectOptions) error {
	q := o.Q
	if o.K < 1 {
		return Usagef("--k must be at least 1")
	}
	steps := newStepLog(e.Err, e.Quiet)
	steps.Step("reading the items")
	in, err := loadItems(e, &o.Items)
	steps.End()
	if err != nil {
		return err
	}
	var prefix []int
	inPrefix := make([]bool, in.N)
	for _, f := range strings.Split(o.Prefix, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		i, err := strconv.Atoi(f)
		if err != nil || i < 0 || i >= in.N {
			return Usagef("--prefix: %q is not a row index in [0, %d)", f, in.N)
		}
		if inPrefix[i] {
			return Usagef("--prefix: row %d is listed twice", i)
		}
		inPrefix[i] = true
		prefix = append(prefix, i)
	}
	if o.K > in.N-len(prefix) {
		return Usagef("--k %d: only %s can be picked (%s, %d in the prefix)", o.K, fileio.Count(in.N-len(prefix), "item"), fileio.Count(in.N, "item"), len(prefix))
	}
	steps.Step(fmt.Sprintf("picking %s from %d (greedy on qVS_%s)", fileio.Count(o.K, "item"), in.N, q))
	res, err := in.Select(o.K, q, prefix, e.Workers, func(size int) {
		noteDenseEig(e.Err, e.Quiet, size, fmt.Sprintf("qvs select: picking %s: the greedy eigendecomposes chosen sets of order up to %d", fileio.Count(o.K, "item"), size))
	})
	steps.End()
	if err != nil {
		return err
	}
	if prefix == nil {
		prefix = []int{} // JSON [] rather than null
	}
	t := table{Command: "select", Head: []string{"rank", "index"}, SafeIDs: !o.RawIDs,
		Extra: []field{{"q", jsonNumber(float64(q))}, {"prefix", prefix}}}
	if in.IDs != nil {
		t.Head = append(t.Head, "id")
	}
	t.Head = append(t.Head, "qvs")
	t.TableHead = append(t.Head[:len(t.Head)-1:len(t.Head)-1], "qVS_"+q.String())
	t.Round = roundColumns(fixed(6), len(t.Head)-1)
	for r, i := range res.Picks {
		row := []string{strconv.Itoa(r + 1), strconv.Itoa(i)}
		if in.IDs != nil {
			row = append(row, in.IDs[i])
		}
		t.Rows = append(t.Rows, append(row, Float(res.Scores[r])))
	}
	return t.Write(e.Out, o.Format.Value)
}

package bayesopt

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// RecordHeader is the header of a run's evaluation CSV for a d-dimensional
// task: iteration, region, x0 .. x{d-1} (one column per coordinate), value,
// seconds. Region -1 marks initial-design and random-search points. A failed
// experiment (Evaluation.Failed) has the value cell "failed" (failedCell).
func RecordHeader(d int) []string {
	h := []string{"iteration", "region"}
	for j := 0; j < d; j++ {
		h = append(h, "x"+strconv.Itoa(j))
	}
	return append(h, "value", "seconds")
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// FormatRecord renders an evaluation as a CSV row; floats are written with
// the shortest representation that parses back to the same bits, so a
// replayed run continues exactly.
func FormatRecord(e Evaluation) []string { return FormatRecordWith(e, nil) }

// RecordCoder is an Objective whose records write the x columns in the
// user's terms (a mixed space: a categorical's choice text, an empty cell
// for an inactive conditional parameter) instead of numbers. FormatX
// renders engine point x (as the engine evaluated it: snapped) as its d
// cells; ParseX reads such cells back to the same engine point, bit for
// bit, or returns the 0-based index of the first bad cell and why it is
// bad (x nil). Objectives without it (the paper's tasks, a continuous
// space) write every coordinate as a number.
type RecordCoder interface {
	FormatX(x []float64) []string
	ParseX(cells []string) (x []float64, col int, why string)
}

// FormatRecordWith is FormatRecord with the x columns written by coder
// (nil: numbers, as FormatRecord).
func FormatRecordWith(e Evaluation, coder RecordCoder) []string {
	row := []string{strconv.Itoa(e.Iteration), strconv.Itoa(e.Region)}
	if coder != nil {
		row = append(row, coder.FormatX(e.X)...)
	} else {
		for _, x := range e.X {
			row = append(row, formatFloat(x))
		}
	}
	value := formatFloat(e.Value)
	if e.Failed {
		value = failedCell
	}
	return append(row, value, formatFloat(e.Seconds))
}

// failedCell is the value cell of a failed experiment in a run's records.
const failedCell = "failed"

// IsFailedCell reports whether a value cell marks a failed experiment: empty,
// "nan" or "failed" (any case, surrounding spaces ignored). Records, a user's
// evaluation file and an objective command's output share this rule.
func IsFailedCell(cell string) bool {
	switch strings.ToLower(strings.TrimSpace(cell)) {
	case "", "nan", failedCell:
		return true
	}
	return false
}

// IsFailedStatus reports whether a status cell (the optional status column
// of a user's evaluation file) marks a failed experiment: "failed" or
// "fail" (any case, surrounding spaces ignored). Other statuses, such as
// "ok" or "complete", and an empty cell mean nothing: the value cell decides
// (IsFailedCell). The continuous and the discrete suggest share this rule.
func IsFailedStatus(cell string) bool {
	switch strings.ToLower(strings.TrimSpace(cell)) {
	case "failed", "fail":
		return true
	}
	return false
}

// parseRecords parses evaluation rows (without header) of a d-dimensional
// task. A value cell "failed" or "nan" (any case) is a failed experiment
// (Failed, Value NaN); records written before failures existed never hold
// one. An empty cell is an error here (a damaged file), unlike in a user's
// evaluation file. Errors name the row (1 = first data row) and column.
func parseRecords(rows [][]string, d int) ([]Evaluation, error) {
	return ParseRecordsWith(rows, d, nil)
}

// ParseRecordsWith is parseRecords with the x columns read by coder (nil:
// numbers, as parseRecords). A cell coder refuses is an error naming the
// row's file line (the header is line 1) and its column.
func ParseRecordsWith(rows [][]string, d int, coder RecordCoder) ([]Evaluation, error) {
	out := make([]Evaluation, 0, len(rows))
	head := RecordHeader(d)
	prevIt := 0
	for r, row := range rows {
		if len(row) != d+4 {
			return nil, fmt.Errorf("record row %d: %d fields, expected %d (%s ... seconds)", r+1, len(row), d+4, head[0])
		}
		var e Evaluation
		var err error
		if e.Iteration, err = strconv.Atoi(row[0]); err != nil || e.Iteration < prevIt {
			return nil, fmt.Errorf("record row %d, column iteration: %q is not an integer >= the previous row's %d", r+1, row[0], prevIt)
		}
		prevIt = e.Iteration
		if e.Region, err = strconv.Atoi(row[1]); err != nil || e.Region < -1 {
			return nil, fmt.Errorf("record row %d, column region: %q is not an integer >= -1", r+1, row[1])
		}
		nums := make([]float64, d+2)
		if coder != nil {
			x, col, why := coder.ParseX(row[2 : d+2])
			if x == nil {
				return nil, fileio.FieldErrorf("", r+2, head[col+2], "%s", why)
			}
			copy(nums, x)
		}
		for j := range nums {
			if j < d && coder != nil {
				continue
			}
			if j == d && strings.TrimSpace(row[j+2]) != "" && IsFailedCell(row[j+2]) {
				e.Failed, nums[j] = true, math.NaN()
				continue
			}
			v, err := strconv.ParseFloat(row[j+2], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("record row %d, column %s: %q is not a finite number", r+1, head[j+2], row[j+2])
			}
			nums[j] = v
		}
		e.X = nums[:d:d]
		e.Value, e.Seconds = nums[d], nums[d+1]
		out = append(out, e)
	}
	return out, nil
}

// RunKey is the key of a campaign run (campaign.RunKey), which names its
// records and seeds its draws (RunID.Key): "METHOD-rNN", or "qvs-qQ-rNN"
// and "qvs-qQ-floor-rNN" for qvs with order label Q (vendi.Order.String).
// `qvs bayesopt suggest` uses repeat 0's key, so its batches continue a
// campaign run's.
func RunKey(method, q string, floor bool, repeat int) string {
	if method != MethodQVS {
		return campaign.RunKey(method, "", repeat)
	}
	if floor {
		return campaign.RunKey(method, q, repeat, "floor")
	}
	return campaign.RunKey(method, q, repeat)
}

// completeIterations checks the iteration sizes of an interrupted attempt's
// records (prior, in record order) against s: iteration 0 holds s.Init
// points, iteration t >= 1 min(s.Batch, s.Budget - evaluations before it),
// exactly as Optimize makes them. It returns how many records form complete
// iterations: records that stop inside the last iteration (a file cut by
// hand; qvs writes whole iterations) are dropped by the caller and Optimize
// recomputes that iteration from the same seed, so the resumed run equals
// the uninterrupted one. An iteration too large, or a short one followed by
// another, is an error naming name and the record's file line (the header
// is line 1). Settings' defaults must have been applied.
func completeIterations(name string, prior []Evaluation, s Settings) (int, error) {
	done := 0
	for k := 0; k < len(prior); {
		it := prior[k].Iteration
		end := k
		for end < len(prior) && prior[end].Iteration == it {
			end++
		}
		want := s.Init
		if it > 0 {
			want = min(s.Batch, s.Budget-done)
		}
		got := end - k
		switch {
		case got > want || (got < want && end < len(prior)):
			return 0, fileio.LineErrorf(name, k+2+min(got, want), "iteration %d has %d evaluations, expected %d (init %d, batch %d, budget %d); delete the file to restart this run",
				it, got, want, s.Init, s.Batch, s.Budget)
		case got < want && it == 0 && s.InitBatches:
			return len(prior), nil // Optimize evaluates the rest of the design
		case got < want:
			return k, nil
		}
		done += got
		k = end
	}
	return len(prior), nil
}

// keepCompleteIterations applies completeIterations to a campaign run's
// records: a cut last iteration is dropped from prior and from rec (the
// record file is rewritten without it at the next append).
func keepCompleteIterations(rec *campaign.Recorder, prior []Evaluation, s Settings) ([]Evaluation, error) {
	s.defaults()
	keep, err := completeIterations(filepath.Join("runs", rec.Key()+".csv"), prior, s)
	if err != nil {
		return nil, err
	}
	rec.Keep(keep)
	return prior[:keep], nil
}

package eval_test

import (
	"fmt"
	"os"

	"github.com/qvs-dev/qvs/internal/eval"
)

// A table cell is the mean and standard error of a metric over repeats;
// MarkBest bolds the best printed mean per column, ties included.
func ExampleTable_WriteMarkdown() {
	t := &eval.Table{Columns: []eval.Column{{Key: "vs_q1", Name: "VS q=1", Better: 1}}}
	for _, r := range []struct {
		method string
		runs   []float64
	}{
		{"random search", []float64{30, 31, 32}},
		{"qVS-AS", []float64{40, 41, 39}},
		{"ECI*", []float64{39.999, 40.001, 40.003}}, // prints 40.00 too: a tie
	} {
		t.Rows = append(t.Rows, eval.Row{Method: r.method, Cells: []eval.Cell{{Stat: eval.Summarize(r.runs)}}})
	}
	t.MarkBest()
	_ = t.WriteMarkdown(os.Stdout)
	fmt.Println(eval.Summarize([]float64{1, 2, 3, 4})) // SE = sqrt(5/3) / 2
	// Output:
	// | method | VS q=1 |
	// | --- | ---: |
	// | random search | 31.00 (0.58) |
	// | qVS-AS | **40.00 (0.58)** |
	// | ECI\* | **40.00 (0.00)** |
	// 2.50 (0.65)
}

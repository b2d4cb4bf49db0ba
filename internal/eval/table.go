package eval

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Column is one metric column of a results table.
type Column struct {
	Key    string // summary.csv column it summarises, e.g. "vs_q0.1"
	Name   string // plain header (Markdown, CSV), e.g. "VS q=0.1"
	Group  string // spanning header over consecutive columns ("Vendi Score"), or ""
	TeX    string // LaTeX header under Group (or the whole header when Group is "")
	Better int    // +1 higher is better, -1 lower is better, 0 not ranked (no bold)
	// SigDigits > 0 prints the column's cells with at least that many
	// significant digits (roundSig), for metrics often below 0.1 (distances).
	SigDigits int
	// Negate shows -mean (the standard error unchanged): a minimised
	// objective's values, which summaries hold maximised (negated). Better
	// is then the direction of the shown values.
	Negate bool
}

// Cell is one table entry.
type Cell struct {
	Stat
	SigDigits int // its column's Column.SigDigits
	Bold      bool
	// Params is the hyperparameter setting a starred row took for this column
	// (the best setting per column, as the paper's ECI* and SELECT* rows).
	Params string
}

// Text is the printed cell: "mean (SE)" with two decimals (more for a
// column with SigDigits), or "-" when no repeat has a value.
func (c Cell) Text() string {
	if c.N == 0 {
		return "-"
	}
	return c.Stat.Format(c.SigDigits)
}

// Row is one method (or one setting of a method) of a table.
type Row struct {
	Method     string // plain label, e.g. "qVS-AS" or "ECI*"
	Setting    string // sub-label within Method, e.g. "q = 0.1"; "" for a single row
	TeXMethod  string // LaTeX label; Method when empty
	TeXSetting string // LaTeX sub-label; Setting when empty
	Section    int    // rows of different sections are separated by a rule
	Cells      []Cell // one per Column
}

// Label is the row's plain label, "Method, Setting" or "Method".
func (r Row) Label() string {
	if r.Setting == "" {
		return r.Method
	}
	return r.Method + ", " + r.Setting
}

// Table is a results table in the layout of the paper's Tables 1-4.
type Table struct {
	Name     string // file stem, e.g. "photoswitch-as-table"
	Campaign string // name of the campaign it summarises
	Title    string // caption
	Label    string // LaTeX label, e.g. "tab:photoswitch-as"
	Columns  []Column
	Rows     []Row
	Notes    []string // printed under the table (which setting each starred cell took, ...)
}

// NotePartial adds the note of a partial campaign (reasons from
// Campaign.Partial); nothing when reasons is empty.
func (t *Table) NotePartial(reasons []string) {
	if len(reasons) > 0 {
		t.Notes = append(t.Notes, "Partial campaign: "+strings.Join(reasons, "; ")+".")
	}
}

// MarkBest applies the bold rule of the paper's tables: in every ranked
// column, the cells whose printed mean (Cell.Text's rounding) equals the best printed
// mean are bold, so ties at the printed precision are all bold. Cells without
// a value never are.
func (t *Table) MarkBest() {
	for j, col := range t.Columns {
		best := math.NaN()
		shown := make([]float64, len(t.Rows))
		for i := range t.Rows {
			c := &t.Rows[i].Cells[j]
			c.Bold = false
			shown[i] = math.NaN()
			if col.Better == 0 || c.N == 0 || math.IsNaN(c.Mean) {
				continue
			}
			shown[i] = printed(c.Mean, col.SigDigits)
			if math.IsNaN(best) || float64(col.Better)*(shown[i]-best) > 0 {
				best = shown[i]
			}
		}
		if math.IsNaN(best) {
			continue
		}
		for i := range t.Rows {
			if shown[i] == best {
				t.Rows[i].Cells[j].Bold = true
			}
		}
	}
}

// printed is v as the table shows it (roundSig), as a number.
func printed(v float64, sig int) float64 {
	if math.IsInf(v, 0) {
		return v
	}
	p, err := strconv.ParseFloat(roundSig(v, sig), 64)
	if err != nil {
		return math.NaN()
	}
	return p
}

// WriteMarkdown writes t's caption (Title) as a paragraph, then t as a
// GitHub-flavoured Markdown table (bold with **...**) followed by its notes.
// Every table qvs prints or writes (`qvs as`, `qvs bayesopt`, `qvs eval`)
// goes through it, so they share one caption style, header and number format.
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title + "\n\n")
	}
	b.WriteString("| method |")
	for _, c := range t.Columns {
		b.WriteString(" " + mdEscape(c.Name) + " |")
	}
	b.WriteString("\n| --- |")
	for range t.Columns {
		b.WriteString(" ---: |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + mdEscape(r.Label()) + " |")
		for _, c := range r.Cells {
			s := c.Text()
			if c.Bold {
				s = "**" + s + "**"
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.Notes {
			b.WriteString("- " + strings.ReplaceAll(n, "*", `\*`) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "*", `\*`)
}

// WriteLaTeX writes t as a booktabs table in the paper's layout: two label
// columns (method, setting; a method with several settings spans them with
// \multirow), spanning group headers with \cmidrule, \midrule between
// sections, bold best cells. It needs \usepackage{booktabs,multirow,graphicx}
// (graphicx for the \resizebox of wide tables).
func (t *Table) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% written by qvs eval; needs \\usepackage{booktabs,multirow,graphicx}\n")
	wide := len(t.Columns) > 4
	env := "table"
	if wide {
		env = "table*"
	}
	b.WriteString("\\begin{" + env + "}[t]\n\\centering\n")
	if t.Title != "" {
		b.WriteString("\\caption{" + texEscape(t.Title) + "}\n")
	}
	if t.Label != "" {
		b.WriteString("\\label{" + t.Label + "}\n")
	}
	if wide {
		b.WriteString("\\resizebox{\\textwidth}{!}{")
	}
	b.WriteString("\\begin{tabular}{cl" + strings.Repeat("c", len(t.Columns)) + "}\n\\toprule\n")
	groups := columnGroups(t.Columns)
	twoLevel := false
	for _, g := range groups {
		if g.name != "" {
			twoLevel = true
		}
	}
	if twoLevel {
		b.WriteString("\\multicolumn{2}{c}{\\multirow{2}{*}{method}}")
		for _, g := range groups {
			if g.name == "" {
				b.WriteString(" & \\multirow{2}{*}{" + t.Columns[g.from].TeX + "}")
			} else {
				fmt.Fprintf(&b, " & \\multicolumn{%d}{c}{%s}", g.to-g.from, g.name)
			}
		}
		b.WriteString(" \\\\\n")
		for _, g := range groups {
			if g.name != "" {
				fmt.Fprintf(&b, "\\cmidrule(lr){%d-%d}\n", g.from+3, g.to+2)
			}
		}
		b.WriteString("&")
		for _, c := range t.Columns {
			if c.Group != "" {
				b.WriteString(" & " + c.TeX)
			} else {
				b.WriteString(" &")
			}
		}
		b.WriteString(" \\\\\n")
	} else {
		b.WriteString("\\multicolumn{2}{c}{method}")
		for _, c := range t.Columns {
			b.WriteString(" & " + c.TeX)
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\midrule\n")
	for i, r := range t.Rows {
		if i > 0 && r.Section != t.Rows[i-1].Section {
			b.WriteString("\\midrule\n")
		}
		method, setting := r.TeXMethod, r.TeXSetting
		if method == "" {
			method = texEscape(r.Method)
		}
		if setting == "" {
			setting = texEscape(r.Setting)
		}
		if r.Setting == "" {
			b.WriteString("\\multicolumn{2}{c}{" + method + "}")
		} else {
			first := i == 0 || t.Rows[i-1].Method != r.Method || t.Rows[i-1].Section != r.Section
			if first {
				n := 1
				for k := i + 1; k < len(t.Rows) && t.Rows[k].Method == r.Method && t.Rows[k].Section == r.Section; k++ {
					n++
				}
				fmt.Fprintf(&b, "\\multirow{%d}{*}{%s}", n, method)
			}
			b.WriteString(" & " + setting)
		}
		for _, c := range r.Cells {
			s := texEscape(c.Text())
			if c.Bold {
				s = "\\textbf{" + s + "}"
			}
			b.WriteString(" & " + s)
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if wide {
		b.WriteString("}\n")
	}
	if len(t.Notes) > 0 {
		b.WriteString("\\par\\smallskip\\footnotesize\n")
		for _, n := range t.Notes {
			b.WriteString(texEscape(n) + "\\\\\n")
		}
	}
	b.WriteString("\\end{" + env + "}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

type colGroup struct {
	name     string
	from, to int // columns [from, to)
}

// columnGroups splits columns into runs of equal Group ("" groups are single
// columns).
func columnGroups(cols []Column) []colGroup {
	var out []colGroup
	for j, c := range cols {
		if c.Group != "" && len(out) > 0 && out[len(out)-1].name == c.Group {
			out[len(out)-1].to = j + 1
			continue
		}
		out = append(out, colGroup{c.Group, j, j + 1})
	}
	return out
}

var texReplacer = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)

func texEscape(s string) string { return texReplacer.Replace(s) }

// csvHeader is the header of a table's CSV form: one line per cell, with the
// full-precision mean and standard error for further processing.
var csvHeader = []string{"method", "setting", "column", "mean", "se", "n", "bold", "params", "text"}

// CSVRows returns t's cells as rows under csvHeader.
func (t *Table) CSVRows() [][]string {
	var out [][]string
	for _, r := range t.Rows {
		for j, c := range r.Cells {
			out = append(out, []string{
				r.Method, r.Setting, t.Columns[j].Key,
				fullFloat(c.Mean), fullFloat(c.SE), strconv.Itoa(c.N),
				strconv.FormatBool(c.Bold), c.Params, c.Text(),
			})
		}
	}
	return out
}

func fullFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

package eval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// Options configure Evaluate.
type Options struct {
	Dir           string   // results folder to search for campaigns
	Out           string   // output folder (tables/, figures/, README.md)
	Formats       []string // table formats: any of "md", "tex", "csv"
	FigureFormats []string // "png", "svg"; empty = no figures
	DataDir       string   // third-party data (to reload an active-search pool for Figure 2)
	CacheDir      string   // computed caches (kNN graphs, PCA)
	Workers       int
	Log           io.Writer // progress messages; nil = none
	// Pool loads an active-search campaign's pool for the PCA scatter of
	// Figure 2; nil = loadPool (the pool: section of its config.yaml).
	Pool func(c *Campaign, opts Options) (*datasets.Pool, error)
	// Paths are the tasks whose points are paths on a map, by task name
	// (rover): a continuous BayesOpt campaign of one gets the trajectories
	// figure (Figure 4).
	Paths map[string]PathTask
}

// TableFormats are the table formats Evaluate can write.
var TableFormats = []string{"md", "tex", "csv"}

// CampaignReport is what Evaluate found in one campaign.
type CampaignReport struct {
	Dir, Name string
	Kind      Kind
	Runs      int
	Seconds   float64  // run time summed over the finished runs (summary column seconds)
	Partial   []string // why the campaign is incomplete; empty when complete
}

// Report lists what Evaluate made and what it could not.
type Report struct {
	Campaigns []CampaignReport
	Tables    []*Table
	Files     []string // every file written
	// NotMade lists tables, figures and whole campaigns that could not be
	// made, each with the reason.
	NotMade []string
	// Notes are defects found that did not stop anything (a campaign still
	// running, a damaged run summary skipped, a missing config.yaml).
	Notes []string
	// writeErrs are output files that could not be written (also in
	// NotMade): Evaluate returns an error when there is any.
	writeErrs []error
}

func (r *Report) notMade(format string, args ...any) {
	r.NotMade = append(r.NotMade, fmt.Sprintf(format, args...))
}

// Evaluate finds every campaign under opts.Dir and writes its tables and
// figures under opts.Out. Missing or partial campaigns and figures that
// cannot be drawn are listed in the report, not errors; the error is for an
// unusable results folder (absent, or holding no readable campaign) and for
// output that cannot be written (a table or the index at once; figures after
// the rest is made, each also listed in NotMade).
func Evaluate(ctx context.Context, opts Options) (*Report, error) {
	rep := &Report{}
	for _, f := range opts.Formats {
		if !contains(TableFormats, f) {
			return rep, fmt.Errorf("table format %q: expected some of %s", f, strings.Join(TableFormats, ", "))
		}
	}
	for _, f := range opts.FigureFormats {
		if !contains(FigureFormats, f) {
			return rep, fmt.Errorf("figure format %q: expected some of %s", f, strings.Join(FigureFormats, ", "))
		}
	}
	camps, skipped, err := discover(opts.Dir)
	if err != nil {
		return rep, err
	}
	for _, s := range skipped {
		rep.notMade("unreadable campaign: %s", s)
	}
	if len(camps) == 0 && len(skipped) > 0 {
		return rep, fmt.Errorf("%s holds no readable campaign: %s", opts.Dir, strings.Join(skipped, "; "))
	}
	if len(camps) == 0 {
		return rep, fmt.Errorf("%s holds no campaign (no summary.csv in it or below it): run `qvs as` / `qvs bayesopt` first, or give the results folder", opts.Dir)
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	tablesDir := filepath.Join(opts.Out, "tables")
	figDir := filepath.Join(opts.Out, "figures")
	var figures []figureRef
	for _, c := range camps {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		cr := CampaignReport{Dir: c.Dir, Name: c.Name, Kind: c.Kind, Runs: len(c.Runs), Seconds: c.RunSeconds(), Partial: c.Partial()}
		rep.Campaigns = append(rep.Campaigns, cr)
		for _, p := range c.Problems {
			rep.Notes = append(rep.Notes, c.Name+": "+p)
		}
		if len(c.Runs) == 0 {
			rep.notMade("%s (%s): no finished run yet: no table or figure", c.Name, c.Dir)
			continue
		}
		logf("%s: %s campaign, %d finished runs", c.Dir, c.Kind, len(c.Runs))
		t := TableOf(c)
		if t == nil {
			rep.notMade("%s (%s): unknown campaign kind (summary columns %v): no table", c.Name, c.Dir, c.Header)
			continue
		}
		t.NotePartial(cr.Partial)
		rep.Tables = append(rep.Tables, t)
		files, err := writeTable(t, tablesDir, opts.Formats)
		rep.Files = append(rep.Files, files...)
		if err != nil {
			return rep, err
		}
		if len(opts.FigureFormats) > 0 {
			refs := makeFigures(ctx, c, figDir, opts, rep)
			figures = append(figures, refs...)
			if err := ctx.Err(); err != nil {
				return rep, err // interrupted while drawing: no README.md
			}
		}
	}
	checkPaperCoverage(camps, rep)
	index := filepath.Join(opts.Out, "README.md")
	if err := fileio.WriteAtomicFunc(index, func(w io.Writer) error { return writeIndex(w, opts.Out, rep, figures) }); err != nil {
		return rep, err
	}
	rep.Files = append(rep.Files, index)
	if n := len(rep.writeErrs); n > 0 {
		return rep, fmt.Errorf("%d figure file(s) could not be written, first: %w", n, rep.writeErrs[0])
	}
	return rep, nil
}

// Duration formats seconds as "1 h 02 min", "3 min 05 s" or "42 s".
func Duration(s float64) string {
	if math.IsNaN(s) || s < 0 {
		return "-"
	}
	t := int(math.Round(s))
	switch {
	case t >= 3600:
		return fmt.Sprintf("%d h %02d min", t/3600, (t%3600)/60)
	case t >= 60:
		return fmt.Sprintf("%d min %02d s", t/60, t%60)
	}
	return fmt.Sprintf("%d s", t)
}

// writeTable writes t as dir/NAME.md, .tex, .csv for each format.
func writeTable(t *Table, dir string, formats []string) ([]string, error) {
	var files []string
	if err := fileio.CheckPlainName(t.Name); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	for _, f := range formats {
		path := filepath.Join(dir, t.Name+"."+f)
		var err error
		switch f {
		case "md":
			err = fileio.WriteAtomicFunc(path, t.WriteMarkdown)
		case "tex":
			err = fileio.WriteAtomicFunc(path, t.WriteLaTeX)
		case "csv":
			err = fileio.WriteCSVAtomic(path, csvHeader, t.CSVRows())
		default:
			err = fmt.Errorf("table format %q: expected md, tex or csv", f)
		}
		if err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// figureRef is a figure written, for the index.
type figureRef struct {
	Campaign, Title string
	Paths           []string
}

// paperTasks are the campaigns behind the paper's tables and figures, by
// kind, for the coverage check (any one of several names will do).
var paperTasks = []struct {
	kind  Kind
	names []string
	what  string
}{
	{KindActiveSearch, []string{"photoswitch"}, "Table 1 (photoswitch active search)"},
	{KindActiveSearch, []string{"bmg"}, "Table 2 and Figure 2 (bulk metallic glass active search)"},
	{KindActiveSearch, []string{"fashion"}, "Table 3 (Fashion-MNIST active search)"},
	{KindContinuousBO, []string{"rover"}, "Figures 3 and 4 (rover BayesOpt)"},
	{KindContinuousBO, []string{"lunar"}, "Figure 3 (lunar lander BayesOpt)"},
	{KindDiscreteBO, []string{"mof", "photoswitch-bo"}, "Table 4 and Figure 5 (discrete BayesOpt: MOF or the photoswitch stand-in)"},
}

// checkPaperCoverage reports the paper's artefacts with no campaign.
func checkPaperCoverage(camps []*Campaign, rep *Report) {
	for _, p := range paperTasks {
		found := false
		for _, c := range camps {
			if c.Kind == p.kind && len(c.Runs) > 0 && contains(p.names, c.Task) {
				found = true
			}
		}
		if !found {
			rep.notMade("%s: no %s campaign named %s found", p.what, p.kind, strings.Join(p.names, " or "))
		}
	}
}

// writeIndex writes OUT/README.md: every table in Markdown, links to the
// figures and the list of what was not made.
func writeIndex(w io.Writer, out string, rep *Report, figs []figureRef) error {
	var b bytes.Buffer
	b.WriteString(indexTitle + "\n\n")
	b.WriteString("Cells are mean (standard error) over repeats, two decimals (distances: at least three significant digits, the standard error to the same decimals; n/a: the standard error of a single repeat); bold = best per column (ties at the printed precision included); ")
	b.WriteString("a starred row takes the best hyperparameter setting per column (see the notes under each table).\n\n")
	b.WriteString("| campaign | kind | finished runs | run time (sum over runs) | status |\n| --- | --- | ---: | ---: | --- |\n")
	for _, c := range rep.Campaigns {
		status := "complete"
		if len(c.Partial) > 0 {
			status = "partial: " + strings.Join(c.Partial, "; ")
		}
		fmt.Fprintf(&b, "| %s (`%s`) | %s | %d | %s | %s |\n", c.Name, c.Dir, c.Kind, c.Runs, Duration(c.Seconds), mdEscape(status))
	}
	for _, t := range rep.Tables {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Name)
		if err := t.WriteMarkdown(&b); err != nil {
			return err
		}
		for _, f := range figs {
			if f.Campaign == t.Campaign {
				for _, p := range f.Paths {
					if strings.HasSuffix(p, ".png") {
						rel, err := filepath.Rel(out, p)
						if err != nil {
							rel = p
						}
						fmt.Fprintf(&b, "\n![%s](%s)\n", f.Title, filepath.ToSlash(rel))
					}
				}
			}
		}
	}
	if len(rep.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, s := range rep.Notes {
			b.WriteString("- " + s + "\n")
		}
	}
	if len(rep.NotMade) > 0 {
		b.WriteString("\n## Not made\n\n")
		for _, s := range rep.NotMade {
			b.WriteString("- " + s + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runFile is the path of a run's per-run file: runs/KEY.csv (name "") or
// runs/KEY.NAME.csv.
func runFile(c *Campaign, key, name string) string {
	if name == "" {
		return filepath.Join(c.Dir, "runs", key+".csv")
	}
	return filepath.Join(c.Dir, "runs", key+"."+name+".csv")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sortQ is a group's order for sorting: its q, the style's alias when it
// has none (UCB is q = 0), and -Inf for methods without an order.
func sortQ(q string, st methodStyle) float64 {
	if q == "" {
		q = st.qAlias
	}
	v := qValue(q)
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

// sortedGroups orders a campaign's groups like the table rows.
func sortedGroups(c *Campaign, known map[string]methodStyle) []*group {
	gs := c.Groups()
	sort.SliceStable(gs, func(a, b int) bool {
		x, y := styleOf(known, gs[a].Method), styleOf(known, gs[b].Method)
		if x.section != y.section {
			return x.section < y.section
		}
		if x.order != y.order {
			return x.order < y.order
		}
		return sortQ(gs[a].Q, x) < sortQ(gs[b].Q, y)
	})
	return gs
}

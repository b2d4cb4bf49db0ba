package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Kind is the kind of campaign a results folder holds, told by the columns
// of its summary.csv.
type Kind int

const (
	KindUnknown      Kind = iota
	KindActiveSearch      // `qvs as`: vs_q0, ..., kernel_det (Tables 1-3)
	KindDiscreteBO        // `qvs bayesopt` on a kernel set: edc (Table 4)
	KindContinuousBO      // `qvs bayesopt` rover / lunar / ...: solutions_vs
	KindReplay            // `qvs as replay` on a scored library: hits_r0, ..., hits_total
)

func (k Kind) String() string {
	switch k {
	case KindActiveSearch:
		return "active search"
	case KindDiscreteBO:
		return "discrete BayesOpt"
	case KindContinuousBO:
		return "BayesOpt"
	case KindReplay:
		return "replay"
	}
	return "unknown"
}

// kindKeys are the kinds as config.yaml records them (kind:).
var kindKeys = map[Kind]string{KindActiveSearch: "active-search", KindDiscreteBO: "discrete-bayesopt", KindContinuousBO: "bayesopt", KindReplay: "replay"}

// Key is the kind as config.yaml records it (campaign.Spec.Kind):
// active-search, discrete-bayesopt, bayesopt or replay ("" for
// KindUnknown).
func (k Kind) Key() string { return kindKeys[k] }

// kindOf is the kind config.yaml records (KindUnknown when absent or not a
// known kind: folders written before kind: was recorded).
func kindOf(config map[string]any) Kind {
	if s, ok := config["kind"].(string); ok {
		for k, key := range kindKeys {
			if key == s {
				return k
			}
		}
	}
	return KindUnknown
}

// Campaign is one results folder: its summary, resolved config and the state
// of its runs.
type Campaign struct {
	Dir string
	// Task is the campaign's task: config "name", else "task", else the
	// folder name. Name labels its tables and figures: Task (for task space,
	// the space file's stem: campaign.SpaceName), unless several campaigns
	// found together share a name (see discover).
	Task   string
	Name   string
	Kind   Kind
	Header []string            // summary.csv columns, in file order
	Runs   []map[string]string // summary.csv rows by column
	Config map[string]any      // config.yaml (nil if absent or unreadable)
	// Unfinished lists runs with a record file but no summary (interrupted
	// or still running): the campaign is partial.
	Unfinished []string
	Problems   []string // non-fatal defects found while reading
}

// discover finds every campaign under root (root itself included): each
// directory holding a summary.csv, or finished runs (runs/*.summary.csv) of
// a campaign still running or interrupted before it wrote summary.csv.
// Symbolic links to directories are followed (results/rover -> a campaign
// kept elsewhere); a directory reached twice, through a link or a cycle, is
// read once, under the first path that reached it. Folders it cannot read
// are reported in skipped, not fatal. Campaigns are sorted by directory.
func discover(root string) (found []*Campaign, skipped []string, err error) {
	if _, err := os.Stat(root); err != nil {
		return nil, nil, fmt.Errorf("results folder %s: %w", root, err)
	}
	seen := map[string]bool{} // real paths of the directories walked
	var walk func(top string) error
	walk = func(top string) error {
		// A trailing separator makes WalkDir's Lstat of top follow a link.
		return filepath.WalkDir(top+string(filepath.Separator), func(path string, d fs.DirEntry, err error) error {
			path = filepath.Clean(path)
			if err != nil {
				skipped = append(skipped, fmt.Sprintf("%s: %v", path, err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// A link to a directory is walked as its own top, where the
				// checks below (runs/, hidden, seen) apply to it too.
				if info, err := os.Stat(path); err == nil && info.IsDir() {
					return walk(path)
				}
				return nil
			}
			if !d.IsDir() {
				return nil
			}
			if d.Name() == "runs" || (path != filepath.Clean(root) && strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			if real, err := filepath.EvalSymlinks(path); err == nil {
				if seen[real] {
					return fs.SkipDir
				}
				seen[real] = true
			}
			if !isCampaignDir(path) {
				return nil
			}
			c, err := LoadCampaign(path)
			if err != nil {
				skipped = append(skipped, err.Error())
				return nil
			}
			found = append(found, c)
			return nil
		})
	}
	err = walk(root)
	sort.Slice(found, func(a, b int) bool { return found[a].Dir < found[b].Dir })
	uniqueNames(found)
	return found, skipped, err
}

// uniqueNames gives campaigns that share a name (their Task, or a space
// campaign's space file stem) distinct Names, so their tables and figures
// do not overwrite each other (results/rover and results/rover-floor are
// both rover campaigns): the campaign in a folder named after the name
// keeps it; the others take their folder name (rover-floor), or
// name-folder when the folder name does not start with the name; a name
// still taken gets a numeric suffix.
func uniqueNames(camps []*Campaign) {
	first := make([]string, len(camps)) // the names before renaming
	perName := map[string]int{}
	for i, c := range camps {
		first[i] = c.Name
		perName[c.Name]++
	}
	taken := map[string]bool{}
	for _, c := range camps {
		if perName[c.Name] == 1 || filepath.Base(c.Dir) == c.Name {
			if !taken[c.Name] {
				taken[c.Name] = true
				continue
			}
		}
		c.Name = "" // renamed below
	}
	for i, c := range camps {
		if c.Name != "" {
			continue
		}
		base := filepath.Base(c.Dir)
		name := base
		if !strings.HasPrefix(base, first[i]) {
			name = first[i] + "-" + base
		}
		for k := 2; taken[name]; k++ {
			name = fmt.Sprintf("%s-%d", first[i]+"-"+base, k)
		}
		taken[name] = true
		c.Name = name
	}
}

// isCampaignDir reports whether dir holds a summary.csv or finished runs.
func isCampaignDir(dir string) bool {
	if exists(filepath.Join(dir, "summary.csv")) {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, "runs", "*.summary.csv"))
	return len(m) > 0
}

// LoadCampaign reads dir/summary.csv and dir/config.yaml. Finished runs whose
// runs/KEY.summary.csv is not (yet) in summary.csv, as in a campaign still
// running or interrupted, are added from those files and noted in Problems.
//
// A cell of a column the tables and figures average (averagedColumn) that
// is not a finite number is an error naming the file, line and column: a
// damaged summary.csv makes the campaign unreadable, a damaged
// runs/KEY.summary.csv drops that run with a note in Problems. Nothing is
// left out of a mean silently.
func LoadCampaign(dir string) (*Campaign, error) {
	c := &Campaign{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("campaign folder %s: %w", dir, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("campaign folder %s: not a directory", dir)
	}
	path := filepath.Join(dir, "summary.csv")
	seen := map[string]bool{}
	addHeader := func(h []string) {
		have := map[string]bool{}
		for _, x := range c.Header {
			have[x] = true
		}
		for _, x := range h {
			if !have[x] {
				c.Header = append(c.Header, x)
			}
		}
	}
	addRows := func(file string, recs [][]string, firstRow int) error {
		addHeader(recs[0])
		for i, r := range recs[1:] {
			if len(r) != len(recs[0]) {
				return fmt.Errorf("%s: row %d has %d fields, the header %d", file, i+firstRow, len(r), len(recs[0]))
			}
			m := make(map[string]string, len(r))
			for j, h := range recs[0] {
				if averagedColumn(h) {
					if v := parseFloat(r[j]); math.IsNaN(v) || math.IsInf(v, 0) {
						return &fileio.ReadError{File: file, Line: i + firstRow, Column: j + 1, Field: h, Err: fmt.Errorf("%q is not a finite number", r[j])}
					}
				}
				m[h] = r[j]
			}
			if m["method"] == "" {
				return fmt.Errorf("%s: row %d has no method", file, i+firstRow)
			}
			if seen[m["key"]] && m["key"] != "" {
				continue
			}
			seen[m["key"]] = true
			c.Runs = append(c.Runs, m)
		}
		return nil
	}
	if exists(path) {
		recs, err := readCSV(path)
		if err != nil {
			return nil, err
		}
		if err := addRows(path, recs, 2); err != nil {
			return nil, err
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "runs", "*.summary.csv"))
	sort.Strings(files)
	late := 0
	for _, f := range files {
		if seen[strings.TrimSuffix(filepath.Base(f), ".summary.csv")] {
			continue
		}
		recs, err := readCSV(f)
		if err != nil || len(recs) != 2 {
			c.Problems = append(c.Problems, fmt.Sprintf("%s: damaged run summary, run ignored", f))
			continue
		}
		if err := addRows(f, recs, 2); err != nil {
			c.Problems = append(c.Problems, err.Error()+", run ignored")
			continue
		}
		late++
	}
	if late > 0 {
		c.Problems = append(c.Problems, fmt.Sprintf("%d finished run(s) read from runs/*.summary.csv are not in %s (campaign running or interrupted)", late, path))
	}
	if c.Header == nil {
		if !exists(path) {
			return nil, fmt.Errorf("%s: no summary.csv and no finished run (runs/*.summary.csv): not a campaign folder, or no run has finished yet", dir)
		}
		return nil, fmt.Errorf("%s: empty file, expected a header line", path)
	}
	cfgPath := filepath.Join(dir, "config.yaml")
	if cb, err := fileio.ReadInput(cfgPath); err == nil {
		var m map[string]any
		if err := yaml.Unmarshal(cb, &m); err != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("%s: %v", cfgPath, err))
		} else {
			c.Config = m
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		c.Problems = append(c.Problems, err.Error())
	} else {
		c.Problems = append(c.Problems, cfgPath+" is missing")
	}
	has := map[string]bool{}
	for _, h := range c.Header {
		has[h] = true
	}
	// The kind config.yaml records; inferred from the summary's columns
	// for folders written before it was recorded.
	c.Kind = kindOf(c.Config)
	switch {
	case c.Kind != KindUnknown:
	case has["vs_q0"]:
		c.Kind = KindActiveSearch
	case has["edc"]:
		c.Kind = KindDiscreteBO
	case has["solutions_vs"] || has["best_value"]:
		c.Kind = KindContinuousBO
	case has["hits_total"]:
		c.Kind = KindReplay
	}
	if c.Kind == KindActiveSearch && !has["kernel_det_per_item"] {
		addDetPerItem(c)
	}
	if !has["method"] && len(c.Header) > 0 {
		return nil, fmt.Errorf("%s: no method column (header %v): not a qvs campaign summary", path, c.Header)
	}
	// name before task: a generic task (discrete `task: kernel`) names its
	// candidate set with name: (configs/mof.yaml is task kernel, name mof).
	for _, k := range []string{"name", "task"} {
		if s, ok := c.Config[k].(string); ok && s != "" {
			if err := fileio.CheckPlainName(s); err != nil {
				return nil, fmt.Errorf("%s: %s: %w (it names the campaign's tables and figures)", cfgPath, k, err)
			}
			c.Name = s
			break
		}
	}
	c.Task = c.Name
	// A campaign on a user's space file (`qvs bayesopt --space`) is named
	// after the file, as its default folder is; its Task stays "space", so
	// a space file called rover.yaml never stands in for the paper's rover.
	if sp, ok := c.Config["space"].(string); ok && sp != "" && c.Task == campaign.SpaceTask {
		c.Name = campaign.SpaceName(sp)
	}
	c.Unfinished = unfinishedRuns(dir, c.Runs)
	return c, nil
}

// addDetPerItem fills the kernel_det_per_item column of an active-search
// summary written before it existed: exp(kernel_logdet /
// positives), or |kernel_det|^(1/positives) in summaries older still
// (vendi.DetPerItem). A run lacking them is left empty.
func addDetPerItem(c *Campaign) {
	c.Header = append(c.Header, "kernel_det_per_item")
	for _, r := range c.Runs {
		n, err := strconv.Atoi(strings.TrimSpace(r["positives"]))
		if err != nil || n < 0 {
			continue
		}
		logDet := math.Log(math.Abs(parseFloat(r["kernel_det"])))
		if s, ok := r["kernel_logdet"]; ok {
			logDet = parseFloat(s)
		}
		if math.IsNaN(logDet) {
			continue
		}
		r["kernel_det_per_item"] = strconv.FormatFloat(vendi.DetPerItem(logDet, n), 'g', -1, 64)
	}
}

// averaged is every summary column a table or figure averages over repeats.
var averaged = func() map[string]bool {
	// kernel_det: older summaries derive kernel_det_per_item from it.
	m := map[string]bool{"positives": true, "seconds": true, "edc": true, "evaluations": true, "kernel_det": true}
	for _, cols := range [][]Column{activeSearchColumns, bayesOptColumns} {
		for _, c := range cols {
			m[c.Key] = true
		}
	}
	return m
}()

// averagedColumn reports whether summary column h holds a number the tables
// or figures average (vs_q* of any order included), so a cell that is not a
// finite number is damage to report, not a value to skip.
func averagedColumn(h string) bool { return averaged[h] || strings.HasPrefix(h, "vs_q") }

// unfinishedRuns lists runs/KEY.csv record files of runs absent from the
// summary. Extra per-run files are KEY.NAME.csv, where KEY is a finished run
// or another record file present (a run killed after writing an extra file);
// keys may contain dots themselves (qvs-q0.5-r00).
func unfinishedRuns(dir string, runs []map[string]string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "runs", "*.csv"))
	known := map[string]bool{}
	for _, r := range runs {
		known[r["key"]] = true
	}
	names := map[string]bool{}
	for _, f := range files {
		names[strings.TrimSuffix(filepath.Base(f), ".csv")] = true
	}
	var out []string
	for name := range names {
		if strings.HasSuffix(name, ".summary") || known[name] {
			continue
		}
		extra := false
		for i := strings.IndexByte(name, '.'); i >= 0 && !extra; {
			p := name[:i]
			extra = known[p] || names[p]
			j := strings.IndexByte(name[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		if !extra {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// RunSeconds sums the seconds column over the finished runs (the runs'
// own times: with W workers the wall time is about this / W).
func (c *Campaign) RunSeconds() float64 {
	var s float64
	for _, r := range c.Runs {
		if v := parseFloat(r["seconds"]); !math.IsNaN(v) {
			s += v
		}
	}
	return s
}

// Has reports whether the summary has column col.
func (c *Campaign) Has(col string) bool {
	for _, h := range c.Header {
		if h == col {
			return true
		}
	}
	return false
}

// group is the runs of one method setting (method, q, params): its repeats.
type group struct {
	Method, Q, Params string
	Runs              []map[string]string
}

// Label is "method q=Q params" for messages.
func (g *group) Label() string {
	s := g.Method
	if g.Q != "" {
		s += " q=" + g.Q
	}
	if g.Params != "" {
		s += " " + g.Params
	}
	return s
}

// Values returns column col of every repeat as numbers; an entry the run
// lacks (a column only some runs' summaries have) is NaN, which Summarize
// drops. LoadCampaign has already refused damaged cells of averaged columns.
func (g *group) Values(col string) []float64 {
	out := make([]float64, len(g.Runs))
	for i, r := range g.Runs {
		out[i] = parseFloat(r[col])
	}
	return out
}

// Stat summarises column col over the group's repeats.
func (g *group) Stat(col string) Stat { return Summarize(g.Values(col)) }

func parseFloat(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// Groups splits the runs by (method, q, params), in first-seen order.
func (c *Campaign) Groups() []*group {
	var out []*group
	idx := map[[3]string]int{}
	for _, r := range c.Runs {
		k := [3]string{r["method"], r["q"], r["params"]}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, &group{Method: k[0], Q: k[1], Params: k[2]})
		}
		out[i].Runs = append(out[i].Runs, r)
	}
	return out
}

// ExpectedRepeats is the config's "repeats" when it has one, else the most
// repeats any group has.
func (c *Campaign) ExpectedRepeats() int {
	if v, ok := c.Config["repeats"].(int); ok && v > 0 {
		return v
	}
	n := 0
	for _, g := range c.Groups() {
		n = max(n, len(g.Runs))
	}
	return n
}

// Partial describes how the campaign falls short of complete: unfinished
// runs and groups with fewer repeats than expected. Empty when complete.
func (c *Campaign) Partial() []string {
	var out []string
	if len(c.Runs) == 0 {
		out = append(out, "no finished run")
	}
	if n := len(c.Unfinished); n > 0 {
		out = append(out, fmt.Sprintf("%d unfinished run(s) (%s)", n, abbreviate(c.Unfinished, 4)))
	}
	want := c.ExpectedRepeats()
	var short []string
	for _, g := range c.Groups() {
		if len(g.Runs) < want {
			short = append(short, fmt.Sprintf("%s: %d of %d repeats", g.Label(), len(g.Runs), want))
		}
	}
	if len(short) > 0 {
		out = append(out, "fewer repeats than expected: "+abbreviate(short, 6))
	}
	return out
}

func abbreviate(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(", ... (%d more)", len(s)-n)
}

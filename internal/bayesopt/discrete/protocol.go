package discrete

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qvs-dev/qvs/internal/bayesopt"
	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// Discrete BayesOpt tasks (paper §4.2, Algorithm 3). kernel is the generic
// task: any precomputed kernel plus a table (configs/mof.yaml is one
// instance); mof is kernel with the MOF files and settings as defaults;
// photoswitch-bo the Tanimoto kernel of the photoswitch molecules.
const (
	TaskKernel      = "kernel"
	taskMOF         = "mof"
	TaskPhotoswitch = "photoswitch-bo"
)

// A Task is a discrete BayesOpt task as `qvs bayesopt --task NAME` knows
// it: its candidate set's data and the good threshold of its table's
// summary.
type Task struct {
	Name          string
	Data          Data
	GoodThreshold float64 // NaN: required from the config
}

// registry is every discrete task. Adding one on data of a known format is
// one line here (a new format is also its loader, LoadSet).
var registry = []Task{
	// kernel: any kernel plus a table; good_threshold is required (Validate).
	{Name: TaskKernel, Data: Data{Format: "kernel", IDColumn: "id", ObjectiveColumn: "value"}, GoodThreshold: math.NaN()},
	// mof: storage capacity >= 15 (paper §4.2).
	{Name: taskMOF, Data: Data{Format: "kernel", Kernel: "mof/kernel.npy", Table: "mof/mofs.csv", IDColumn: "id",
		ObjectiveColumn: "storage", MetricColumns: []string{"energy_penalty"}, Note: mofNote}, GoodThreshold: 15},
	// photoswitch-bo: visible-light absorption, lambda-max >= 450 nm.
	{Name: TaskPhotoswitch, Data: Data{Format: "photoswitch", Photoswitch: "photoswitch/UMAP-AllHits.csv"}, GoodThreshold: 450},
}

// findTask is the discrete task of name (nil: none).
func findTask(name string) *Task {
	for i := range registry {
		if registry[i].Name == name {
			return &registry[i]
		}
	}
	return nil
}

// IsTask reports whether task is a discrete task.
func IsTask(task string) bool { return findTask(task) != nil }

// Data locates a task's candidate set. Relative paths are taken from the
// data directory.
type Data struct {
	// Format: "kernel" (a kernel matrix file plus a CSV table, the MOF
	// format) or "photoswitch" (the photoswitch CSV; Tanimoto kernel).
	Format          string   `yaml:"format"`
	Kernel          string   `yaml:"kernel,omitempty"`
	Table           string   `yaml:"table,omitempty"`
	IDColumn        string   `yaml:"id_column,omitempty"`
	ObjectiveColumn string   `yaml:"objective_column,omitempty"`
	MetricColumns   []string `yaml:"metric_columns,omitempty"`
	Photoswitch     string   `yaml:"photoswitch,omitempty"`
	// Note is shown when the data files are missing (where to get them).
	Note string `yaml:"note,omitempty"` // read from a config, not recorded (MarshalYAML)
}

// Protocol is the configuration of a discrete BayesOpt campaign
// (configs/mof.yaml, configs/photoswitch-bo.yaml): its settings and their
// defaults (DefaultProtocol). It is recorded in DIR/config.yaml; out is not.
type Protocol struct {
	Task string `yaml:"task"`
	// Name names the candidate set: the campaign's name in tables, the
	// default folder results/NAME, and part of every random stream (so a
	// renamed set draws other initial points). Default: the task.
	Name string `yaml:"name,omitempty"`
	// Common: out, kind, seed, methods, q, repeats, budget, init, batch,
	// as in continuous BayesOpt.
	bayesopt.Common `yaml:",inline"`
	Beta            float64 `yaml:"beta"`
	GoodThreshold   float64 `yaml:"good_threshold"`
	Data            Data    `yaml:"data"`
}

// mofNote is appended to the error when the MOF files are missing.
const mofNote = `The 1,000-MOF data of Liu et al. 2024 (Chem. Sci., doi:10.1039/D4SC03609C; code github.com/vertaix/VBO)
is not public. Export the kernel restricted to the labelled MOFs (n x n, row order = the table's) and a
table of the same MOFs, put them at the paths above (relative paths are under --data-dir), or point
data.kernel / data.table in configs/mof.yaml at your files.`

// MarshalYAML records p in DIR/config.yaml without the keys that do not
// change results and are only read from a config: out, kind (written
// beside the config by campaign.Spec.Kind, read back with --config) and
// data.note.
func (p Protocol) MarshalYAML() (any, error) {
	type recorded Protocol // without this method
	r := recorded(p)
	r.Out, r.Kind, r.Data.Note = "", "", ""
	return r, nil
}

// DefaultProtocol holds the settings of Liu et al. 2024 for the MOF search
// for task: every method, q =
// 0.1, 0.5, 1, 2, inf, 10 repeats of 2 initial points + 100 queries in
// batches of 5, beta = 2; the task's data files and good threshold (task
// kernel has none: good_threshold is required). Out is left for the caller.
func DefaultProtocol(task string) Protocol {
	c := Protocol{
		Task: task,
		Common: bayesopt.Common{Methods: []string{MethodRandom, MethodUCB, MethodQVS}, Q: vendi.NewOrderList(0.1, 0.5, 1, 2, vendi.OrderInf),
			Repeats: 10, Budget: 102, Init: 2, Batch: 5}, // 2 initial points + 100 queries
		Beta: 2,
	}
	if t := findTask(task); t != nil {
		c.GoodThreshold, c.Data = t.GoodThreshold, t.Data
		c.Data.MetricColumns = slices.Clone(t.Data.MetricColumns)
	}
	return c
}

// SetName is the candidate set's name: name:, else the task.
func (p *Protocol) SetName() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Task
}

// Validate checks the protocol's methods, orders and good threshold and
// writes the orders canonically (vendi.Order.String; none without qvs); it
// returns the orders of the qvs runs. The budget, initial design and batch
// are checked against the candidate set by Settings.Validate once it is
// loaded (Campaign).
func (p *Protocol) Validate() ([]vendi.Order, error) {
	qs, err := p.ValidateCommon()
	if err != nil {
		return nil, err
	}
	if p.Data.Format != "kernel" && p.Data.Format != "photoswitch" {
		return nil, configkeys.Invalid("data.format", p.Data.Format, "expected kernel (kernel matrix + table) or photoswitch")
	}
	if len(p.Methods) == 0 {
		return nil, fmt.Errorf("no methods: expected some of random, ucb, qvs")
	}
	for _, m := range p.Methods {
		if m != MethodRandom && m != MethodUCB && m != MethodQVS {
			return nil, fmt.Errorf("method %q: the discrete task %s runs random, ucb and qvs", m, p.Task)
		}
	}
	for _, k := range []struct{ key, name string }{{"task", p.Task}, {"name", p.Name}} {
		if err := fileio.CheckPlainName(k.name); k.name != "" && err != nil {
			return nil, fmt.Errorf("%s: %v", k.key, err)
		}
	}
	if p.Task == TaskKernel && math.IsNaN(p.GoodThreshold) {
		return nil, fmt.Errorf("task kernel: good_threshold is required: the objective value from which an item counts as good (the EDC is the VS_1 of the good items found)")
	}
	if math.IsNaN(p.GoodThreshold) || math.IsInf(p.GoodThreshold, 0) {
		return nil, configkeys.Invalid("good_threshold", p.GoodThreshold, "must be a finite number")
	}
	if !slices.Contains(p.Methods, MethodQVS) {
		qs, p.Q = nil, vendi.OrderList{}
	}
	return qs, nil
}

// Plan validates p and lists its runs (Runs).
func Plan(p Protocol) (Protocol, []campaign.Run, error) {
	qs, err := p.Validate()
	if err != nil {
		return p, nil, err
	}
	runs, err := Runs(p.Methods, qs, p.Repeats)
	return p, runs, err
}

// Settings are the engine settings every run shares (the method is set
// per run by Problem.RunFunc), checked against a set of n candidates.
func (p Protocol) Settings(n int) (Settings, error) {
	s := DefaultSettings()
	s.Init, s.Budget, s.Batch, s.Beta, s.Seed = p.Init, p.Budget, p.Batch, p.Beta, p.Seed
	s.Method = MethodUCB
	return s, s.Validate(n)
}

// dataPath resolves a data-relative path under dataDir.
func dataPath(dataDir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dataDir, p)
}

// InputFiles lists the files LoadSet reads.
func (p Protocol) InputFiles(dataDir string) []string {
	if p.Data.Format == "photoswitch" {
		return []string{dataPath(dataDir, p.Data.Photoswitch)}
	}
	return []string{dataPath(dataDir, p.Data.Kernel), dataPath(dataDir, p.Data.Table)}
}

// LoadSet reads the task's candidate set, relative paths under dataDir.
// Every objective value must be finite (bayesopt.CheckObjective).
func (p Protocol) LoadSet(dataDir string) (*datasets.KernelSet, error) {
	at := func(f string) string { return dataPath(dataDir, f) }
	d := p.Data
	switch d.Format {
	case "kernel":
		set, err := datasets.ReadKernelSet(p.SetName(), datasets.KernelSetFiles{
			Kernel: at(d.Kernel), Table: at(d.Table), IDColumn: d.IDColumn,
			ObjectiveColumn: d.ObjectiveColumn, MetricColumns: d.MetricColumns, Note: d.Note,
		})
		if err != nil {
			return nil, err
		}
		for i, v := range set.Objective {
			if err := bayesopt.CheckObjective(v); err != nil {
				return nil, fmt.Errorf("%s: item %q (data row %d), column %q: %w", at(d.Table), set.IDs[i], i+1, d.ObjectiveColumn, err)
			}
		}
		return set, nil
	case "photoswitch":
		path := at(d.Photoswitch)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, &datasets.MissingDataError{Task: p.Task, Missing: []string{path +
				": the photoswitch table UMAP-AllHits.csv (see the data folder's photoswitch/PROVENANCE.md)"}, Note: strings.TrimSpace(d.Note + "\n" + datasets.DataHint)}
		}
		set, err := datasets.PhotoswitchKernelSet(path)
		if set != nil {
			set.Name = p.SetName()
		}
		return set, err
	default:
		return nil, configkeys.Invalid("data.format", d.Format, "expected kernel (kernel matrix + table) or photoswitch")
	}
}

// TaskNames are the discrete tasks' names, in registry order.
func TaskNames() []string {
	out := make([]string, len(registry))
	for i, t := range registry {
		out[i] = t.Name
	}
	return out
}

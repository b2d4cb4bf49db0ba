// Package space is a user's own continuous search space for diverse
// Bayesian optimisation (`qvs bayesopt suggest --space`, `qvs bayesopt
// --space --objective-cmd`): the space file, the evaluation files a user
// keeps, and the rule that rebuilds the optimiser's state from them.
//
// A space file is YAML:
//
//	parameters:
//	  - {name: temperature, lower: 20, upper: 90}
//	  - {name: catalyst_ppm, lower: 1, upper: 1000, scale: log}
//	  - {name: stir_rpm, lower: 100, upper: 900, type: int}
//	  - {name: kernel, type: categorical, choices: [rbf, poly]}
//	  - {name: degree, lower: 2, upper: 5, type: int, when: {kernel: poly}}
//	length_scale: 0.2   # optional, default 1
//	direction: minimize # optional, default maximize
//
// Optuna's words are accepted too: low and high for lower and upper,
// log: true for scale: log (suggest_float(name, low, high, log=True)), and
// step for a type: int parameter (suggest_int(name, low, high, step=2):
// the values low, low + step, ... up to high), and choices: without a type
// is a categorical parameter (suggest_categorical(name, choices)).
//
// A categorical parameter and conditional parameters (when:) make a mixed
// space: see mixed.go for their engine coordinates, model encoding, trust
// region and distance.
//
// The engine (bayesopt.Engine) searches the box of engine coordinates: the
// value itself, or its natural logarithm for scale: log. The diversity
// distance is Euclidean in the unit-scaled space (each engine coordinate
// mapped to [0, 1] by its bounds) divided by length_scale, so the Vendi
// similarity exp(-d²/2) is a Gaussian kernel of that length scale. type: int
// parameters are rounded (Snap) before the engine samples, so suggestions
// are integers and never repeat an observed or pending point.
package space

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// Scales and types of a parameter.
const (
	ScaleLinear = "linear"
	ScaleLog    = "log"
	TypeFloat   = "float"
	TypeInt     = "int"
	// TypeCategorical is a parameter taking one of its Choices (text).
	TypeCategorical = "categorical"
	// Directions of the space file's direction key.
	DirectionMaximize = "maximize"
	DirectionMinimize = "minimize"
)

// reserved are column names of the evaluation files and of suggest's
// output; a parameter may not use them.
var reserved = map[string]bool{"value": true, "iteration": true, "region": true, "rank": true}

// Parameter is one dimension of a Space.
type Parameter struct {
	Name  string  `yaml:"name"`
	Lower float64 `yaml:"lower"`
	Upper float64 `yaml:"upper"`
	Scale string  `yaml:"scale"` // "" or linear, log
	Type  string  `yaml:"type"`  // "" or float, int, categorical
	// Choices are a categorical parameter's values (at least two,
	// distinct); its Lower and Upper are set to 0 and len(Choices)-1, the
	// range of its choice index.
	Choices []string `yaml:"choices"`
	// When makes the parameter conditional: it is active only when every
	// named categorical parameter (declared earlier, and active itself)
	// takes one of the listed choices.
	When map[string]choiceList `yaml:"when"`
	// Step (type: int only; 0 means 1) restricts the values to
	// ceil(Lower) + k·Step, as Optuna's suggest_int(step=).
	Step float64 `yaml:"step,omitempty"`
}

// parameterFile is a parameter as written in a space file: Parameter's
// keys and Optuna's (low, high, log), which Parse maps onto them.
type parameterFile struct {
	Name    string                `yaml:"name"`
	Lower   *float64              `yaml:"lower"`
	Upper   *float64              `yaml:"upper"`
	Low     *float64              `yaml:"low"`
	High    *float64              `yaml:"high"`
	Scale   string                `yaml:"scale"`
	Log     *bool                 `yaml:"log"`
	Step    *float64              `yaml:"step"`
	Type    string                `yaml:"type"`
	Choices []string              `yaml:"choices"`
	When    map[string]choiceList `yaml:"when"`
}

// parameter maps the Optuna keys onto Parameter's; where names the
// parameter in errors. Both words of a pair (lower and low, upper and
// high, scale and log when they disagree) are an error.
func (f parameterFile) parameter(where string) (Parameter, error) {
	p := Parameter{Name: f.Name, Scale: f.Scale, Type: f.Type, Choices: f.Choices, When: f.When}
	if p.Type == "" && len(p.Choices) > 0 && f.Lower == nil && f.Upper == nil && f.Low == nil && f.High == nil {
		p.Type = TypeCategorical // suggest_categorical(name, choices)
	}
	for _, b := range []struct {
		dst          *float64
		word, optuna string
		v, alias     *float64
	}{{&p.Lower, "lower", "low", f.Lower, f.Low}, {&p.Upper, "upper", "high", f.Upper, f.High}} {
		switch {
		case b.v != nil && b.alias != nil:
			return p, fmt.Errorf("%s: both %s and %s (Optuna's word for it) are given; keep one", where, b.word, b.optuna)
		case b.v != nil:
			*b.dst = *b.v
		case b.alias != nil:
			*b.dst = *b.alias
		}
	}
	if f.Log != nil {
		want := ScaleLinear
		if *f.Log {
			want = ScaleLog
		}
		if f.Scale != "" && f.Scale != want {
			return p, fmt.Errorf("%s: log: %v contradicts scale: %s; keep one", where, *f.Log, f.Scale)
		}
		if *f.Log {
			p.Scale = ScaleLog
		}
	}
	if f.Step != nil {
		switch st := *f.Step; {
		case p.Type != TypeInt:
			return p, fmt.Errorf("%s: step applies to type: int parameters only", where)
		case !(st >= 1) || st != math.Trunc(st) || st > 1<<53:
			return p, fmt.Errorf("%s: step = %v: expected a whole number >= 1", where, st)
		case p.Scale == ScaleLog:
			return p, fmt.Errorf("%s: step cannot be combined with a log scale (Optuna refuses it too)", where)
		}
		p.Step = *f.Step
	}
	return p, nil
}

// IsLog reports whether the parameter is searched in log space.
func (p Parameter) IsLog() bool { return p.Scale == ScaleLog }

// Format writes a value of parameter j for a person or a program to read:
// an integer parameter as an integer literal (never 5.8e+17, which an
// integer parser refuses), others in the shortest form that reads back
// exactly.
func (s *Space) Format(j int, v float64) string {
	switch p := s.Parameters[j]; {
	case math.IsNaN(v): // an inactive conditional parameter
		return ""
	case p.IsCategorical():
		return p.Choices[int(v)]
	case p.IsInt():
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// IsInt reports whether the parameter takes integer values.
func (p Parameter) IsInt() bool { return p.Type == TypeInt }

// IsCategorical reports whether the parameter takes one of its Choices.
func (p Parameter) IsCategorical() bool { return p.Type == TypeCategorical }

// isIndex: the engine coordinate is rounded to an integer (type: int, and
// a categorical's choice index).
func (p Parameter) isIndex() bool { return p.IsInt() || p.IsCategorical() }

// step is an int parameter's Step (1 when unset).
func (p Parameter) step() float64 { return max(p.Step, 1) }

// top is an int parameter's largest value: the last ceil(Lower) + k·step
// at most Upper.
func (p Parameter) top() float64 {
	lo, st := math.Ceil(p.Lower), p.step()
	if st == 1 {
		return math.Floor(p.Upper)
	}
	return lo + math.Floor((math.Floor(p.Upper)-lo)/st)*st
}

// Space is a parsed space file; it implements bayesopt.Domain and
// bayesopt.Snapper in engine coordinates.
type Space struct {
	Path        string // file name, for messages
	Parameters  []Parameter
	LengthScale float64
	// Minimize is the space file's direction: minimize (values are
	// negated, so the engine maximises).
	Minimize bool
	// Maximize is an explicit direction: maximize, which --minimize
	// contradicts (ResolveMinimize).
	Maximize bool
	lo, hi   []float64 // engine bounds
	// mixed: the space has a categorical or a conditional parameter
	// (mixed.go); parents[j] are the indices of the parameters in
	// Parameters[j].When, neutral[j] the engine coordinate of parameter j
	// while inactive.
	mixed   bool
	parents [][]int
	neutral []float64
}

type spaceFile struct {
	Parameters  []parameterFile `yaml:"parameters"`
	LengthScale *float64        `yaml:"length_scale"`
	Direction   string          `yaml:"direction"`
}

// ResolveMinimize is whether values are minimised, given a command
// line's or config's minimize setting: the file's direction, or minimize
// when the setting is; a setting that contradicts an explicit direction:
// maximize in the file is an error naming the file (the setting used to
// win silently).
func (s *Space) ResolveMinimize(minimize bool) (bool, error) {
	if minimize && s.Maximize {
		return false, fmt.Errorf("%s: direction: maximize, but minimize is set (--minimize); drop one", s.Path)
	}
	return minimize || s.Minimize, nil
}

// Load reads and validates the space file at path.
func Load(path string) (*Space, error) {
	b, err := fileio.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// maxParameters bounds a space's dimension (the Sobol' candidates support
// bayesopt.MaxSobolDim; this only stops absurd files early).
const maxParameters = 10000

// Parse validates a space file's contents; name is the file name used in
// errors. Unknown keys, a missing or empty parameter list, empty or
// duplicate or reserved names, non-finite bounds, lower >= upper, a
// non-positive lower bound with scale: log, an int parameter with no
// integer in its bounds, and a non-positive length_scale are errors naming
// the file and the parameter.
func Parse(name string, b []byte) (*Space, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var f spaceFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file; expected a parameters: list of {name, lower, upper}", name)
		}
		msg := strings.NewReplacer(
			"in type space.parameterFile", "in a parameter (keys: name, lower, upper, scale, type, choices, when; Optuna's low, high, log, step)",
			"in type space.spaceFile", "at the top level (keys: parameters, length_scale, direction)",
			"yaml: unmarshal errors:\n  ", "",
			// a value of the wrong kind, in words (not Go's types)
			"cannot unmarshal ", "cannot read ",
			"!!str ", "the text ", "!!int ", "the number ", "!!float ", "the number ", "!!bool ", "the boolean ",
			"!!seq", "a list", "!!map", "a mapping",
			" into map[string]space.choiceList", " as when: {parameter: choice}",
			" into []space.parameterFile", " as a list of parameters",
			" into []string", " as a list of choices",
			" into float64", " as a number",
			" into bool", " as true or false", " into string", " as text").Replace(err.Error())
		return nil, fmt.Errorf("%s: %s", name, msg)
	}
	if len(f.Parameters) == 0 {
		return nil, fmt.Errorf("%s: no parameters; expected a parameters: list of {name, lower, upper}", name)
	}
	if len(f.Parameters) > maxParameters {
		return nil, fmt.Errorf("%s: %d parameters, at most %d", name, len(f.Parameters), maxParameters)
	}
	s := &Space{Path: name, Parameters: make([]Parameter, len(f.Parameters)), LengthScale: 1}
	nodes, top := parameterNodes(b)
	switch f.Direction {
	case "":
	case DirectionMaximize:
		s.Maximize = true
	case DirectionMinimize:
		s.Minimize = true
	default:
		if pos := position(nodeAt(top, "direction")); pos != "" {
			return nil, fmt.Errorf("%s: %s: direction %q: expected maximize or minimize", name, pos, f.Direction)
		}
		return nil, fmt.Errorf("%s: direction %q: expected maximize or minimize", name, f.Direction)
	}
	if f.LengthScale != nil {
		if !(*f.LengthScale > 0) || math.IsInf(*f.LengthScale, 0) {
			return nil, fmt.Errorf("%s: length_scale = %v: must be a finite number > 0", name, *f.LengthScale)
		}
		s.LengthScale = *f.LengthScale
	}
	seen := map[string]int{}
	for i, pf := range f.Parameters {
		// at names the file, the line and column of path within the
		// parameter's entry (nodeAt; none: the entry itself) and the
		// parameter.
		at := func(path ...any) string {
			if i < len(nodes) {
				if pos := position(nodeAt(nodes[i], path...)); pos != "" {
					return fmt.Sprintf("%s: %s: parameter %d (%q)", name, pos, i+1, pf.Name)
				}
			}
			return fmt.Sprintf("%s: parameter %d (%q)", name, i+1, pf.Name)
		}
		where := at()
		p, err := pf.parameter(where)
		if err != nil {
			return nil, err
		}
		s.Parameters[i] = p
		if p.IsCategorical() {
			if err := s.checkCategorical(i, at); err != nil {
				return nil, err
			}
			p = s.Parameters[i]
		}
		switch {
		case strings.TrimSpace(p.Name) == "":
			return nil, fmt.Errorf("%s: parameter %d: missing name", name, i+1)
		case p.Name != strings.TrimSpace(p.Name) || strings.ContainsAny(p.Name, ",\"\n\r"):
			return nil, fmt.Errorf("%s: name must not have surrounding spaces, commas, quotes or line breaks", where)
		case reserved[strings.ToLower(p.Name)]:
			return nil, fmt.Errorf("%s: name is reserved for a column of the evaluation files (value, iteration, region, rank)", where)
		case seen[p.Name] > 0:
			return nil, fmt.Errorf("%s: duplicate name, first used by parameter %d", at("name"), seen[p.Name])
		case math.IsNaN(p.Lower) || math.IsInf(p.Lower, 0) || math.IsNaN(p.Upper) || math.IsInf(p.Upper, 0):
			return nil, fmt.Errorf("%s: bounds [%v, %v] must be finite", where, p.Lower, p.Upper)
		case !(p.Lower < p.Upper):
			return nil, fmt.Errorf("%s: lower = %v must be < upper = %v", where, p.Lower, p.Upper)
		}
		seen[p.Name] = i + 1
		switch p.Scale {
		case "", ScaleLinear:
		case ScaleLog:
			if !(p.Lower > 0) {
				return nil, fmt.Errorf("%s: scale: log needs lower > 0, got %v", where, p.Lower)
			}
		default:
			return nil, fmt.Errorf("%s: scale %q: expected linear or log", at("scale"), p.Scale)
		}
		if err := s.checkWhen(i, at, seen); err != nil {
			return nil, err
		}
		switch p.Type {
		case "", TypeFloat, TypeCategorical:
		case TypeInt:
			if math.Ceil(p.Lower) > math.Floor(p.Upper) {
				return nil, fmt.Errorf("%s: type: int but no integer lies in [%v, %v]", where, p.Lower, p.Upper)
			}
		default:
			return nil, fmt.Errorf("%s: type %q: expected float, int or categorical", at("type"), p.Type)
		}
		lo, hi := p.Lower, p.Upper
		if p.IsCategorical() { // choice index i is the middle of [i-0.5, i+0.5]
			lo, hi = -0.5, p.Upper+0.5
		} else if p.IsInt() {
			lo, hi = math.Ceil(lo), p.top()
			if lo == hi { // a single admissible integer: keep a box of positive width
				lo, hi = p.Lower, p.Upper
			}
		}
		if p.IsLog() {
			lo, hi = math.Log(lo), math.Log(hi)
		}
		if !(lo < hi) || math.IsInf(hi-lo, 0) {
			return nil, fmt.Errorf("%s: the searched range [%v, %v] is too narrow or too wide for float64", where, lo, hi)
		}
		s.lo, s.hi = append(s.lo, lo), append(s.hi, hi)
	}
	s.setNeutral()
	return s, nil
}

// Names returns the parameter names in file order.
func (s *Space) Names() []string {
	out := make([]string, len(s.Parameters))
	for i, p := range s.Parameters {
		out[i] = p.Name
	}
	return out
}

// Name is the space file's name.
func (s *Space) Name() string { return s.Path }

// Dim is the number of parameters.
func (s *Space) Dim() int { return len(s.Parameters) }

// Bounds returns the engine-coordinate box (log of the bounds for scale:
// log; the integers in the bounds for type: int).
func (s *Space) Bounds() (lower, upper []float64) {
	return append([]float64(nil), s.lo...), append([]float64(nil), s.hi...)
}

// Distance is the Euclidean distance between engine points a and b in the
// unit-scaled space, divided by LengthScale.
func (s *Space) Distance(a, b []float64) float64 {
	if s.mixed {
		return s.mixedDistance(a, b)
	}
	t := 0.0
	for j := range a {
		d := (a[j]-s.lo[j])/(s.hi[j]-s.lo[j]) - (b[j]-s.lo[j])/(s.hi[j]-s.lo[j])
		t += d * d
	}
	return math.Sqrt(t) / s.LengthScale
}

// Snap rounds the type: int coordinates of engine point x to the nearest
// admissible integer (in value space for scale: log); other coordinates are
// left alone. Snap is idempotent.
func (s *Space) Snap(x []float64) {
	if s.mixed {
		s.mixedSnap(x)
		return
	}
	for j, p := range s.Parameters {
		if p.IsInt() {
			x[j] = s.toEngine(j, s.value(j, x[j]))
		}
	}
}

// value maps engine coordinate x of parameter j to its value: exp for
// scale: log, rounded for type: int, always inside the parameter's bounds.
func (s *Space) value(j int, x float64) float64 {
	p := s.Parameters[j]
	v := x
	if p.IsLog() {
		v = math.Exp(x)
	}
	lo, hi := p.Lower, p.Upper
	if p.IsInt() && p.step() > 1 {
		lo, hi = math.Ceil(lo), p.top()
		v = lo + math.Round((v-lo)/p.step())*p.step()
	} else if p.isIndex() {
		v = math.Round(v)
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	v = math.Min(math.Max(v, lo), hi)
	if v == 0 {
		v = 0 // no negative zero: points compare by their bits
	}
	return v
}

func (s *Space) toEngine(j int, v float64) float64 {
	if math.IsNaN(v) { // inactive
		return s.neutral[j]
	}
	if s.Parameters[j].IsLog() {
		return math.Min(math.Max(math.Log(v), s.lo[j]), s.hi[j])
	}
	return v
}

// Values maps an engine point to parameter values: a categorical's choice
// index, NaN for an inactive conditional parameter.
func (s *Space) Values(x []float64) []float64 {
	out := make([]float64, len(x))
	for j := range x {
		out[j] = s.value(j, x[j])
	}
	if s.mixed {
		for j, on := range s.activeValues(out) {
			if !on {
				out[j] = math.NaN()
			}
		}
	}
	return out
}

// FormatPoint writes engine point x as parameter values in the space's
// order (Values, then Format): the user's units, as the objective command
// reads them.
func (s *Space) FormatPoint(x []float64) []string {
	out := make([]string, len(x))
	for j, v := range s.Values(x) {
		out[j] = s.Format(j, v)
	}
	return out
}

// Engine maps parameter values (inside the space) to an engine point.
// Linear parameters map to themselves, bit for bit; an inactive one (NaN)
// to its neutral coordinate.
func (s *Space) Engine(v []float64) []float64 {
	out := make([]float64, len(v))
	for j := range v {
		out[j] = s.toEngine(j, v[j])
	}
	return out
}

// CheckEngine reports why engine coordinate x is not admissible for
// parameter j ("" if it is): it must be finite, inside the engine bounds
// (Bounds) and, for type: int, the engine coordinate of an integer (Snap
// leaves it unchanged).
func (s *Space) CheckEngine(j int, x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "is not a finite number"
	case x < s.lo[j] || x > s.hi[j]:
		what := ""
		if s.Parameters[j].IsLog() {
			what = " (the natural log of the value, scale: log)"
		}
		return fmt.Sprintf("is outside the engine bounds [%v, %v]%s", s.lo[j], s.hi[j], what)
	case s.Parameters[j].IsCategorical() && s.toEngine(j, s.value(j, x)) != x:
		return "is not a choice index (type: categorical: 0 .. choices-1)"
	case s.Parameters[j].IsInt() && s.toEngine(j, s.value(j, x)) != x:
		return "is not the engine coordinate of an integer (type: int)"
	}
	return ""
}

// Check reports why value v is not admissible for parameter j ("" if it is).
func (s *Space) Check(j int, v float64) string {
	p := s.Parameters[j]
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "is not a finite number"
	case v < p.Lower || v > p.Upper:
		return fmt.Sprintf("is outside [%v, %v]", p.Lower, p.Upper)
	case p.IsInt() && v != math.Trunc(v):
		return "is not an integer (type: int)"
	case p.IsInt() && math.Mod(v-math.Ceil(p.Lower), p.step()) != 0:
		return fmt.Sprintf("is not on the parameter's grid (step: %v from %v)", p.step(), math.Ceil(p.Lower))
	}
	return ""
}

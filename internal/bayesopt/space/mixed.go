package space

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/bayesopt"
)

// Mixed spaces: categorical and conditional parameters.
//
// Space file: {name: kernel, type: categorical, choices: [rbf, poly]} is a
// categorical parameter; when: {kernel: poly} (or when: {kernel: [poly,
// sigmoid]}) makes a parameter conditional on earlier categorical ones:
// active only when each named parameter is active and takes one of the
// listed choices. In evaluation files, pending files, suggestions, the
// objective command's input and solutions, a categorical's cell is its
// choice's text and an inactive parameter's cell is empty.
//
// Engine coordinates: a categorical with k choices is its 0-based choice
// index, in the box [-0.5, k-0.5] (Snap rounds; a uniform draw picks each
// choice with probability 1/k). An inactive parameter sits at its neutral
// coordinate: the middle of its engine box (snapped to an integer for
// type: int), choice 0 for a categorical. Snap sets it there, so two
// points that differ only in inactive parameters are one point.
//
// Records: a mixed space's run records (runs/KEY.csv, columns x0 ..
// x{d-1}) hold a categorical's choice text and an empty cell for an
// inactive parameter; the other cells are engine coordinates as numbers
// (the natural log for scale: log). Reading them back (recordX,
// parseRecordX) gives the engine point bit for bit: choice text to its
// index, an empty cell to the neutral coordinate.
//
// Model encoding (bayesopt.Encoder, what the GP and the feasibility model
// see): a continuous or int parameter is its unit-scaled coordinate, 0.5
// while inactive; a categorical with k choices is k one-hot coordinates
// (all 0 while inactive), so the GP's ARD kernel gives each choice its own
// length scale and no order between choices is assumed.
//
// Trust region (bayesopt.CandidateMixer): the continuous coordinates move
// in TuRBO's box; the categorical ones within a Hamming distance of the
// centre's choices, as CASMOPOLITAN does: with c categoricals and a trust
// region of side L (unit cube), each candidate changes h of them, h drawn
// uniformly from 0 .. max(1, min(c, ceil(L·c))), each to a uniformly drawn
// other choice; a parameter inactive at the centre and active in the
// candidate takes a uniform value (a centre says nothing about it).
//
// Diversity distance: sqrt(Σ_j d_j²) / length_scale, d_j the unit-scaled
// difference of a continuous or int parameter active in both points, 1 for
// a categorical whose choices differ (the Hamming distance), 1 for a
// parameter active in one point only and 0 for one inactive in both. For a
// space without categorical and conditional parameters this is the
// Euclidean distance of Space.Distance.

// choiceList is a when: condition's choices: one choice or a list.
type choiceList []string

// UnmarshalYAML reads a scalar or a sequence of scalars.
func (c *choiceList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*c = choiceList{n.Value}
		return nil
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return err
		}
		*c = l
		return nil
	}
	return fmt.Errorf("line %d: a when: condition is a choice or a list of choices", n.Line)
}

// parameterNodes returns the node of each item of the parameters: list
// and the top-level mapping (nil if the file does not parse as expected;
// Parse reports that).
func parameterNodes(b []byte) (params []*yaml.Node, top *yaml.Node) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil || len(doc.Content) == 0 {
		return nil, nil
	}
	top = doc.Content[0]
	if n := nodeAt(top, "parameters"); n != top && n.Kind == yaml.SequenceNode {
		params = n.Content
	}
	return params, top
}

// nodeAt walks from n along path: a string step is, in a mapping, the
// value of that key and, in a sequence, the first element of that value;
// a keyOf step is a mapping's key; an int step is a sequence's element of
// that index. It stops where the
// path leaves the tree and returns the last node reached, so an error
// points at the deepest part of the path the file has.
func nodeAt(n *yaml.Node, path ...any) *yaml.Node {
	for _, step := range path {
		next := (*yaml.Node)(nil)
		switch k := step.(type) {
		case keyOf:
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == string(k) {
					next = n.Content[i]
					break
				}
			}
		case string:
			switch n.Kind {
			case yaml.MappingNode:
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next = n.Content[i+1]
						break
					}
				}
			case yaml.SequenceNode:
				for _, e := range n.Content {
					if e.Kind == yaml.ScalarNode && e.Value == k {
						next = e
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k >= 0 && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// keyOf is a step of nodeAt to a mapping's key itself, not its value.
type keyOf string

// position is "line L, column C" of n, "" for nil.
func position(n *yaml.Node) string {
	if n == nil || n.Line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d, column %d", n.Line, n.Column)
}

// checkCategorical validates categorical parameter i (no bounds, scale or
// int; at least two distinct, non-empty choices without surrounding spaces
// or line breaks) and sets its Lower and Upper to its choice indices.
func (s *Space) checkCategorical(i int, at func(path ...any) string) error {
	p := &s.Parameters[i]
	switch {
	case p.Lower != 0 || p.Upper != 0 || p.Scale != "":
		return fmt.Errorf("%s: type: categorical takes choices:, not lower, upper or scale", at())
	case len(p.Choices) < 2:
		return fmt.Errorf("%s: type: categorical needs at least two choices, got %d", at("choices"), len(p.Choices))
	}
	first := map[string]int{}
	for k, c := range p.Choices {
		switch {
		case strings.TrimSpace(c) == "":
			return fmt.Errorf("%s: choice %d is empty", at("choices", k), k+1)
		case c != strings.TrimSpace(c) || strings.ContainsAny(c, "\n\r"):
			return fmt.Errorf("%s: choice %q must not have surrounding spaces or line breaks", at("choices", k), c)
		case first[c] > 0:
			return fmt.Errorf("%s: choice %q is repeated (choices %d and %d)", at("choices", k), c, first[c], k+1)
		}
		first[c] = k + 1
	}
	p.Lower, p.Upper = 0, float64(len(p.Choices)-1)
	s.mixed = true
	return nil
}

// checkWhen validates parameter i's when: every key names a categorical
// parameter declared before it (seen: name -> 1-based index), every choice
// is one of its choices; it records the parents.
func (s *Space) checkWhen(i int, at func(path ...any) string, seen map[string]int) error {
	p := s.Parameters[i]
	if len(p.Choices) > 0 && !p.IsCategorical() {
		return fmt.Errorf("%s: choices: is for type: categorical", at("choices"))
	}
	for len(s.parents) <= i {
		s.parents = append(s.parents, nil)
	}
	if p.When != nil && len(p.When) == 0 {
		return fmt.Errorf("%s: when: names no parameter; expected {parameter: choice}, or no when: for a parameter always active", at("when"))
	}
	keys := make([]string, 0, len(p.When))
	for k := range p.When {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := seen[k] - 1
		switch {
		case k == p.Name:
			return fmt.Errorf("%s: when: names the parameter itself", at("when", keyOf(k)))
		case c < 0:
			return fmt.Errorf("%s: when: names %q, which is no parameter declared before it", at("when", keyOf(k)), k)
		case !s.Parameters[c].IsCategorical():
			return fmt.Errorf("%s: when: names %q, which is not type: categorical", at("when", keyOf(k)), k)
		case len(p.When[k]) == 0:
			return fmt.Errorf("%s: when: %s: expected one of its choices %v", at("when", k), k, s.Parameters[c].Choices)
		}
		for n, v := range p.When[k] {
			if !slices.Contains(s.Parameters[c].Choices, v) {
				return fmt.Errorf("%s: when: %s: %q is not one of its choices %v", at("when", k, v), k, v, s.Parameters[c].Choices)
			}
			if slices.Contains(p.When[k][:n], v) {
				return fmt.Errorf("%s: when: %s: %q is listed twice", at("when", k, n), k, v)
			}
		}
		s.parents[i] = append(s.parents[i], c)
		s.mixed = true
	}
	return nil
}

// setNeutral sets each parameter's neutral engine coordinate.
func (s *Space) setNeutral() {
	s.neutral = make([]float64, s.Dim())
	for j, p := range s.Parameters {
		switch {
		case p.IsCategorical():
			s.neutral[j] = 0
		default:
			s.neutral[j] = (s.lo[j] + s.hi[j]) / 2
			if p.IsInt() {
				s.neutral[j] = s.toEngine(j, s.value(j, s.neutral[j]))
			}
		}
	}
	for len(s.parents) < s.Dim() {
		s.parents = append(s.parents, nil)
	}
}

// activity reports which parameters are active, given choice(c), the
// choice index of categorical parameter c (-1: none).
func (s *Space) activity(choice func(c int) int) []bool {
	on := make([]bool, s.Dim())
	for j, p := range s.Parameters {
		on[j] = true
		for _, c := range s.parents[j] {
			k := choice(c)
			if !on[c] || k < 0 || !slices.Contains(p.When[s.Parameters[c].Name], s.Parameters[c].Choices[k]) {
				on[j] = false
				break
			}
		}
	}
	return on
}

// activeValues: activity of a point of parameter values (NaN: none).
func (s *Space) activeValues(v []float64) []bool {
	return s.activity(func(c int) int {
		if math.IsNaN(v[c]) {
			return -1
		}
		return int(v[c])
	})
}

// activeEngine: activity of an engine point.
func (s *Space) activeEngine(x []float64) []bool {
	return s.activity(func(c int) int { return int(s.value(c, x[c])) })
}

// mixedSnap rounds int and categorical coordinates and moves inactive ones
// to their neutral coordinate (parents first: When names earlier ones).
func (s *Space) mixedSnap(x []float64) {
	for j, p := range s.Parameters {
		if p.isIndex() {
			x[j] = s.toEngine(j, s.value(j, x[j]))
		}
	}
	for j, on := range s.activeEngine(x) {
		if !on {
			x[j] = s.neutral[j]
		}
	}
}

// mixedDistance is the distance of a mixed space (see above).
func (s *Space) mixedDistance(a, b []float64) float64 {
	ona, onb := s.activeEngine(a), s.activeEngine(b)
	t := 0.0
	for j, p := range s.Parameters {
		switch {
		case !ona[j] && !onb[j]:
		case ona[j] != onb[j]:
			t++
		case p.IsCategorical():
			if s.value(j, a[j]) != s.value(j, b[j]) {
				t++
			}
		default:
			d := (a[j] - b[j]) / (s.hi[j] - s.lo[j])
			t += d * d
		}
	}
	return math.Sqrt(t) / s.LengthScale
}

// unitToEngine maps unit-cube coordinate u of parameter j to its engine box.
func (s *Space) unitToEngine(j int, u float64) float64 {
	return math.Min(math.Max(s.lo[j]+u*(s.hi[j]-s.lo[j]), s.lo[j]), s.hi[j])
}

// encode is the model encoding of unit-cube point u (see above).
func (s *Space) encode(u []float64) []float64 {
	x := make([]float64, len(u))
	for j := range u {
		x[j] = s.unitToEngine(j, u[j])
	}
	on := s.activeEngine(x)
	var out []float64
	for j, p := range s.Parameters {
		switch {
		case p.IsCategorical():
			hot := make([]float64, len(p.Choices))
			if on[j] {
				hot[int(s.value(j, x[j]))] = 1
			}
			out = append(out, hot...)
		case on[j]:
			out = append(out, u[j])
		default:
			out = append(out, 0.5)
		}
	}
	return out
}

// unitOf is the unit-cube coordinate of choice k of categorical j.
func (s *Space) unitOf(j, k int) float64 {
	return (float64(k) + 0.5) / float64(len(s.Parameters[j].Choices))
}

// mixCandidates is the categorical trust region (see above).
func (s *Space) mixCandidates(centre []float64, cand [][]float64, length float64, rng *rand.Rand) {
	var cats []int
	for j, p := range s.Parameters {
		if p.IsCategorical() {
			cats = append(cats, j)
		}
	}
	if len(cats) == 0 {
		return
	}
	cx := make([]float64, len(centre))
	for j := range centre {
		cx[j] = s.unitToEngine(j, centre[j])
	}
	con := s.activeEngine(cx)
	radius := max(1, min(len(cats), int(math.Ceil(length*float64(len(cats))))))
	x := make([]float64, len(centre))
	for _, row := range cand {
		for _, j := range cats {
			row[j] = centre[j]
		}
		h := rng.IntN(radius + 1)
		for _, a := range rng.Perm(len(cats))[:h] {
			j := cats[a]
			k := len(s.Parameters[j].Choices)
			cur := int(s.value(j, cx[j]))
			other := rng.IntN(k - 1)
			if other >= cur {
				other++
			}
			row[j] = s.unitOf(j, other)
		}
		for j := range row {
			x[j] = s.unitToEngine(j, row[j])
		}
		for j, on := range s.activeEngine(x) {
			if on && !con[j] {
				row[j] = rng.Float64()
				x[j] = s.unitToEngine(j, row[j])
			}
		}
	}
}

// checkActive reports, for a row of parameter values (NaN: empty cell),
// the first parameter given while inactive or missing while active.
func (s *Space) checkActive(v []float64) (int, string) {
	on := s.activeValues(v)
	for j := range s.Parameters {
		switch {
		case on[j] && math.IsNaN(v[j]):
			return j, "is missing: it applies when " + s.condition(j, v)
		case !on[j] && !math.IsNaN(v[j]):
			return j, "must be empty: it applies only when " + s.condition(j, v)
		}
	}
	return -1, ""
}

// condition describes parameter j's when: for a message.
func (s *Space) condition(j int, v []float64) string {
	var parts []string
	for _, c := range s.parents[j] {
		p := s.Parameters[c]
		now := "empty"
		if !math.IsNaN(v[c]) {
			now = p.Choices[int(v[c])]
		}
		parts = append(parts, fmt.Sprintf("%s is %s (here %s)", p.Name, strings.Join(s.Parameters[j].When[p.Name], " or "), now))
	}
	return strings.Join(parts, " and ")
}

// Mixed reports whether the space has a categorical or a conditional
// parameter.
func (s *Space) Mixed() bool { return s.mixed }

// choiceIndex returns the index of text among parameter j's choices (-1).
func (s *Space) choiceIndex(j int, text string) int {
	return slices.Index(s.Parameters[j].Choices, text)
}

// Domain is the space as the engine's domain: the space itself, or for a
// mixed space the space with its model encoding and categorical trust
// region (bayesopt.Encoder, bayesopt.CandidateMixer). A space without
// categorical or conditional parameters is not an Encoder, so its runs are
// what they were before mixed spaces existed.
func (s *Space) Domain() bayesopt.Domain {
	if s.mixed {
		return mixedDomain{s, mixedHooks{s}}
	}
	return s
}

// Objective is the command as the engine's objective: the command itself,
// or for a mixed space the command with the space's model encoding and
// categorical trust region (Space.Domain).
func (c *Command) Objective() bayesopt.Objective {
	if c.mixed {
		return mixedCommand{c, mixedHooks{c.Space}}
	}
	return c
}

// mixedHooks are a mixed space's bayesopt.Encoder and
// bayesopt.CandidateMixer.
type mixedHooks struct{ s *Space }

func (h mixedHooks) Encode(u []float64) []float64 { return h.s.encode(u) }
func (h mixedHooks) MixCandidates(c []float64, cand [][]float64, l float64, rng *rand.Rand) {
	h.s.mixCandidates(c, cand, l, rng)
}

type mixedDomain struct {
	*Space
	mixedHooks
}

type mixedCommand struct {
	*Command
	mixedHooks
}

// recordX renders snapped engine point x as the x cells of a mixed
// space's records (see Records above).
func (s *Space) recordX(x []float64) []string {
	out := make([]string, len(x))
	for j, on := range s.activeEngine(x) {
		switch {
		case !on:
		case s.Parameters[j].IsCategorical():
			out[j] = s.Parameters[j].Choices[int(s.value(j, x[j]))]
		default:
			out[j] = strconv.FormatFloat(x[j], 'g', -1, 64)
		}
	}
	return out
}

// parseRecordX reads the x cells of a mixed space's record row back to the
// engine point recordX wrote them from. A choice not in the list, a cell
// that is not a number or outside the engine bounds, an active parameter's
// empty cell and an inactive one's value are errors: it returns the index
// of the cell and why (x nil).
func (s *Space) parseRecordX(cells []string) (x []float64, col int, why string) {
	x = make([]float64, s.Dim())
	empty := make([]bool, s.Dim())
	for j, p := range s.Parameters {
		cell := strings.TrimSpace(cells[j])
		switch {
		case cell == "":
			x[j], empty[j] = s.neutral[j], true
		case p.IsCategorical():
			k := s.choiceIndex(j, cell)
			if k < 0 {
				return nil, j, fmt.Sprintf("%s: %q is not one of the choices %s", p.Name, cell, strings.Join(p.Choices, ", "))
			}
			x[j] = float64(k)
		default:
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				return nil, j, fmt.Sprintf("%s: %q is not a number", p.Name, cell)
			}
			if why := s.CheckEngine(j, v); why != "" {
				return nil, j, fmt.Sprintf("%s: %q %s", p.Name, cell, why)
			}
			x[j] = v
		}
	}
	v := s.Values(x)
	for j, on := range s.activeEngine(x) {
		switch {
		case on && empty[j]:
			p := s.Parameters[j]
			need := "a number"
			if p.IsCategorical() {
				need = "one of the choices " + strings.Join(p.Choices, ", ")
			}
			if len(s.parents[j]) > 0 {
				need += ": it applies when " + s.condition(j, v)
			}
			return nil, j, fmt.Sprintf("%s is empty, expected %s", p.Name, need)
		case !on && !empty[j]:
			return nil, j, fmt.Sprintf("%s must be empty: it applies only when %s", s.Parameters[j].Name, s.condition(j, v))
		}
	}
	return x, -1, ""
}

// FormatX writes a run's record cells (bayesopt.RecordCoder): choice text,
// empty cells for inactive parameters.
func (c mixedCommand) FormatX(x []float64) []string { return c.Space.recordX(x) }

// ParseX reads a run's record cells (bayesopt.RecordCoder).
func (c mixedCommand) ParseX(cells []string) ([]float64, int, string) {
	return c.Space.parseRecordX(cells)
}

package configkeys

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// level is one node of a config's shape: for a struct, the valid keys and
// the level below each; for a map, any key (free); for a list, its
// element; for a number, its kind (so whole-number fields can be checked).
type level struct {
	keys map[string]*level
	free bool         // a map: any key is valid
	kind reflect.Kind // the Go kind of a leaf value
	elem *level       // a list's element
}

// levelOf builds the key tree of type t from its mapstructure tags.
func levelOf(t reflect.Type, depth int) *level {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map:
		return &level{free: true}
	case reflect.Slice, reflect.Array:
		return &level{kind: t.Kind(), elem: levelOf(t.Elem(), depth+1)}
	case reflect.Struct:
	default:
		return &level{kind: t.Kind()}
	}
	if depth > 16 { // a recursive type: stop checking below here
		return &level{free: true}
	}
	l := &level{keys: map[string]*level{}, kind: reflect.Struct}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("mapstructure")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && (strings.Contains(opts, "squash") || f.Anonymous) {
			if sub := levelOf(f.Type, depth+1); sub.kind == reflect.Struct || sub.free {
				if sub.free {
					l.free = true
				}
				for k, v := range sub.keys {
					l.keys[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		l.keys[strings.ToLower(name)] = levelOf(f.Type, depth+1)
	}
	return l
}

// Keys lists the valid top-level keys of target (a struct or a pointer to
// one), sorted.
func Keys(target any) []string {
	return sortedKeys(levelOf(reflect.TypeOf(target), 0))
}

func sortedKeys(l *level) []string {
	out := make([]string, 0, len(l.keys))
	for k := range l.keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UnknownKeyError is a key of the file that the target has no place for.
type UnknownKeyError struct {
	Path       string // the config file
	Line       int    // 1-based line of the key
	Key        string // dotted path of the key, e.g. "pool.bmg.kk"
	Suggestion string // the nearest valid key at that level, or ""
	Valid      []string
}

func (e *UnknownKeyError) Error() string {
	s := fmt.Sprintf("config %s:%d: unknown key %q", e.Path, e.Line, e.Key)
	if e.Suggestion != "" {
		return s + fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return s + "; expected one of " + strings.Join(e.Valid, ", ")
}

// Check parses data, the YAML text of the config file path, and reports
// every key target has no place for, and every number that its field
// cannot hold exactly (20.5 for an integer, which the decoder would
// truncate to 20; -1 for an unsigned seed, which it would wrap to 2^64-1),
// each with its line (several joined with errors.Join). A YAML syntax error
// is reported as such. An empty file is valid.
func Check(path string, data []byte, target any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := levelOf(reflect.TypeOf(target), 0)
	if root.kind != reflect.Struct {
		return nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
			return nil
		}
		return fmt.Errorf("config %s:%d: expected a mapping of keys (key: value), found %s", path, top.Line, kindName(top))
	}
	var errs []error
	walk(path, top, root, "", &errs)
	return errors.Join(errs...)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// walk checks the keys of mapping node n against l.
func walk(path string, n *yaml.Node, l *level, prefix string, errs *[]error) {
	if l == nil || l.free || n.Kind != yaml.MappingNode || l.kind != reflect.Struct {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue // a complex key: the decoder reports it
		}
		if k.Value == "<<" { // a YAML merge: its keys land at this level
			continue
		}
		sub, ok := l.keys[strings.ToLower(k.Value)]
		if !ok {
			valid := sortedKeys(l)
			*errs = append(*errs, &UnknownKeyError{Path: path, Line: k.Line, Key: prefix + k.Value,
				Suggestion: Suggest(strings.ToLower(k.Value), valid), Valid: valid})
			continue
		}
		checkValue(path, v, sub, prefix+k.Value, errs)
	}
}

// checkValue checks the value node v of key against its level: nested
// keys, list elements, and whole numbers for integer fields.
func checkValue(path string, v *yaml.Node, l *level, key string, errs *[]error) {
	if l == nil {
		return
	}
	switch v.Kind {
	case yaml.MappingNode:
		walk(path, v, l, key+".", errs)
	case yaml.SequenceNode:
		if l.elem != nil {
			for _, e := range v.Content {
				checkValue(path, e, l.elem, key, errs)
			}
		}
	case yaml.ScalarNode:
		if err := checkNumber(v, l.kind); err != "" {
			*errs = append(*errs, fmt.Errorf("config %s:%d: %s: %s", path, v.Line, key, err))
		}
	}
}

// checkNumber returns what is wrong with scalar v as a value of a numeric
// kind: text or a boolean where a number is expected, a fraction or an
// infinity for an integer, a negative value for an unsigned one ("" when
// fine, and for every non-numeric kind).
func checkNumber(v *yaml.Node, kind reflect.Kind) string {
	signed := kind >= reflect.Int && kind <= reflect.Int64
	unsigned := kind >= reflect.Uint && kind <= reflect.Uint64
	float := kind == reflect.Float32 || kind == reflect.Float64
	if !signed && !unsigned && !float {
		return ""
	}
	if v.Tag == "!!str" || v.Tag == "!!bool" {
		if float {
			return fmt.Sprintf("%q is not a number", v.Value)
		}
		return fmt.Sprintf("%q is not a whole number", v.Value)
	}
	if float || (v.Tag != "!!float" && v.Tag != "!!int") {
		return ""
	}
	x, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
	if err != nil {
		if v.Tag == "!!float" { // .inf, .nan
			return fmt.Sprintf("%s is not a whole number", v.Value)
		}
		return "" // 0x.., 0o..: the decoder parses these
	}
	if x != math.Trunc(x) || math.IsInf(x, 0) {
		return fmt.Sprintf("%s is not a whole number", v.Value)
	}
	if unsigned && x < 0 {
		return fmt.Sprintf("%s is negative: expected a whole number >= 0", v.Value)
	}
	return checkRange(v, kind, x)
}

// checkRange returns what is wrong with whole number v (x as a float) as a
// value of integer kind: beyond the kind's range the decoder would wrap it
// (seed: 18446744073709551616 became 0, repeats: 1e30 became
// -9223372036854775808), so it is refused with the largest value allowed.
func checkRange(v *yaml.Node, kind reflect.Kind, x float64) string {
	bits := 64
	switch kind {
	case reflect.Int8, reflect.Uint8:
		bits = 8
	case reflect.Int16, reflect.Uint16:
		bits = 16
	case reflect.Int32, reflect.Uint32:
		bits = 32
	case reflect.Int, reflect.Uint:
		bits = strconv.IntSize
	}
	clean := strings.ReplaceAll(v.Value, "_", "")
	if kind >= reflect.Uint && kind <= reflect.Uint64 {
		limit := uint64(1)<<(bits-1) - 1 + uint64(1)<<(bits-1)
		_, err := strconv.ParseUint(strings.TrimPrefix(clean, "+"), 0, bits)
		if errors.Is(err, strconv.ErrRange) || (err != nil && x >= math.Ldexp(1, bits)) {
			return fmt.Sprintf("%s is too large: expected a whole number <= %d", v.Value, limit)
		}
		return ""
	}
	lo, hi := -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
	_, err := strconv.ParseInt(clean, 0, bits)
	if errors.Is(err, strconv.ErrRange) || (err != nil && (x >= math.Ldexp(1, bits-1) || x < float64(lo))) {
		return fmt.Sprintf("%s is out of range: expected a whole number from %d to %d", v.Value, lo, hi)
	}
	return ""
}

// Suggest returns the option nearest to word by edit distance (Levenshtein,
// case-sensitive), if it is near enough to be a typo: no guess for words of
// 1-2 characters, at most 1 edit up to 4 characters, 2 up to 8, 3 beyond;
// else an option that word is a prefix of (3+ characters). Ties go to the
// first option in order; "" when none is near or word is itself an option.
func Suggest(word string, options []string) string {
	if len(word) <= 2 {
		return ""
	}
	for _, o := range options {
		if o == word {
			return ""
		}
	}
	best, bestD := "", -1
	limit := 1
	switch {
	case len(word) > 8:
		limit = 3
	case len(word) > 4:
		limit = 2
	}
	for _, o := range options {
		d := distance(word, o)
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = o, d
		}
	}
	if best != "" {
		return best
	}
	for _, o := range options {
		if strings.HasPrefix(o, word) {
			return o
		}
	}
	return ""
}

// distance is the Levenshtein distance between a and b in bytes (config
// keys and flag names are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

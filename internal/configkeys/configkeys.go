package configkeys

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
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
	self reflect.Type // a type that decodes itself (free), checked by decoding
}

// levelOf builds the key tree of type t from its `yaml` tags, the one tag
// set of every config struct: ",inline" fields contribute their keys to
// the enclosing level, "-" fields are no key, an untagged field's key is
// its name in lower case (as the YAML decoder reads it). A type that
// decodes itself (a yaml.Unmarshaler, such as vendi.OrderList) is a leaf
// whose values are its own to check: checkValue decodes them so that a
// refusal names the file, line and key.
func levelOf(t reflect.Type, depth int) *level {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(obsoleteUnmarshalerType) {
		return &level{free: true, self: t}
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
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" && slices.Contains(strings.Split(opts, ","), "inline") {
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
			name = strings.ToLower(f.Name)
		}
		l.keys[name] = levelOf(f.Type, depth+1)
	}
	return l
}

// The two interfaces by which a type decodes its own YAML.
var (
	unmarshalerType         = reflect.TypeFor[yaml.Unmarshaler]()
	obsoleteUnmarshalerType = reflect.TypeFor[interface {
		UnmarshalYAML(unmarshal func(any) error) error
	}]()
)

// keys lists the valid top-level keys of target (a struct or a pointer to
// one), sorted.
func keys(target any) []string {
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
// every key target has no place for, and every value its field cannot
// hold: a number it cannot hold exactly (20.5 for an integer, which the
// decoder would truncate to 20; -1 for an unsigned seed, which it would
// wrap to 2^64-1), text for a number or a boolean, a list or a mapping for
// one value, each with its line and key (several joined with
// errors.Join). A YAML syntax error is reported as such. An empty file is
// valid.
func Check(path string, data []byte, target any) error {
	doc, err := Parse(path, data)
	if err != nil {
		return err
	}
	_, err = check(path, doc, target)
	return err
}

// Parse parses data, the YAML text of the config file path, into its
// document node, which LoadNode decodes (a command that reads a key
// first, to choose the defaults the file is loaded onto, reads the file
// once). A syntax error names path.
func Parse(path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return &doc, nil
}

// check is Check of the parsed document doc, returning it (nil for an
// empty one) with its single values for lists made lists (doc is
// changed).
func check(path string, doc *yaml.Node, target any) (*yaml.Node, error) {
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := levelOf(reflect.TypeOf(target), 0)
	if root.kind != reflect.Struct {
		return doc, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
			return nil, nil
		}
		return nil, fmt.Errorf("config %s:%d: expected a mapping of keys (key: value), found %s", path, top.Line, kindName(top))
	}
	var errs []error
	walk(path, top, root, "", &errs)
	return doc, errors.Join(errs...)
}

// load decodes data, the YAML text of the config file path, onto target
// (a pointer to a struct with `yaml` tags holding the defaults): only the
// keys the file sets change, a list the file sets replaces the default
// list. Check runs first, so an unknown key or a value of the wrong type is
// an error naming the file, the line and the key; the decoder then refuses
// unknown fields again (KnownFields), which also covers keys brought in by
// a YAML merge (<<) that Check does not follow. Every error names path.
func load(path string, data []byte, target any) error {
	doc, err := Parse(path, data)
	if err != nil {
		return err
	}
	return LoadNode(path, doc, target)
}

// LoadNode is Load of the document Parse returned for the config file
// path. It changes doc (single values for lists become lists): a document
// is loaded once.
func LoadNode(path string, doc *yaml.Node, target any) error {
	doc, err := check(path, doc, target)
	if err != nil || doc == nil {
		return err
	}
	// Re-encoded once check has made single values lists: the decoder's
	// KnownFields works on a stream, not on a node.
	text, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(target); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// kindName names the kind of node n for a message.
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
		sub, ok := l.keys[k.Value]
		if !ok {
			valid := sortedKeys(l)
			suggestion := Suggest(k.Value, valid)
			if lower := strings.ToLower(k.Value); l.keys[lower] != nil {
				suggestion = lower // keys are lower case: Task is task
			}
			*errs = append(*errs, &UnknownKeyError{Path: path, Line: k.Line, Key: prefix + k.Value,
				Suggestion: suggestion, Valid: valid})
			continue
		}
		checkValue(path, v, sub, prefix+k.Value, errs)
	}
}

// checkValue checks the value node v of key against its level: nested
// keys, list elements, whole numbers for integer fields, booleans, and the
// shape (a mapping for a section, one value for a leaf). A single value
// where a list is expected becomes a list of that value (methods: qvs is
// methods: [qvs]), as the config reader has always accepted.
func checkValue(path string, v *yaml.Node, l *level, key string, errs *[]error) {
	if l == nil {
		return
	}
	bad := func(format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("config %s:%d: %s: %s", path, v.Line, key, fmt.Sprintf(format, args...)))
	}
	if l.self != nil {
		// The type's own decoder refuses the value here, where its key
		// and line are known (the decoder's error would name neither).
		if err := v.Decode(reflect.New(l.self).Interface()); err != nil {
			bad("%v", err)
		}
		return
	}
	if l.free {
		return
	}
	isList := l.kind == reflect.Slice || l.kind == reflect.Array
	if isList && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		elem := *v
		*v = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: v.Line, Column: v.Column, Content: []*yaml.Node{&elem}}
	}
	switch v.Kind {
	case yaml.MappingNode:
		if l.kind != reflect.Struct {
			bad("expected %s, found a mapping of keys", expected(l))
			return
		}
		walk(path, v, l, key+".", errs)
	case yaml.SequenceNode:
		if !isList {
			bad("expected %s, found a list", expected(l))
			return
		}
		for _, e := range v.Content {
			checkValue(path, e, l.elem, key, errs)
		}
	case yaml.ScalarNode:
		switch {
		case v.Tag == "!!null":
		case l.kind == reflect.Struct:
			bad("expected a mapping of keys (key: value), found %s", kindName(v))
		case l.kind == reflect.Bool && v.Tag != "!!bool":
			bad("%q is not true or false", v.Value)
		default:
			if err := checkNumber(v, l.kind); err != "" {
				bad("%s", err)
			}
		}
	}
}

// expected names what a value of level l is, for a message.
func expected(l *level) string {
	switch {
	case l.kind == reflect.Struct:
		return "a mapping of keys"
	case l.kind == reflect.Slice || l.kind == reflect.Array:
		return "a list"
	case l.kind == reflect.Bool:
		return "true or false"
	case l.kind >= reflect.Int && l.kind <= reflect.Uint64:
		return "a whole number"
	case l.kind == reflect.Float32 || l.kind == reflect.Float64:
		return "a number"
	}
	return "one value"
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

package configkeys

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// A Table is a command's settings table: one Binding per setting, tying
// the flag that sets it to its config key and to the field of the
// resolved settings both write. A command resolves its settings in one
// order, always: the defaults (already in the fields), then the config
// file (Load), then the flags the user set (Apply). The same table names,
// in a SettingError, the flag the user typed for a key (Name).
//
// Flags keep their own storage until Apply, so a flag parsed before the
// config file is read still overrides the file.
type Table struct {
	fs       *pflag.FlagSet
	bindings []Binding
}

// A Binding is one row of a Table. Key is "" for a flag that sets a field
// no config key reaches; Flag is "" for a key no flag sets.
type Binding struct {
	Flag, Key string
	apply     func() // copies the parsed flag value into the field
	// fields are the addresses of the fields the flag sets (none for
	// BindFunc and Key: unknown): FlagsOutside reads them.
	fields []uintptr
}

// NewTable returns an empty table whose flags are defined on fs.
func NewTable(fs *pflag.FlagSet) *Table { return &Table{fs: fs} }

// Bind defines flag on the table's flag set with define (a FlagSet method
// such as IntVar, StringVar, Float64Var, BoolVar), default def and usage,
// and binds it to config key and to fields: Apply copies the flag's value
// into each field when the user set the flag (a command whose settings
// take one of several shapes, as qvs bayesopt's continuous and discrete
// protocols, binds the flag to the field of each). Values stay typed: an
// int flag writes an int.
func Bind[T any](t *Table, define func(p *T, name string, value T, usage string), flag, key string, def T, usage string, fields ...*T) {
	v := new(T)
	define(v, flag, def, usage)
	t.bindings = append(t.bindings, Binding{Flag: flag, Key: key, apply: func() {
		for _, f := range fields {
			*f = *v
		}
	}, fields: addresses(fields)})
}

// BindList defines flag as a comma-separated List whose items check
// (if non-nil) accepts, and binds it to config key and to fields: Apply
// sets each field to the items when the user set the flag. The items are
// kept as the user wrote them (a config records them verbatim).
func BindList(t *Table, flag, key string, check func(item string) error, usage string, fields ...*[]string) {
	l := &list{Check: check}
	t.fs.Var(l, flag, usage)
	t.bindings = append(t.bindings, Binding{Flag: flag, Key: key, apply: func() {
		for _, f := range fields {
			*f = slices.Clone(l.Items)
		}
	}, fields: addresses(fields)})
}

// BindValue defines flag as a pflag.Value of type T (a typed value that
// parses and checks itself when the flag is parsed, as vendi.OrderList),
// starting from def, and binds it to config key and to fields: Apply
// copies the parsed value into each field when the user set the flag.
func BindValue[T any, P interface {
	*T
	pflag.Value
}](t *Table, flag, key string, def T, usage string, fields ...*T) {
	v := new(T)
	*v = def
	bindVar(t, flag, key, P(v), v, usage, fields)
}

// BindChoice defines flag as a Choice among choices starting from def and
// binds it to config key and to fields: a word not in choices is refused
// when the flag is parsed; Apply copies the word into each field when the
// user set the flag.
func BindChoice(t *Table, flag, key, def string, choices []string, usage string, fields ...*string) {
	c := &Choice{Value: def, Choices: choices}
	bindVar(t, flag, key, c, &c.Value, usage, fields)
}

// BindMinInt defines flag as a minInt of at least min starting from def and
// binds it to config key and to fields, as BindChoice does.
func BindMinInt(t *Table, flag, key string, def, min int, usage string, fields ...*int) {
	m := &minInt{Value: def, Min: min}
	bindVar(t, flag, key, m, &m.Value, usage, fields)
}

// bindVar defines flag as v, whose parsed value is *val, and binds it to
// config key and to fields.
func bindVar[T any](t *Table, flag, key string, v pflag.Value, val *T, usage string, fields []*T) {
	t.fs.Var(v, flag, usage)
	t.bindings = append(t.bindings, Binding{Flag: flag, Key: key, apply: func() {
		for _, f := range fields {
			*f = *val
		}
	}, fields: addresses(fields)})
}

// addresses are the addresses of fields.
func addresses[T any](fields []*T) []uintptr {
	out := make([]uintptr, len(fields))
	for i, f := range fields {
		out[i] = reflect.ValueOf(f).Pointer()
	}
	return out
}

// FlagsOutside lists the flags of the table that set no field of
// settings, a pointer to a struct (as the discrete protocol among the
// fields of qvs bayesopt's flags, which also fill the continuous one):
// the flags that mean nothing for those settings, derived from the
// bindings themselves, so no second list can drift from them. Flags whose
// fields are unknown (BindFunc, Key) are never listed.
func (t *Table) FlagsOutside(settings any) []string { return t.flags(settings, false) }

// FlagsInside lists the flags of the table that set a field of settings,
// a pointer to a struct, in the table's order: the flags that apply only
// where those settings do (as suggest's label-only and score-only flags,
// the settings only a user's own problem has). Flags whose fields are
// unknown are never listed.
func (t *Table) FlagsInside(settings any) []string { return t.flags(settings, true) }

// flags lists the flags with known fields that set a field of settings
// (inside) or none (!inside); a nil table has none.
func (t *Table) flags(settings any, inside bool) []string {
	if t == nil {
		return nil
	}
	v := reflect.ValueOf(settings)
	lo := v.Pointer()
	hi := lo + v.Type().Elem().Size()
	var out []string
	for _, b := range t.bindings {
		if b.Flag == "" || len(b.fields) == 0 {
			continue
		}
		in := false
		for _, a := range b.fields {
			in = in || (a >= lo && a < hi)
		}
		if in == inside {
			out = append(out, b.Flag)
		}
	}
	return out
}

// Choice is a flag value that is one word of Choices: Set refuses any
// other, so a bad word fails when the flag is parsed, with a message that
// lists the choices.
type Choice struct {
	Value   string
	Choices []string
}

// Set sets the value to s if it is one of the choices (exactly).
func (c *Choice) Set(s string) error {
	if !slices.Contains(c.Choices, s) {
		return fmt.Errorf("expected %s", orList(c.Choices))
	}
	c.Value = s
	return nil
}

// String is the value.
func (c *Choice) String() string { return c.Value }

// Type names the flag value's type in --help.
func (c *Choice) Type() string { return "string" }

// minInt is an int flag value of at least Min: Set refuses a smaller
// number or a word when the flag is parsed.
type minInt struct{ Value, Min int }

// Set parses s as a base-10 integer of at least Min.
func (m *minInt) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("expected an integer of at least %d", m.Min)
	}
	if v < m.Min {
		return fmt.Errorf("expected at least %d", m.Min)
	}
	m.Value = v
	return nil
}

// String is the value in base 10.
func (m *minInt) String() string { return strconv.Itoa(m.Value) }

// Type names the flag value's type in --help.
func (m *minInt) Type() string { return "int" }

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// BindFunc binds flag, defined elsewhere (a global flag such as --seed),
// to config key: Apply calls apply when the user set the flag.
func BindFunc(t *Table, flag, key string, apply func()) {
	t.bindings = append(t.bindings, Binding{Flag: flag, Key: key, apply: apply})
}

// Key binds config key to flag for naming only (Name), where the command
// applies the flag itself (a flag that sets several keys at once, as
// --pool FILE does).
func (t *Table) Key(flag, key string) {
	t.bindings = append(t.bindings, Binding{Flag: flag, Key: key})
}

// Apply copies the value of every flag of the table that the user set into
// its field, in the table's order. A nil table has no flags.
func (t *Table) Apply() {
	if t == nil {
		return
	}
	for _, b := range t.bindings {
		if b.apply != nil && t.fs.Changed(b.Flag) {
			b.apply()
		}
	}
}

// Changed reports whether the user set flag.
func (t *Table) Changed(flag string) bool { return t != nil && t.fs.Changed(flag) }

// Flag is the flag bound to config key ("" if none).
func (t *Table) Flag(key string) string {
	if t == nil {
		return ""
	}
	for _, b := range t.bindings {
		if b.Key == key && b.Flag != "" {
			return b.Flag
		}
	}
	return ""
}

// Name sets the Flag of the SettingError (or other Keyed error) in err's
// chain, if any, to the flag bound to its key when the user set that flag
// (or when from says the flag's value went into the key although the user
// did not type it, as --pool FILE fills every pool.csv key from its flags'
// defaults), so that
// its message says "--budget (key budget)" to the user who typed
// --budget and "budget" to the one whose config file set it. It returns
// err. Call it before wrapping err in more text: a wrapper's message is
// made when it is created.
func (t *Table) Name(err error, from func(flag string) bool) error {
	var ke Keyed
	if t == nil || !errors.As(err, &ke) {
		return err
	}
	if f := t.Flag(ke.SettingKey()); f != "" && (t.Changed(f) || from != nil && from(f)) {
		ke.NameFlag(f)
	}
	return err
}

// Keyed is an error about the value of a config key whose message can
// name the flag the user typed for the key instead (Table.Name): a
// SettingError, or an error of a package below this one that names a
// setting by its key alone (fileio.ColumnError: a column the file lacks).
type Keyed interface {
	error
	SettingKey() string   // the config key
	NameFlag(flag string) // name flag (without "--") in the message, unless one is named already
}

// list is a comma-separated list flag (--methods qvs,random, --features
// x1,x2): items trimmed, empty ones dropped, each checked by Check (if
// set) when the flag is parsed, so a bad item is a flag error naming the
// flag. String joins the items again.
type list struct {
	Items []string
	Check func(item string) error
}

// ParseList splits s at commas into its trimmed, non-empty items.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Set replaces the list with the items of s.
func (l *list) Set(s string) error {
	items := ParseList(s)
	if l.Check != nil {
		for _, it := range items {
			if err := l.Check(it); err != nil {
				return err
			}
		}
	}
	l.Items = items
	return nil
}

// String joins the items with commas.
func (l *list) String() string { return strings.Join(l.Items, ",") }

// Type names the flag value's type in --help.
func (l *list) Type() string { return "list" }

// Bindings lists the table's rows in the order they were bound.
func (t *Table) Bindings() []Binding {
	if t == nil {
		return nil
	}
	return t.bindings
}

// FlagSet is the flag set the table defines its flags on.
func (t *Table) FlagSet() *pflag.FlagSet { return t.fs }

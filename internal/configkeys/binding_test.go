package configkeys

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// settings is a command's settings as a table binds them.
type settings struct {
	Budget   int      `yaml:"budget"`
	Batch    int      `yaml:"batch"`
	Repeats  int      `yaml:"repeats"`
	Tau      float64  `yaml:"tau"`
	Methods  []string `yaml:"methods"`
	MaxTrain int      `yaml:"max_train"`
	Floor    bool     `yaml:"floor"`
	Out      string   `yaml:"out"`
}

func defaults() settings {
	return settings{Budget: 100, Batch: 5, Repeats: 10, Tau: 0.5, Methods: []string{"a", "b"}, MaxTrain: 300, Out: "results"}
}

// newTestTable binds every field of *s to a flag.
func newTestTable(s *settings) (*Table, *pflag.FlagSet) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	t := NewTable(fs)
	Bind(t, fs.IntVar, "budget", "budget", 0, "", &s.Budget)
	Bind(t, fs.IntVar, "batch", "batch", 0, "", &s.Batch)
	Bind(t, fs.IntVar, "repeats", "repeats", 0, "", &s.Repeats)
	Bind(t, fs.Float64Var, "tau", "tau", 0, "", &s.Tau)
	BindList(t, "methods", "methods", func(m string) error {
		if m != "a" && m != "b" && m != "c" {
			return fmt.Errorf("unknown method %q", m)
		}
		return nil
	}, "", &s.Methods)
	Bind(t, fs.IntVar, "max-train", "max_train", 0, "", &s.MaxTrain)
	Bind(t, fs.BoolVar, "floor", "floor", false, "", &s.Floor)
	Bind(t, fs.StringVar, "out", "out", "", "", &s.Out)
	return t, fs
}

// TestTablePrecedence: each field ends with the flag's value when the user
// gave the flag (even a value equal to the flag's default, 0), else the
// file's when the file sets the key, else the default; a list from the
// file or a flag replaces the default list.
func TestTablePrecedence(t *testing.T) {
	s := defaults()
	tab, fs := newTestTable(&s)
	if err := fs.Parse([]string{"--batch", "0", "--tau", "2", "--methods", " c , a,", "--floor"}); err != nil {
		t.Fatal(err)
	}
	file := "budget: 7\nbatch: 9\nrepeats: 3\nout: elsewhere\nmethods: [b]\n"
	if err := load("f.yaml", []byte(file), &s); err != nil {
		t.Fatal(err)
	}
	tab.Apply()
	want := settings{
		Budget:   7,                  // file
		Batch:    0,                  // flag over file, though 0 is the flag's default
		Repeats:  3,                  // file
		Tau:      2,                  // flag over default
		Methods:  []string{"c", "a"}, // flag over file, items trimmed
		MaxTrain: 300,                // default
		Floor:    true,               // flag
		Out:      "elsewhere",        // file
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("resolved %+v, want %+v", s, want)
	}
	// Without flags the file's values stand; without a file the defaults.
	s = defaults()
	tab, fs = newTestTable(&s)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	tab.Apply()
	if !reflect.DeepEqual(s, defaults()) {
		t.Errorf("no file, no flag: %+v, want the defaults", s)
	}
}

// TestTableListCheck: a list flag's items are checked when the flag is
// parsed: a bad one is a flag error naming the flag.
func TestTableListCheck(t *testing.T) {
	s := defaults()
	_, fs := newTestTable(&s)
	err := fs.Parse([]string{"--methods", "a,z"})
	if err == nil || !strings.Contains(err.Error(), `"--methods"`) || !strings.Contains(err.Error(), `unknown method "z"`) {
		t.Errorf("--methods a,z: %v, want a flag error naming --methods and the item", err)
	}
}

// TestTableName: a SettingError is named by the flag bound to its key only
// when the user set that flag (or from says its value went into the key);
// the message follows, however the error was wrapped by a lazy wrapper.
func TestTableName(t *testing.T) {
	s := defaults()
	tab, fs := newTestTable(&s)
	if err := fs.Parse([]string{"--max-train", "0"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		from func(string) bool
		want string
	}{
		{"max_train", nil, "--max-train (key max_train) = 0: must be at least 1"},
		{"budget", nil, "budget = 0: must be at least 1"},
		{"budget", func(f string) bool { return f == "budget" }, "--budget (key budget) = 0: must be at least 1"},
		{"nokey", func(string) bool { return true }, "nokey = 0: must be at least 1"},
	} {
		err := fmt.Errorf("outer: %w", error(Invalid(tc.key, 0, "must be at least 1")))
		var se *SettingError
		errors.As(tab.Name(err, tc.from), &se)
		if got := se.Error(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.key, got, tc.want)
		}
	}
	if got := tab.Flag("max_train"); got != "max-train" {
		t.Errorf("Flag(max_train) = %q", got)
	}
	var nilTable *Table
	if err := nilTable.Name(Invalid("k", 1, "x"), nil); err.Error() != "k = 1: x" {
		t.Errorf("nil table: %v", err)
	}
}

// keyedStub is a Keyed error of another package (as fileio.ColumnError):
// Table.Name names its flag through the interface.
type keyedStub struct{ key, flag string }

func (e *keyedStub) Error() string        { return e.key + " (flag " + e.flag + ")" }
func (e *keyedStub) SettingKey() string   { return e.key }
func (e *keyedStub) NameFlag(flag string) { e.flag = flag }

// TestTableNameKeyed: an error that is not a SettingError but names a key
// (Keyed) gets the flag the user typed for it, and only then.
func TestTableNameKeyed(t *testing.T) {
	s := defaults()
	tab, fs := newTestTable(&s)
	if err := fs.Parse([]string{"--max-train", "0"}); err != nil {
		t.Fatal(err)
	}
	typed := &keyedStub{key: "max_train"}
	tab.Name(fmt.Errorf("outer: %w", typed), nil)
	untyped := &keyedStub{key: "budget"}
	tab.Name(untyped, nil)
	if typed.flag != "max-train" || untyped.flag != "" {
		t.Errorf("flags named: %q for the typed flag, %q for the config key; want max-train and none", typed.flag, untyped.flag)
	}
}

// TestLoad: Load decodes onto the defaults, refuses what Check refuses and
// what the decoder's KnownFields refuses (a key brought in by a merge),
// and names the file in every error.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       settings
		err        string
	}{
		{"keys set, others kept", "budget: 7\ntau: 1e-3\n", func() settings { s := defaults(); s.Budget, s.Tau = 7, 0.001; return s }(), ""},
		{"one value for a list", "methods: c\n", func() settings { s := defaults(); s.Methods = []string{"c"}; return s }(), ""},
		{"empty list", "methods: []\n", func() settings { s := defaults(); s.Methods = []string{}; return s }(), ""},
		{"whole float for an int", "budget: 20.0\n", func() settings { s := defaults(); s.Budget = 20; return s }(), ""},
		{"empty file", "", defaults(), ""},
		{"unknown key", "budjet: 1\n", settings{}, `config f.yaml:1: unknown key "budjet" (did you mean "budget"?)`},
		{"unknown key by merge", "base: &b {budjet: 1}\n", settings{}, `config f.yaml:1: unknown key "base"`},
		{"merged unknown key", "<<: {budjet: 1}\n", settings{}, "config f.yaml: yaml: unmarshal errors"},
		{"type", "floor: maybe\n", settings{}, `config f.yaml:1: floor: "maybe" is not true or false`},
		{"list for a value", "out: [a, b]\n", settings{}, "config f.yaml:1: out: expected one value, found a list"},
	} {
		s := defaults()
		err := load("f.yaml", []byte(tc.yaml), &s)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(s, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, s, tc.want)
		}
	}
}

// FuzzLoad: Load never panics on any YAML text, and every error names the
// file.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{"budget: 7\n", "methods: c\n", "<<: {budjet: 1}\n", "out: [a]\n", "budget: 1e30\n", "floor: yes\nmethods: [a, [b]]\n", "- a\n", "a: &x [*x]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := defaults()
		if err := load("f.yaml", data, &s); err != nil && !strings.Contains(err.Error(), "f.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

// even is a value that parses and checks itself (a flag and a YAML value):
// a whole number that must be even.
type even int

func (e *even) Set(s string) error {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n%2 != 0 {
		return fmt.Errorf("%q is not even", s)
	}
	*e = even(n)
	return nil
}
func (e *even) String() string { return fmt.Sprint(int(*e)) }
func (e *even) Type() string   { return "even" }
func (e *even) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return err
	}
	return e.Set(s)
}

// TestBindValueAndSelfDecoding: a typed flag (BindValue) is parsed and
// checked when the flag is parsed and copied by Apply only when set; the
// same type in a config is refused by Load naming the file, line and key,
// once.
func TestBindValueAndSelfDecoding(t *testing.T) {
	type cfg struct {
		Sub struct {
			E even `yaml:"e"`
		} `yaml:"sub"`
	}
	for _, args := range [][]string{nil, {"--e", "4"}} {
		var c cfg
		c.Sub.E = 2
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		tab := NewTable(fs)
		BindValue(tab, "e", "sub.e", even(0), "an even number", &c.Sub.E)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		tab.Apply()
		if want := map[bool]even{false: 2, true: 4}[args != nil]; c.Sub.E != want {
			t.Errorf("%q: e = %d, want %d", args, c.Sub.E, want)
		}
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	var e even
	BindValue(NewTable(fs), "e", "sub.e", even(0), "", &e)
	if err := fs.Parse([]string{"--e", "3"}); err == nil || !strings.Contains(err.Error(), `"3" is not even`) {
		t.Errorf("--e 3: %v", err)
	}
	var c cfg
	if err := load("f.yaml", []byte("sub:\n  e: 8\n"), &c); err != nil || c.Sub.E != 8 {
		t.Errorf("e: 8 loads as %d, %v", c.Sub.E, err)
	}
	err := load("f.yaml", []byte("sub:\n  e: 3\n"), &c)
	if err == nil || err.Error() != `config f.yaml:2: sub.e: "3" is not even` {
		t.Errorf("e: 3: %v", err)
	}
}

// TestBindChoiceMinInt: a Choice or minInt flag refuses a bad value when
// it is parsed (pflag names the flag and the value), keeps its default
// until the user sets it, and Apply copies the parsed value into every
// field bound; a config's value of the key is the command's to check.
func TestBindChoiceMinInt(t *testing.T) {
	var metric, metric2 string
	var k, k2 int
	newFlags := func() (*Table, *pflag.FlagSet) {
		metric, metric2, k, k2 = "from config", "", 7, 0
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		tab := NewTable(fs)
		BindChoice(tab, "metric", "pool.metric", "euclidean", []string{"euclidean", "cosine", "tanimoto"}, "", &metric, &metric2)
		BindMinInt(tab, "k", "pool.k", 20, 1, "", &k, &k2)
		return tab, fs
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metric", "hamming"}, `invalid argument "hamming" for "--metric" flag: expected euclidean, cosine or tanimoto`},
		{[]string{"--metric", "Cosine"}, `invalid argument "Cosine" for "--metric" flag: expected euclidean, cosine or tanimoto`},
		{[]string{"--metric="}, `invalid argument "" for "--metric" flag`},
		{[]string{"--k", "0"}, `invalid argument "0" for "--k" flag: expected at least 1`},
		{[]string{"--k", "-3"}, `invalid argument "-3" for "--k" flag: expected at least 1`},
		{[]string{"--k", "2.5"}, `invalid argument "2.5" for "--k" flag: expected an integer of at least 1`},
		{[]string{"--k", "ten"}, `invalid argument "ten" for "--k" flag: expected an integer of at least 1`},
	} {
		_, fs := newFlags()
		if err := fs.Parse(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	tab, fs := newFlags()
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	tab.Apply()
	if metric != "from config" || k != 7 || fs.Lookup("metric").DefValue != "euclidean" || fs.Lookup("k").DefValue != "20" {
		t.Errorf("no flag: metric %q, k %d (defaults %q, %q); want the config's values kept", metric, k, fs.Lookup("metric").DefValue, fs.Lookup("k").DefValue)
	}
	tab, fs = newFlags()
	if err := fs.Parse([]string{"--metric", "tanimoto", "--k", " 1"}); err != nil {
		t.Fatal(err)
	}
	tab.Apply()
	if metric != "tanimoto" || metric2 != "tanimoto" || k != 1 || k2 != 1 {
		t.Errorf("flags: %q %q %d %d, want tanimoto twice and 1 twice", metric, metric2, k, k2)
	}
	if got := orList([]string{"bits"}) + "|" + orList([]string{"bits", "hex"}); got != "bits|bits or hex" {
		t.Errorf("orList: %q", got)
	}
}

// FuzzFlagValues: Choice and minInt take any flag text without panicking;
// a Choice accepts exactly its words, a minInt exactly the base-10
// integers (spaces around allowed) of at least Min, and what they accept
// prints back as the value parsed.
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"euclidean", "Cosine", "", "20", " 1", "0", "-3", "2.5", "1e3", "99999999999999999999", "+4"} {
		f.Add(s)
	}
	choices := []string{"euclidean", "cosine", "tanimoto"}
	f.Fuzz(func(t *testing.T, s string) {
		c := &Choice{Value: "euclidean", Choices: choices}
		if err := c.Set(s); (err == nil) != slices.Contains(choices, s) || (err == nil && c.String() != s) || (err != nil && c.Value != "euclidean") {
			t.Errorf("Choice.Set(%q): %v, value %q", s, err, c.Value)
		}
		m := &minInt{Value: 20, Min: 1}
		err := m.Set(s)
		v, perr := strconv.Atoi(strings.TrimSpace(s))
		if (err == nil) != (perr == nil && v >= 1) || (err == nil && m.String() != strconv.Itoa(v)) || (err != nil && m.Value != 20) {
			t.Errorf("MinInt.Set(%q): %v, value %d", s, err, m.Value)
		}
	})
}

// TestFlagsOutside: the flags binding no field of a settings struct are
// found from the bindings (a flag bound to both kinds' fields is not
// listed; one bound to the other kind's only is; BindFunc never).
func TestFlagsOutside(t *testing.T) {
	type a struct {
		N    int
		Mode string
		L    []string
	}
	type b struct{ N int }
	var x a
	var y b
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	tab := NewTable(fs)
	Bind(tab, fs.IntVar, "n", "n", 0, "", &x.N, &y.N)
	Bind(tab, fs.StringVar, "mode", "mode", "", "", &x.Mode)
	BindList(tab, "list", "list", nil, "", &x.L)
	BindChoice(tab, "pick", "pick", "u", []string{"u", "v"}, "", &x.Mode)
	BindFunc(tab, "seed", "seed", func() {})
	if got := tab.FlagsOutside(&y); !slices.Equal(got, []string{"mode", "list", "pick"}) {
		t.Errorf("outside b: %v", got)
	}
	if got := tab.FlagsOutside(&x); len(got) != 0 {
		t.Errorf("outside a: %v", got)
	}
	// FlagsInside: the flags setting a field of a struct nested in x (an
	// inline section), in table order; of y, the flag shared with x.
	type c struct {
		P int
		S struct{ Q, R string }
	}
	var z c
	fs2 := pflag.NewFlagSet("t2", pflag.ContinueOnError)
	tab2 := NewTable(fs2)
	Bind(tab2, fs2.IntVar, "p", "p", 0, "", &z.P)
	Bind(tab2, fs2.StringVar, "r", "r", "", "", &z.S.R)
	Bind(tab2, fs2.StringVar, "q", "q", "", "", &z.S.Q)
	BindFunc(tab2, "seed", "seed", func() {})
	if got := tab2.FlagsInside(&z.S); !slices.Equal(got, []string{"r", "q"}) {
		t.Errorf("inside c.S: %v", got)
	}
	if got := tab.FlagsInside(&y); !slices.Equal(got, []string{"n"}) {
		t.Errorf("inside b: %v", got)
	}
	if got := (*Table)(nil).FlagsInside(&y); got != nil {
		t.Errorf("nil table: %v", got)
	}
}

// TestFlagsInside: the flags binding a field of a sub-struct are the
// flags that apply only there, in the table's order; a flag bound to a
// field outside it, to no field (Key) or through BindFunc is not listed.
func TestFlagsInside(t *testing.T) {
	var o struct {
		Batch  int
		Labels struct{ Prior string }
		Scores struct {
			Minimize bool
			Kernel   string
		}
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	tab := NewTable(fs)
	Bind(tab, fs.IntVar, "batch", "", 5, "", &o.Batch)
	Bind(tab, fs.BoolVar, "minimize", "", false, "", &o.Scores.Minimize)
	Bind(tab, fs.StringVar, "prior", "prior", "", "", &o.Labels.Prior)
	BindChoice(tab, "kernel", "", "a", []string{"a", "b"}, "", &o.Scores.Kernel)
	BindFunc(tab, "seed", "seed", func() {})
	tab.Key("pool", "pool.file")
	if got := tab.FlagsInside(&o.Scores); !slices.Equal(got, []string{"minimize", "kernel"}) {
		t.Errorf("inside Scores: %v", got)
	}
	if got := tab.FlagsInside(&o.Labels); !slices.Equal(got, []string{"prior"}) {
		t.Errorf("inside Labels: %v", got)
	}
	if got := tab.FlagsInside(&o); !slices.Equal(got, []string{"batch", "minimize", "prior", "kernel"}) {
		t.Errorf("inside the whole: %v", got)
	}
}

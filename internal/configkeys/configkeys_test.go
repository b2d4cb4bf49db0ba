package configkeys

import (
	"errors"
	"strings"
	"testing"
)

type grid struct {
	Thresholds []float64 `yaml:"thresholds"`
	Fantasy    string    `yaml:"fantasy"`
}

type Protocol struct {
	Seed    uint64 `yaml:"seed"`
	Classes []int  `yaml:"classes"`
	Budget  int    `yaml:"budget"`
	Batch   int    `yaml:"batch"`
	ECI     grid   `yaml:"eci"`
}

type testConfig struct {
	Task     string `yaml:"task"`
	Protocol `yaml:",inline"`
	Extra    map[string]string `yaml:"extra"`
	Hidden   string            `yaml:"-"`
	NoTag    int
	Flag     bool `yaml:"flag"`
}

func TestKeys(t *testing.T) {
	got := strings.Join(keys(&testConfig{}), ",")
	if want := "batch,budget,classes,eci,extra,flag,notag,seed,task"; got != want {
		t.Errorf("Keys = %s, want %s", got, want)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // substrings of the error, in order; nil = valid
	}{
		{"valid", "task: bmg\nbudget: 20\neci:\n  thresholds: [0.5]\nextra:\n  anything: x\nnotag: 1\n", nil},
		{"keys are lower case", "Task: bmg\nBUDGET: 3\n", []string{`:1: unknown key "Task" (did you mean "task"?)`, `:2: unknown key "BUDGET" (did you mean "budget"?)`}},
		{"one value for a list", "classes: 3\n", nil},
		{"a list for one value", "budget: [1, 2]\n", []string{"config f.yaml:1: budget: expected a whole number, found a list"}},
		{"a mapping for one value", "task: {a: 1}\n", []string{"config f.yaml:1: task: expected one value, found a mapping of keys"}},
		{"a value for a section", "eci: 3\n", []string{`config f.yaml:1: eci: expected a mapping of keys (key: value), found the value "3"`}},
		{"text for a boolean", "flag: maybe\n", []string{`config f.yaml:1: flag: "maybe" is not true or false`}},
		{"empty file", "", nil},
		{"only a comment", "# nothing\n", nil},
		{"typo at top", "task: bmg\n\nbudgett: 20\n", []string{`config f.yaml:3: unknown key "budgett" (did you mean "budget"?)`}},
		{"typo nested", "eci:\n  fantasy: pessimistic\n  treshold: [1]\n", []string{`config f.yaml:3: unknown key "eci.treshold" (did you mean "thresholds"?)`}},
		{"no near key", "colour: red\n", []string{`config f.yaml:1: unknown key "colour"; expected one of batch, budget, classes, eci, extra, flag, notag, seed, task`}},
		{"whole numbers in any spelling", "budget: 20.0\nbatch: 1e1\nseed: 7\nclasses: [0, 2]\n", nil},
		{"fractional budget", "task: x\nbudget: 20.5\n", []string{"config f.yaml:2: budget: 20.5 is not a whole number"}},
		{"negative seed", "seed: -1\n", []string{"config f.yaml:1: seed: -1 is negative: expected a whole number >= 0"}},
		{"fraction in an int list", "classes: [0, 1.5]\n", []string{"config f.yaml:1: classes: 1.5 is not a whole number"}},
		{"infinite budget", "budget: .inf\n", []string{"budget: .inf is not a whole number"}},
		// Values beyond the field's range were wrapped by
		// the decoder (seed 2^64 became 0; repeats: 1e30 became -2^63).
		// The limits are the uint64 and int64 ranges; each limit itself
		// is accepted.
		{"seed of 2^64", "seed: 18446744073709551616\n", []string{"config f.yaml:1: seed: 18446744073709551616 is too large: expected a whole number <= 18446744073709551615"}},
		{"seed of 2^64 as a float", "seed: 1.8446744073709552e19\n", []string{"seed: 1.8446744073709552e19 is too large"}},
		{"seed far beyond", "seed: 99999999999999999999999999\n", []string{"is too large"}},
		{"largest seed", "seed: 18446744073709551615\n", nil},
		{"budget of 1e30", "budget: 1e30\n", []string{"config f.yaml:1: budget: 1e30 is out of range: expected a whole number from -9223372036854775808 to 9223372036854775807"}},
		{"budget of 2^63", "budget: 9223372036854775808\n", []string{"is out of range"}},
		{"budget of -2^63-1", "budget: -9223372036854775809\n", []string{"is out of range"}},
		{"extreme budgets", "budget: -9223372036854775808\nbatch: 9223372036854775807\n", nil},
		{"int list beyond", "classes: [1, 1e19]\n", []string{"classes: 1e19 is out of range"}},
		{"floats stay free", "eci:\n  thresholds: [0.5, 1e-3]\n", nil},
		{"text for an integer", "budget: lots\n", []string{`config f.yaml:1: budget: "lots" is not a whole number`}},
		{"text in a float list", "eci:\n  thresholds: [0.5, high]\n", []string{`config f.yaml:2: eci.thresholds: "high" is not a number`}},
		{"text stays text", "task: 12\neci: {fantasy: pessimistic}\n", nil},
		{"two errors", "budjet: 1\nbach: 2\n", []string{`:1: unknown key "budjet" (did you mean "budget"?)`, `:2: unknown key "bach" (did you mean "batch"?)`}},
		{"hidden field is no key", "hidden: x\n", []string{`unknown key "hidden"`}},
		{"not a mapping", "- a\n- b\n", []string{"config f.yaml:1: expected a mapping of keys (key: value), found a list"}},
		{"syntax error", "task: [\n", []string{"config f.yaml: yaml:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check("f.yaml", []byte(tc.yaml), &testConfig{})
			if tc.want == nil {
				if err != nil {
					t.Errorf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (in order)", msg, w)
				}
				at += i + len(w)
			}
		})
	}
	var uk *UnknownKeyError
	if err := Check("f.yaml", []byte("budgett: 1\n"), testConfig{}); !errors.As(err, &uk) || uk.Line != 1 || uk.Suggestion != "budget" {
		t.Errorf("error %v is not an *UnknownKeyError with line 1 and a suggestion", err)
	}
}

func TestSuggest(t *testing.T) {
	flags := []string{"budget", "batch", "repeats", "methods", "q", "out", "shard", "config", "data-dir", "cache-dir", "seed"}
	tests := []struct{ word, want string }{
		{"budjet", "budget"},    // one substitution
		{"bugdet", "budget"},    // transposition = 2 edits, word of 6
		{"repeat", "repeats"},   // one deletion
		{"methds", "methods"},   // one deletion
		{"datadir", "data-dir"}, // one insertion
		{"seeds", "seed"},
		{"x", ""},        // too short to guess
		{"zzzzzz", ""},   // nothing near
		{"sha", "shard"}, // prefix of 3+
		{"budget", ""},   // an exact match is not a typo
	}
	for _, tc := range tests {
		if got := Suggest(tc.word, flags); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// TestDistanceBruteForce checks the edit distance against its recursive
// definition on all short strings over a two-letter alphabet.
func TestDistanceBruteForce(t *testing.T) {
	var naive func(a, b string) int
	naive = func(a, b string) int {
		if a == "" {
			return len(b)
		}
		if b == "" {
			return len(a)
		}
		cost := 1
		if a[0] == b[0] {
			cost = 0
		}
		return min(naive(a[1:], b)+1, naive(a, b[1:])+1, naive(a[1:], b[1:])+cost)
	}
	var words []string
	var gen func(s string)
	gen = func(s string) {
		words = append(words, s)
		if len(s) < 4 {
			gen(s + "a")
			gen(s + "b")
		}
	}
	gen("")
	for _, a := range words {
		for _, b := range words {
			if d, w := distance(a, b), naive(a, b); d != w {
				t.Fatalf("distance(%q, %q) = %d, want %d", a, b, d, w)
			}
		}
	}
}

// FuzzCheck: no YAML text makes Check panic, and every error names the file.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"task: bmg\nbudget: 20\n", "eci:\n  treshold: 1\n", "- a\n", "a: &x {b: *x}\n", "<<: {budget: 1}\n", "? [a]\n: 1\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check("fuzz.yaml", data, &testConfig{})
		if err != nil && !strings.Contains(err.Error(), "fuzz.yaml") {
			t.Errorf("error without the file name: %v", err)
		}
	})
}

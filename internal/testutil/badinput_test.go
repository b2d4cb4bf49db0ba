package testutil

import (
	"fmt"
	"strings"
	"testing"
)

// errorsTB records the reports of CheckBadInput.
type errorsTB struct {
	testing.TB
	errors []string
}

func (f *errorsTB) Helper() {}
func (f *errorsTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// TestCheckBadInput: a case passes only with its exit code, its message
// and nothing on stdout; each of the three failures is reported, naming
// the case (and a command line).
func TestCheckBadInput(t *testing.T) {
	type result struct {
		code        int
		stdout, msg string
	}
	run := func(r result) (int, string, string) { return r.code, r.stdout, r.msg }
	var f errorsTB
	CheckBadInput(&f, run, []BadInput[result]{
		{"passes", result{2, "", "qvs: --k must be at least 1"}, 2, "--k must"},
		{"wrong code", result{1, "", "qvs: --k must be at least 1"}, 2, "--k must"},
		{"wrong message", result{2, "", "qvs: something else"}, 2, "--k must"},
		{"stdout", result{2, "rank\n", "qvs: --k must be at least 1"}, 2, "--k must"},
	})
	if len(f.errors) != 3 {
		t.Fatalf("%d reports, want 3: %q", len(f.errors), f.errors)
	}
	for i, name := range []string{"wrong code", "wrong message", "stdout"} {
		if !strings.HasPrefix(f.errors[i], name+": ") {
			t.Errorf("report %d %q does not name case %q", i, f.errors[i], name)
		}
	}
	f.errors = nil
	CheckBadInput(&f, func([]string) (int, string, string) { return 0, "", "" }, []BadInput[[]string]{{"line", []string{"select", "--k", "0"}, 2, ""}})
	if len(f.errors) != 1 || !strings.HasPrefix(f.errors[0], `line: ["select" "--k" "0"]: exit 0`) {
		t.Errorf("command line report %q", f.errors)
	}
}

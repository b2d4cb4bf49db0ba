package configkeys

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestSettingErrorMessage: the message names the key (or the flag that set
// it) and the value as written, strings quoted, floats shortest.
func TestSettingErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  *SettingError
		flag string
		want string
	}{
		{Invalid("max_train", 0, "must be at least %d", 1), "", "max_train = 0: must be at least 1"},
		{Invalid("max_train", 0, "must be at least %d", 1), "max-train", "--max-train (key max_train) = 0: must be at least 1"},
		{Invalid("qvs_mode", "fast", "expected paper or authors"), "", `qvs_mode = "fast": expected paper or authors`},
		{Invalid("tau", 0.1, "x"), "", "tau = 0.1: x"},
		{Invalid("qvs_floor", nil, "applies to method qvs only"), "", "qvs_floor: applies to method qvs only"},
		{Invalid("pool.csv.k", 20, "expected less than the 4 rows"), "k", "--k (key pool.csv.k) = 20: expected less than the 4 rows"},
	} {
		tc.err.Flag = tc.flag
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestSettingErrorChain: a SettingError wrapped by fmt.Errorf is found by
// errors.As, and Wrap keeps the underlying error for errors.Is.
func TestSettingErrorChain(t *testing.T) {
	err := fmt.Errorf("config c.yaml: %w", Wrap("pool.csv.file", fmt.Errorf("open x.csv: %w", fs.ErrNotExist)))
	var se *SettingError
	if !errors.As(err, &se) || se.Key != "pool.csv.file" {
		t.Fatalf("errors.As: %v", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", err)
	}
	if got, want := err.Error(), "config c.yaml: pool.csv.file: open x.csv: file does not exist"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUnique(t *testing.T) {
	if err := Unique("methods", []string{"random", "qvs", "ucb"}); err != nil {
		t.Errorf("distinct values: %v", err)
	}
	err := Unique("methods", []string{"random", "qvs", "ucb", "qvs", "random"})
	var se *SettingError
	if !errors.As(err, &se) || se.Key != "methods" || se.Value != `"qvs"` || se.Reason != "listed twice" {
		t.Errorf("qvs twice: %#v", err)
	}
}

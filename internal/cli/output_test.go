package cli

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestJSONCell(t *testing.T) {
	for _, tc := range []struct {
		s       string
		numeric bool
		want    any
	}{
		{"1.5", true, 1.5}, {"", true, nil}, {"inf", true, "inf"}, {"-Inf", true, "-inf"}, {"NaN", true, "nan"},
		{"007", false, "007"}, {"0.1", true, 0.1},
	} {
		if got := jsonCell(tc.s, tc.numeric); got != tc.want {
			t.Errorf("jsonCell(%q, %v) = %#v, want %#v", tc.s, tc.numeric, got, tc.want)
		}
	}
}

// TestFormatRefusesAtParse: a --format value outside the command's list
// is refused by Set, naming the list in the command's order, and leaves
// the value unchanged.
func TestFormatRefusesAtParse(t *testing.T) {
	f := formats(FormatCSV, FormatCSV, FormatTable, FormatJSON)
	if err := f.Set("xml"); err == nil || err.Error() != "expected csv, table or json" || f.Value != FormatCSV {
		t.Errorf("Set(xml): err %v, value %q", err, f.Value)
	}
	if err := f.Set(FormatJSON); err != nil || f.String() != FormatJSON {
		t.Errorf("Set(json): err %v, value %q", err, f.Value)
	}
	if d := formats(FormatTable); strings.Join(d.Choices, ",") != "table,csv,json" {
		t.Errorf("default formats %v", d.Choices)
	}
}

// TestTableFormats: one table, three forms. CSV keeps full precision and
// makes the id column spreadsheet-safe (only there, only with SafeIDs);
// JSON has numbers and the ids verbatim; the aligned table has its own
// header, rounds through Round and quotes an unprintable id; the rows
// themselves are never modified.
func TestTableFormats(t *testing.T) {
	tb := table{Command: "demo", Head: []string{"rank", "id", "v"}, SafeIDs: true,
		Rows:      [][]string{{"1", "=A1", "0.123456789"}, {"2", "a\tb", "2"}},
		TableHead: []string{"rank", "id", "V"}, Round: roundColumns(fixed(2), 2),
		Extra: []field{{"q", jsonNumber(2)}}}
	for _, c := range []struct{ format, want string }{
		{FormatCSV, "rank,id,v\n1,'=A1,0.123456789\n2,a\tb,2\n"},
		{FormatJSON, "{\"command\":\"demo\",\"columns\":[\"rank\",\"id\",\"v\"],\"rows\":[\n{\"rank\":1,\"id\":\"=A1\",\"v\":0.123456789},\n{\"rank\":2,\"id\":\"a\\tb\",\"v\":2}],\n\"q\":2}\n"},
		{FormatTable, "rank  id      V\n1     =A1     0.12\n2     \"a\\tb\"  2.00\n"},
	} {
		var b bytes.Buffer
		if err := tb.Write(&b, c.format); err != nil || b.String() != c.want {
			t.Errorf("%s: err %v\ngot  %q\nwant %q", c.format, err, b.String(), c.want)
		}
	}
	if tb.Rows[0][1] != "=A1" || tb.Rows[0][2] != "0.123456789" {
		t.Errorf("Write modified the rows: %q", tb.Rows)
	}
	tb.SafeIDs = false
	var b bytes.Buffer
	_ = tb.Write(&b, FormatCSV)
	if !strings.Contains(b.String(), "\n1,=A1,") {
		t.Errorf("SafeIDs off: %q", b.String())
	}
}

// TestFloatNonFinite: the non-finite values print as qvs reads them back.
func TestFloatNonFinite(t *testing.T) {
	for v, want := range map[float64]string{math.Inf(1): "inf", math.Inf(-1): "-inf", 2.5: "2.5"} {
		if got := Float(v); got != want {
			t.Errorf("Float(%v) = %q, want %q", v, got, want)
		}
	}
}

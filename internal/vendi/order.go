package vendi

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Order is the order q of a Vendi score: a number >= 0, or +Inf for q = ∞
// (OrderInf). It is parsed and checked once, where it enters (a flag, a
// config file: Set, UnmarshalYAML, ParseOrder), and it owns the formulas
// that differ between orders, so no other code switches over q.
//
// With λ̄ the normalised spectrum (eigenvalues clipped at 0 and divided by
// their sum; those at or below ZeroTol count as 0, see the package
// documentation), VS_q = exp(H_q(λ̄)), the exponential of the Rényi entropy
// of order q (paper eq. 3):
//
//	q ∉ {0, 1, ∞}: VS_q = (Σ λ̄^q)^(1/(1-q))
//	q = 1:          VS_1 = exp(-Σ λ̄ log λ̄)    the limit q → 1 (0 log 0 = 0)
//	q = 0:          VS_0 = #{λ̄ > 0}            the limit q → 0 (the rank)
//	q = ∞:          VS_∞ = 1 / max λ̄           the limit q → ∞
//
// Term is the per-eigenvalue summand, FromSum and FromRawSum finish the
// score from the sums. An Order converted from a float64 in Go code is not
// checked: functions that take one call Validate.
type Order float64

// OrderInf is q = ∞: VS_∞ = 1 / max λ̄.
var OrderInf = Order(math.Inf(1))

// ParseOrder parses one order: a decimal number >= 0 ("0", "0.5", "2") or
// inf ("inf", "Inf", "+inf", "infinity", "∞", any case). Surrounding spaces
// are ignored.
func ParseOrder(s string) (Order, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "inf", "+inf", "infinity", "+infinity", "∞":
		return OrderInf, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Errorf("order %q: expected a number >= 0 or inf", s)
	}
	q := Order(f)
	if err := q.Validate(); err != nil {
		return 0, err
	}
	return q, nil
}

// Validate returns an error unless q >= 0 (+Inf included); NaN is invalid.
func (q Order) Validate() error {
	if f := float64(q); math.IsNaN(f) || f < 0 {
		return fmt.Errorf("order q = %v: must be >= 0 or inf", f)
	}
	return nil
}

// String writes q as in the paper's tables and in run keys: "inf" for ∞,
// else the shortest decimal that reads back to q ("0.1", "2").
func (q Order) String() string {
	if q.IsInf() {
		return "inf"
	}
	return strconv.FormatFloat(float64(q), 'g', -1, 64)
}

// Set parses s into q (ParseOrder); with String and Type, *Order is a
// pflag.Value, so a flag holds a checked order.
func (q *Order) Set(s string) error {
	v, err := ParseOrder(s)
	if err != nil {
		return err
	}
	*q = v
	return nil
}

// Type names the flag value's type in --help.
func (q *Order) Type() string { return "order" }

// UnmarshalYAML reads a YAML scalar (0.5, 2, inf, "inf") through ParseOrder.
// It has the signature go.yaml.in/yaml/v3 accepts without importing it.
func (q *Order) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return fmt.Errorf("order: expected a number >= 0 or inf: %w", err)
	}
	return q.Set(s)
}

// MarshalYAML writes q as String does, so a config records the order as
// it is written in run keys and tables (a YAML string, as a []string of
// orders is written).
func (q Order) MarshalYAML() (any, error) { return q.String(), nil }

// IsInf reports whether q = ∞.
func (q Order) IsInf() bool { return math.IsInf(float64(q), 1) }

// Term is the summand of VS_q for one eigenvalue p (normalised or not; the
// φ of the greedy's comments):
// p log p at q = 1, p^q otherwise; 0 for p <= 0 (the clipped part of the
// spectrum) and at q ∈ {0, ∞}, whose scores are not sums (FromSum takes
// the count and the maximum instead).
func (q Order) Term(p float64) float64 {
	if p <= 0 {
		return 0
	}
	switch {
	case q == 1:
		return p * math.Log(p)
	case q == 0 || q.IsInf():
		return 0
	}
	return math.Pow(p, float64(q))
}

// DTerm is the derivative of Term at p > 0: log p + 1 at q = 1, q p^(q-1)
// otherwise, 0 at q ∈ {0, ∞}.
func (q Order) DTerm(p float64) float64 {
	switch {
	case q == 1:
		return math.Log(p) + 1
	case q == 0 || q.IsInf():
		return 0
	}
	return float64(q) * math.Pow(p, float64(q)-1)
}

// FromSum finishes VS_q from the normalised spectrum's sums: s = Σ Term(λ̄),
// maxP = max λ̄ and n = #{λ̄ above ZeroTol}; 0 when n = 0.
func (q Order) FromSum(s, maxP float64, n int) float64 {
	switch {
	case n == 0:
		return 0
	case q == 0:
		return float64(n)
	case q == 1:
		return math.Exp(-s)
	case q.IsInf():
		return 1 / maxP
	}
	return math.Pow(s, 1/(1-float64(q)))
}

// FromRawSum is FromSum on an unnormalised spectrum, whose eigenvalues sum
// to total > 0: f = Σ Term(λ), maxEig = max λ, rank = #{λ above
// ZeroTol·total}. It normalises through the identities Σ Term(λ/T) =
// Σ Term(λ)/T^q (q ≠ 1) and = Σ Term(λ)/T - log T (q = 1), so one pass
// over the raw eigenvalues suffices; 0 when total <= 0 or rank = 0.
func (q Order) FromRawSum(total, f, maxEig float64, rank int) float64 {
	switch {
	case total <= 0 || rank == 0:
		return 0
	case q == 0:
		return float64(rank)
	case q == 1:
		return math.Exp(math.Log(total) - f/total)
	case q.IsInf():
		return total / maxEig
	}
	return math.Pow(f/math.Pow(total, float64(q)), 1/(1-float64(q)))
}

// Orders is a list of orders, as the q of a campaign. *Orders is a
// pflag.Value holding a comma-separated list ("0,0.5,1,inf"), and reads a
// YAML list ([0, 0.5, inf]) or a comma-separated YAML string. Duplicates
// are kept; a campaign rejects them where its run keys would collide.
type Orders []Order

// parseOrders parses a comma-separated list of orders (ParseOrder each;
// empty fields are skipped). An empty list is an error.
func parseOrders(s string) (Orders, error) {
	l, err := ParseOrderList(s)
	if err != nil {
		return nil, err
	}
	if l.Len() == 0 {
		return nil, fmt.Errorf("no orders in %q", s)
	}
	return l.orders, nil
}

// String joins the orders with commas ("0,0.5,inf").
func (o Orders) String() string {
	s := make([]string, len(o))
	for i, q := range o {
		s[i] = q.String()
	}
	return strings.Join(s, ",")
}

// Set replaces the list with the orders of s (parseOrders).
func (o *Orders) Set(s string) error {
	v, err := parseOrders(s)
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Type names the flag value's type in --help.
func (o *Orders) Type() string { return "orders" }

// UnmarshalYAML reads a YAML list of orders or one comma-separated string.
func (o *Orders) UnmarshalYAML(unmarshal func(any) error) error {
	var l OrderList
	if err := l.UnmarshalYAML(unmarshal); err != nil {
		return err
	}
	if l.Len() == 0 {
		return fmt.Errorf("no orders: expected a list of numbers >= 0 or inf")
	}
	*o = l.orders
	return nil
}

// OrderList is a campaign's orders q as they were written: each order is
// parsed once, where it enters (Set for a flag's comma-separated list,
// UnmarshalYAML for a config's list or string), and keeps its text, which
// a config records verbatim (MarshalYAML: q: ["0.50", Inf] stays so). A
// list built in Go code (NewOrderList) is written as Order.String writes
// each order. The zero value is the empty list. A list's duplicates are
// the campaign's to refuse, as its run keys would collide.
type OrderList struct {
	orders Orders
	text   []string // as written, one per order
}

// NewOrderList returns the list of qs, written as Order.String.
func NewOrderList(qs ...Order) OrderList {
	if len(qs) == 0 {
		return OrderList{}
	}
	l := OrderList{orders: slices.Clone(qs), text: make([]string, len(qs))}
	for i, q := range qs {
		l.text[i] = q.String()
	}
	return l
}

// Orders are the values, in the list's order (not to be modified).
func (l OrderList) Orders() Orders { return l.orders }

// Len is the number of orders.
func (l OrderList) Len() int { return len(l.orders) }

// Text is each order as written (not to be modified); nil for the zero
// list.
func (l OrderList) Text() []string { return l.text }

// Canonical is the list written as Order.String ("0.50" becomes "0.5",
// "Inf" becomes "inf").
func (l OrderList) Canonical() OrderList { return NewOrderList(l.orders...) }

// parseOrderList parses the orders of texts (ParseOrder each), keeping
// the texts.
func parseOrderList(texts []string) (OrderList, error) {
	if len(texts) == 0 {
		return OrderList{}, nil
	}
	l := OrderList{orders: make(Orders, 0, len(texts)), text: texts}
	for _, s := range texts {
		q, err := ParseOrder(s)
		if err != nil {
			return OrderList{}, err
		}
		l.orders = append(l.orders, q)
	}
	return l, nil
}

// splitOrders splits a comma-separated list into its trimmed, non-empty
// fields.
func splitOrders(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParseOrderList parses s, comma-separated orders (ParseOrder each), each
// kept as written (trimmed; empty fields are skipped, so "" is the empty
// list).
func ParseOrderList(s string) (OrderList, error) { return parseOrderList(splitOrders(s)) }

// Set replaces the list with the orders of s (ParseOrderList). With String
// and Type, *OrderList is a pflag.Value.
func (l *OrderList) Set(s string) error {
	v, err := ParseOrderList(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// String joins the orders as written with commas.
func (l OrderList) String() string { return strings.Join(l.Text(), ",") }

// Type names the flag value's type in --help.
func (l *OrderList) Type() string { return "orders" }

// UnmarshalYAML reads a YAML list of orders ([0.50, 1, inf]) or one
// comma-separated string, keeping each order's text.
func (l *OrderList) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if unmarshal(&s) == nil { // a scalar
		return l.Set(s)
	}
	var texts []string
	if unmarshal(&texts) != nil {
		return fmt.Errorf("expected a list of orders (numbers >= 0 or inf) or one comma-separated string")
	}
	v, err := parseOrderList(texts)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// MarshalYAML records the orders as written (Text), as a list of strings.
func (l OrderList) MarshalYAML() (any, error) { return l.Text(), nil }

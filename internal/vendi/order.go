package vendi

import (
	"fmt"
	"math"
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

// ParseOrders parses a comma-separated list of orders (ParseOrder each;
// empty fields are skipped). An empty list is an error.
func ParseOrders(s string) (Orders, error) {
	var out Orders
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		q, err := ParseOrder(f)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no orders in %q", s)
	}
	return out, nil
}

// String joins the orders with commas ("0,0.5,inf").
func (o Orders) String() string {
	s := make([]string, len(o))
	for i, q := range o {
		s[i] = q.String()
	}
	return strings.Join(s, ",")
}

// Set replaces the list with the orders of s (ParseOrders).
func (o *Orders) Set(s string) error {
	v, err := ParseOrders(s)
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
	var s string
	if unmarshal(&s) == nil { // a scalar
		return o.Set(s)
	}
	var list []Order
	if err := unmarshal(&list); err != nil {
		return fmt.Errorf("orders: expected a list of numbers >= 0 or inf: %w", err)
	}
	*o = list
	return nil
}

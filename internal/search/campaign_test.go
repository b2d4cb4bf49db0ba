package search

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/configkeys"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/knn"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// smallProtocol has every method, two ECI thresholds, a 1 x 2 SELECT grid
// and two orders of qVS-AS: 9 settings per repeat.
func smallProtocol() Protocol {
	return Protocol{
		Methods: []string{"random", "one-step", "eci", "select", "ens", "qvs"},
		Q:       vendi.NewOrderList(0, vendi.OrderInf),
		Repeats: 2, Budget: 7, Batch: 3, Seed: 5,
		ECI:    ECIGrid{Thresholds: []float64{0.5, 0.25}, Fantasy: "pessimistic"},
		SELECT: SELECTGrid{Betas: []float64{1}, Lambdas: []float64{0.5, 0.75}, Fantasy: "optimistic"},
		ENS:    ENSSettings{Fantasy: "pessimistic"},
		Ties:   "random",
		Prior:  PriorPrevalence,
	}
}

func TestPlan(t *testing.T) {
	c, err := Plan(smallProtocol())
	if err != nil {
		t.Fatal(err)
	}
	want := []campaign.Run{
		{Key: "random", Method: "random"},
		{Key: "one-step", Method: "one-step"},
		{Key: "eci-t0.5-pessimistic", Method: "eci", Params: "threshold=0.5 fantasy=pessimistic"},
		{Key: "eci-t0.25-pessimistic", Method: "eci", Params: "threshold=0.25 fantasy=pessimistic"},
		{Key: "select-b1-l0.5-optimistic", Method: "select", Params: "beta=1 lambda=0.5 fantasy=optimistic"},
		{Key: "select-b1-l0.75-optimistic", Method: "select", Params: "beta=1 lambda=0.75 fantasy=optimistic"},
		{Key: "ens-pessimistic", Method: "ens", Params: "fantasy=pessimistic"},
		{Key: "qvs-q0", Method: "qvs", Q: "0"},
		{Key: "qvs-qinf", Method: "qvs", Q: "inf"},
	}
	if len(c.Runs) != 2*len(want) {
		t.Fatalf("%d runs, want %d", len(c.Runs), 2*len(want))
	}
	// Repeat-major: every setting of repeat 0, then of repeat 1.
	for i, got := range c.Runs {
		w := want[i%len(want)]
		w.Repeat = i / len(want)
		w.Key += "-r0" + strconv.Itoa(w.Repeat)
		if got != w {
			t.Errorf("run %d: %+v, want %+v", i, got, w)
		}
	}
	// Each run's policy carries its own setting; qVS-AS gets the kernel.
	kernel, err := vendi.SymmetrizeKNN(2, [][]int32{{1}, {0}}, [][]float64{{0.5}, {0.5}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		run  int
		want Policy
	}{
		{0, random{}},
		{1, oneStep{}},
		{3, ECI{Threshold: 0.25, Fantasy: pessimistic}},
		{14, SELECT{Beta: 1, Lambda: 0.75, Fantasy: optimistic}},
		{15, ens{Fantasy: pessimistic}},
		{17, QVS{Q: vendi.OrderInf, Kernel: kernel}},
	} {
		p, err := c.Policy(c.Runs[tc.run], kernel)
		if err != nil || p != tc.want {
			t.Errorf("run %s: policy %#v (%v), want %#v", c.Runs[tc.run].Key, p, err, tc.want)
		}
	}
	if _, err := c.Policy(campaign.Run{Key: "eci-t0.9-pessimistic-r00", Method: "eci"}, kernel); err == nil {
		t.Error("a run outside the plan has a policy")
	}
	// authors_shortcut: qVS-AS runs get their own keys and params, and the
	// policy carries the option.
	sp := smallProtocol()
	sp.AuthorsShortcut = true
	sc, err := Plan(sp)
	if err != nil {
		t.Fatal(err)
	}
	if r := sc.Runs[8]; r.Key != "qvs-qinf-authors-r00" || r.Params != "authors_shortcut=true" {
		t.Errorf("shortcut run %+v, want key qvs-qinf-authors-r00, params authors_shortcut=true", r)
	}
	if p, err := sc.Policy(sc.Runs[8], kernel); err != nil || p != (QVS{Q: vendi.OrderInf, Kernel: kernel, AuthorsShortcut: true}) {
		t.Errorf("shortcut policy %#v (%v)", p, err)
	}
	// The paper's protocol: 1 + 1 + 3 + 4 x 3 + 1 + 6 = 24 settings x 10 repeats.
	paper, err := Plan(PaperProtocol())
	if err != nil || len(paper.Runs) != 240 {
		t.Fatalf("paper protocol: %v, %d runs, want 240", err, len(paper.Runs))
	}
}

func TestPlanErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(p *Protocol)
		want string
	}{
		"no repeats":         {func(p *Protocol) { p.Repeats = 0 }, "repeats = 0: must be at least 1"},
		"no budget":          {func(p *Protocol) { p.Budget = 0 }, "budget = 0: must be at least 1"},
		"no batch":           {func(p *Protocol) { p.Batch = 0 }, "batch = 0: must be at least 1"},
		"no methods":         {func(p *Protocol) { p.Methods = nil }, `methods = "": expected some of`},
		"bad ties":           {func(p *Protocol) { p.Ties = "first" }, `ties = "first": expected random or index`},
		"method twice":       {func(p *Protocol) { p.Methods = append(p.Methods, "eci") }, `methods = "eci": listed twice`},
		"unknown method":     {func(p *Protocol) { p.Methods = append(p.Methods, "greedy") }, `unknown method "greedy"`},
		"bad eci fantasy":    {func(p *Protocol) { p.ECI.Fantasy = "hopeful" }, "eci.fantasy"},
		"no thresholds":      {func(p *Protocol) { p.ECI.Thresholds = nil }, "eci.thresholds"},
		"NaN threshold":      {func(p *Protocol) { p.ECI.Thresholds = []float64{math.NaN()} }, "eci.thresholds: NaN is outside"},
		"bad sel fantasy":    {func(p *Protocol) { p.SELECT.Fantasy = "x" }, "select.fantasy"},
		"no lambdas":         {func(p *Protocol) { p.SELECT.Lambdas = nil }, "select.lambdas"},
		"infinite beta":      {func(p *Protocol) { p.SELECT.Betas = []float64{math.Inf(1)} }, "select.betas: +Inf must be a finite number >= 0"},
		"negative beta":      {func(p *Protocol) { p.SELECT.Betas = []float64{-1} }, "select.betas: -1 must be a finite number >= 0"},
		"lambda above 1":     {func(p *Protocol) { p.SELECT.Lambdas = []float64{5} }, "select.lambdas: 5 is outside [0, 1]"},
		"NaN lambda":         {func(p *Protocol) { p.SELECT.Lambdas = []float64{math.NaN()} }, "select.lambdas: NaN is outside [0, 1]"},
		"threshold above 1":  {func(p *Protocol) { p.ECI.Thresholds = []float64{7} }, "eci.thresholds: 7 is outside [0, 1]"},
		"negative threshold": {func(p *Protocol) { p.ECI.Thresholds = []float64{-1} }, "eci.thresholds: -1 is outside [0, 1]"},
		"edge values": {func(p *Protocol) {
			p.ECI.Thresholds, p.SELECT.Betas, p.SELECT.Lambdas = []float64{0, 1}, []float64{0}, []float64{0, 1}
		}, ""},
		"bad ens fantasy":  {func(p *Protocol) { p.ENS.Fantasy = "x" }, "ens.fantasy"},
		"no orders":        {func(p *Protocol) { p.Q = vendi.OrderList{} }, "needs orders q"},
		"negative order":   {func(p *Protocol) { p.Q = vendi.NewOrderList(-1) }, `q = "-1": `}, // an Order set in Go code
		"order twice":      {func(p *Protocol) { p.Q, _ = vendi.ParseOrderList("1,1.0") }, `q = "1": listed twice`},
		"qvs not selected": {func(p *Protocol) { p.Methods, p.Q = []string{"random"}, vendi.OrderList{} }, ""},
	} {
		p := smallProtocol()
		tc.edit(&p)
		_, err := Plan(p)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, tc.want)
		}
	}
}

// TestPlanSettingError: Plan's refusals of a setting are typed, so that the
// command line can name the flag that set the key and pick the exit code
// without reading the message.
func TestPlanSettingError(t *testing.T) {
	p := smallProtocol()
	p.Methods = append(p.Methods, p.Methods[0])
	_, err := Plan(p)
	var se *configkeys.SettingError
	if !errors.As(err, &se) || se.Key != "methods" || se.Value != strconv.Quote(p.Methods[0]) || se.Reason != "listed twice" {
		t.Fatalf("Plan with %q twice: error %#v, want a SettingError for key methods", p.Methods[0], err)
	}
}

func TestSpaceCache(t *testing.T) {
	var mu sync.Mutex
	builds := map[int]int{}
	c := &spaceCache{max: 1, entries: map[int]*spaceEntry{}, build: func(r int) (*Space, error) {
		mu.Lock()
		builds[r]++
		mu.Unlock()
		return &Space{}, nil
	}}
	// Eight concurrent runs of repeat 0 share one build.
	var wg sync.WaitGroup
	spaces := make([]*Space, 8)
	for i := range spaces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sp, release, err := c.get(0)
			if err != nil {
				t.Error(err)
			}
			spaces[i] = sp
			release()
		}()
	}
	wg.Wait()
	for _, sp := range spaces[1:] {
		if sp != spaces[0] {
			t.Fatal("runs of one repeat got different spaces")
		}
	}
	// With max 1, repeat 0 stays (one entry) and repeat 1 is dropped once
	// released (two entries), so it is built again on next use.
	_, release, _ := c.get(1)
	release()
	_, release, _ = c.get(1)
	release()
	_, release, _ = c.get(0)
	release()
	if builds[0] != 1 || builds[1] != 2 {
		t.Errorf("builds %v, want repeat 0 once and repeat 1 twice", builds)
	}
}

func TestNewPool(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := linePool(rng, 7, 3)
	for i := range p.Labels {
		p.Labels[i] = false
	}
	// A pool without positives serves suggestions, not campaigns (a run
	// starts from a positive), and its prevalence rounds to prior 0.
	sp, err := NewPool(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Plan(smallProtocol())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunFunc(sp, t.TempDir(), 1); err == nil || !strings.Contains(err.Error(), "prevalence 0 rounds to 0") {
		t.Errorf("campaign on a pool without positives: %v", err)
	}
	p.Unlabeled = true
	if _, err := c.RunFunc(sp, t.TempDir(), 1); err == nil || !strings.Contains(err.Error(), "has no labels") {
		t.Errorf("campaign on an unlabelled pool: %v", err)
	}
	if _, _, err := sp.PseudoCounts(Prior{Rule: PriorPrevalence}, nil); err == nil || !strings.Contains(err.Error(), "needs the pool's labels") {
		t.Errorf("prevalence prior of an unlabelled pool: %v", err)
	}
	p.Unlabeled = false
	p.Labels[0], p.Labels[3], p.Labels[5] = true, true, true
	// Prevalence 3/7 = 0.42857...: a1 = 0.429, a0 = 0.571.
	const tol = 1e-15 // rounding of the decimal constants
	if a0, a1, err := sp.PseudoCounts(Prior{Rule: PriorPrevalence}, nil); err != nil || math.Abs(a1-0.429) > tol || math.Abs(a0-0.571) > tol {
		t.Errorf("pseudo-counts a0 %g, a1 %g (%v), want 0.571, 0.429", a0, a1, err)
	}
	// The estimate ignores the pool's labels: it reads the model's.
	m, err := NewModel(p.Neighbors, p.Weights, 0.5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if a0, a1, err := sp.PseudoCounts(Prior{Rule: PriorEstimate}, m); err != nil || a1 != FitPrior(m).A1 || a0 != 1-a1 {
		t.Errorf("estimated pseudo-counts a0 %g, a1 %g (%v), want FitPrior's %g", a0, a1, err, FitPrior(m).A1)
	}
	K := denseKernel(p)
	kernel := sp.Kernel()
	for i := 0; i < p.Len(); i++ {
		for j := 0; j < p.Len(); j++ {
			if kernel.At(i, j) != K.At(i, j) {
				t.Fatalf("kernel (%d, %d) = %g, (W + Wᵀ)/2 = %g", i, j, kernel.At(i, j), K.At(i, j))
			}
		}
	}
}

// linePool is n items at random points of a line with a random directed kNN
// graph of k neighbours and every third item positive.
func linePool(rng *rand.Rand, n, k int) *datasets.Pool {
	nbr, w := randomGraph(rng, n, k, false)
	p := &datasets.Pool{Name: "line", Neighbors: nbr, Weights: w, Metric: knn.MetricEuclidean}
	for i := 0; i < n; i++ {
		p.Dense = append(p.Dense, []float64{10 * rng.Float64()})
		p.Labels = append(p.Labels, i%3 == 0)
	}
	return p
}

// denseKernel is (W + Wᵀ)/2 with unit diagonal, built entry by entry.
func denseKernel(p *datasets.Pool) *mat.SymDense {
	n := p.Len()
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, 1)
	}
	for i, row := range p.Neighbors {
		for t, j := range row {
			K.SetSym(i, int(j), K.At(i, int(j))+p.Weights[i][t]/2)
		}
	}
	return K
}

// TestCampaignRunFunc runs a small campaign through campaign.Execute and
// checks every summary field against a from-scratch computation on the
// recorded queries, the records against the protocol, and that a resumed
// campaign gives the same files.
func TestCampaignRunFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := linePool(rng, 60, 5)
	pool, err := NewPool(data)
	if err != nil {
		t.Fatal(err)
	}
	proto := smallProtocol()
	proto.Methods, proto.Q = []string{"random", "one-step", "qvs"}, vendi.NewOrderList(1)
	c, err := Plan(proto)
	if err != nil {
		t.Fatal(err)
	}
	execute := func(dir string) {
		t.Helper()
		fn, err := c.RunFunc(pool, dir, 2)
		if err != nil {
			t.Fatal(err)
		}
		spec := campaign.Spec{Dir: dir, Header: RecordHeader, Runs: c.Runs, Steps: proto.Budget + 1, Workers: 2, Quiet: true, Config: proto}
		if _, err := campaign.Execute(context.Background(), spec, fn); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "full")
	execute(dir)
	sum := readCSV(t, filepath.Join(dir, "summary.csv"), strings.Split("key,method,q,params,repeat,positives,vs_q0,vs_q0.1,vs_q0.5,vs_q1,vs_q2,vs_qinf,max_pairwise_distance,kernel_det,kernel_logdet,kernel_det_per_item,seconds", ","))
	if len(sum) != 1+6 {
		t.Fatalf("%d summary rows, want 6", len(sum)-1)
	}
	K := denseKernel(data)
	starts := map[string]string{}
	const tol = 1e-9 // eigenvalue and determinant rounding
	for _, row := range sum[1:] {
		key := row[0]
		recs := readCSV(t, filepath.Join(dir, "runs", key+".csv"), RecordHeader)
		// The start plus 7 queries in batches of 3, 3, 1.
		if len(recs) != 1+8 || recs[8][1] != "3" || recs[7][1] != "2" {
			t.Fatalf("%s: records %v", key, recs)
		}
		if recs[1][4] != "1" {
			t.Errorf("%s starts at a negative: %v", key, recs[1])
		}
		if s, ok := starts[row[4]]; ok && s != recs[1][2] {
			t.Errorf("%s starts at %s, another run of repeat %s at %s", key, recs[1][2], row[4], s)
		}
		starts[row[4]] = recs[1][2]
		var pos []int
		for _, r := range recs[1:] {
			i, _ := strconv.Atoi(r[2])
			if data.Labels[i] != (r[4] == "1") {
				t.Errorf("%s: item %d recorded with label %s", key, i, r[4])
			}
			if r[4] == "1" {
				pos = append(pos, i)
			}
		}
		// VS_1 = exp(entropy of the eigenvalues of K/n); det K; max |x_i - x_j|.
		sub := mat.NewSymDense(len(pos), nil)
		maxDist := 0.0
		for a, i := range pos {
			for b, j := range pos {
				sub.SetSym(a, b, K.At(i, j))
				maxDist = math.Max(maxDist, math.Abs(data.Dense[i][0]-data.Dense[j][0]))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(sub, false) {
			t.Fatal("eigendecomposition failed")
		}
		h := 0.0
		for _, l := range eig.Values(nil) {
			if l /= float64(len(pos)); l > 0 {
				h -= l * math.Log(l)
			}
		}
		for col, want := range map[string]float64{
			"positives":             float64(len(pos)),
			"vs_q0":                 float64(len(pos)), // distinct items: full rank
			"vs_q1":                 math.Exp(h),
			"max_pairwise_distance": maxDist,
			"kernel_det":            mat.Det(sub),
			// |det|^(1/n): the per-item determinant.
			"kernel_det_per_item": math.Pow(math.Abs(mat.Det(sub)), 1/float64(len(pos))),
		} {
			got, err := strconv.ParseFloat(row[slices.Index(sum[0], col)], 64)
			if err != nil || math.Abs(got-want) > tol*max(1, math.Abs(want)) {
				t.Errorf("%s: %s = %s, want %g", key, col, row[slices.Index(sum[0], col)], want)
			}
		}
		curve := readCSV(t, filepath.Join(dir, "runs", key+".curve.csv"), curveHeader)
		last := curve[len(curve)-1]
		if len(curve) != 1+4 ||
			last[1] != "7" || last[2] != strconv.Itoa(len(pos)) || last[3] != row[slices.Index(sum[0], "vs_q1")] {
			t.Errorf("%s: curve %v", key, curve)
		}
	}

	// Resume: cut one run after its first batch and drop another's summary;
	// the rerun replays them and ends with the same records and summary.
	part := filepath.Join(t.TempDir(), "part")
	if err := os.CopyFS(part, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(part, "runs", "qvs-q1-r01.csv")
	recs := readCSV(t, cut, RecordHeader)
	writeCSV(t, cut, recs[:1+1+3])
	for _, f := range []string{"qvs-q1-r01.summary.csv", "qvs-q1-r01.curve.csv", "random-r00.summary.csv"} {
		os.Remove(filepath.Join(part, "runs", f))
	}
	execute(part)
	for _, f := range []string{"summary.csv", "runs/qvs-q1-r01.csv", "runs/qvs-q1-r01.curve.csv", "runs/random-r00.csv"} {
		a, b := blankSeconds(readCSV(t, filepath.Join(dir, f), nil)), blankSeconds(readCSV(t, filepath.Join(part, f), nil))
		if !slices.EqualFunc(a, b, slices.Equal) {
			t.Errorf("%s after resume:\n%v\nuninterrupted:\n%v", f, b, a)
		}
	}
	// A record file from another pool is refused, naming the file.
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.CopyFS(bad, os.DirFS(part)); err != nil {
		t.Fatal(err)
	}
	recs = readCSV(t, filepath.Join(bad, "runs", "one-step-r00.csv"), RecordHeader)
	recs[1][4] = map[string]string{"0": "1", "1": "0"}[recs[1][4]]
	writeCSV(t, filepath.Join(bad, "runs", "one-step-r00.csv"), recs[:2])
	os.Remove(filepath.Join(bad, "runs", "one-step-r00.summary.csv"))
	fn, _ := c.RunFunc(pool, bad, 1)
	_, err = campaign.Execute(context.Background(), campaign.Spec{Dir: bad, Header: RecordHeader, Runs: c.Runs, Steps: 8, Workers: 1, Quiet: true, Config: proto}, fn)
	if err == nil || !strings.Contains(err.Error(), "one-step-r00") {
		t.Errorf("foreign records: %v", err)
	}
}

// readCSV reads a CSV file a campaign wrote, header line included, and
// checks the header when one is given.
func readCSV(t *testing.T, path string, header []string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	switch {
	case err != nil || len(recs) == 0:
		t.Fatalf("%s: %v, %d lines", path, err, len(recs))
	case header != nil && !slices.Equal(recs[0], header):
		t.Fatalf("%s: header %v, want %v", path, recs[0], header)
	}
	return recs
}

func writeCSV(t *testing.T, path string, recs [][]string) {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// blankSeconds empties the seconds column, the one legitimately different
// value between two executions.
func blankSeconds(recs [][]string) [][]string {
	if c := slices.Index(recs[0], "seconds"); c >= 0 {
		for _, r := range recs[1:] {
			r[c] = ""
		}
	}
	return recs
}

// TestPlanTypedOrders: Plan uses the parsed orders, never their text: a
// protocol built in Go code from values plans the runs and keys of the one
// whose orders were written "0.50, Inf, 2.0", and keeps the text as
// written for config.yaml.
func TestPlanTypedOrders(t *testing.T) {
	written := smallProtocol()
	var err error
	if written.Q, err = vendi.ParseOrderList("0.50, Inf, 2.0"); err != nil {
		t.Fatal(err)
	}
	typed := smallProtocol()
	typed.Q = vendi.NewOrderList(0.5, vendi.OrderInf, 2)
	a, err := Plan(written)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Plan(typed)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Runs, b.Runs) || len(a.Runs) != 2*(1+1+2+2+1+3) {
		t.Fatalf("runs from text %v\nfrom values %v", a.Runs, b.Runs)
	}
	var keys []string
	for _, r := range a.Runs {
		if r.Method == "qvs" && r.Repeat == 0 {
			keys = append(keys, r.Key+"/"+r.Q+"/"+a.settings[r.Key].Q.String())
		}
	}
	if want := []string{"qvs-q0.5-r00/0.5/0.5", "qvs-qinf-r00/inf/inf", "qvs-q2-r00/2/2"}; !slices.Equal(keys, want) {
		t.Errorf("qvs runs %q, want %q", keys, want)
	}
	if !slices.Equal(a.Protocol.Q.Text(), []string{"0.50", "Inf", "2.0"}) {
		t.Errorf("the campaign records q as %q", a.Protocol.Q.Text())
	}
}

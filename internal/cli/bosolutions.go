package cli

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/qvs-dev/qvs/internal/bayesopt/discrete"
	"github.com/qvs-dev/qvs/internal/bayesopt/space"
	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// SolutionsOptions are the settings of `qvs bayesopt solutions`.
type SolutionsOptions struct {
	Observed string
	Format   Format
	Q        vendi.Order
	M        int
	Minimize bool
	// Space and Kernel: exactly one names the evaluations' domain.
	Space  solutionsSpace
	Kernel solutionsKernel
	// SpaceFlags and KernelFlags are the flags given that apply to one
	// domain only (the settings table's rows of Space, Kernel).
	SpaceFlags, KernelFlags []string
}

// solutionsSpace is a continuous space (--space) and its distance.
type solutionsSpace struct {
	File             string
	LengthScale      float64
	LengthScaleGiven bool
}

// solutionsKernel is a discrete pool (--kernel) and its ids.
type solutionsKernel struct{ File, IDs string }

// DefaultSolutionsOptions are the flags' defaults.
func DefaultSolutionsOptions() SolutionsOptions {
	return SolutionsOptions{Format: formats(FormatCSV, FormatCSV, FormatTable, FormatJSON), Q: 1, M: 3}
}

// RunSolutions prints the o.M diverse high-quality solutions among the
// evaluations of o.Observed (space.Solutions, discrete.Solutions) and
// their VS on stderr (or in the JSON document).
func RunSolutions(e *Env, o *SolutionsOptions) error {
	switch {
	case (o.Space.File == "") == (o.Kernel.File == ""),
		// The other one given empty (--kernel= beside --space) is given.
		o.Space.File != "" && slices.Contains(o.KernelFlags, "kernel"),
		o.Kernel.File != "" && slices.Contains(o.SpaceFlags, "space"):
		return Usagef("give exactly one of --space (continuous parameters) or --kernel (a discrete pool)")
	case o.Observed == "":
		return Usagef("--observed FILE is required")
	case o.M < 1 || o.M > maxRegions:
		return Usagef("--m %d: expected 1 to %d", o.M, maxRegions)
	case o.Space.File != "" && len(o.KernelFlags) > 0:
		return onlyWith("--kernel", o.KernelFlags)
	case o.Kernel.File != "" && len(o.SpaceFlags) > 0:
		return onlyWith("--space", o.SpaceFlags)
	case o.Space.LengthScaleGiven && (!(o.Space.LengthScale > 0) || math.IsInf(o.Space.LengthScale, 0)):
		return Usagef("--length-scale %v: must be a finite number > 0", o.Space.LengthScale)
	}
	q, minimize := o.Q, o.Minimize
	t := table{Command: "bayesopt solutions"}
	var vs float64
	note := ""
	if o.Space.File != "" {
		sp, err := space.Load(o.Space.File)
		if err != nil {
			return err
		}
		if o.Space.LengthScaleGiven {
			sp.LengthScale = o.Space.LengthScale
		}
		if minimize, err = sp.ResolveMinimize(minimize); err != nil {
			return Usagef("%v", err)
		}
		sign := 1.0 // the file's units from the maximised values
		if minimize {
			sign = -1
		}
		obs, err := space.ReadObservations(o.Observed, sp, minimize)
		if err != nil {
			return err
		}
		if n := space.CountFailed(obs); n > 0 {
			note = fmt.Sprintf("; %d of %d experiments failed (never chosen)", n, len(obs))
		}
		idx, set, err := space.Solutions(sp, obs, o.M, q)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Observed, err)
		}
		vs = set.VS
		t.Head = append(append([]string{"rank"}, sp.Names()...), "value", "region")
		for r, i := range idx {
			ob := obs[i]
			row := []string{strconv.Itoa(r + 1)}
			for j, v := range ob.Values {
				row = append(row, sp.Format(j, v))
			}
			t.Rows = append(t.Rows, append(row, Float(sign*ob.Value), strconv.Itoa(ob.Region)))
		}
	} else {
		sign := 1.0
		if minimize {
			sign = -1
		}
		K, err := datasets.ReadKernelMatrix(o.Kernel.File)
		if err != nil {
			return err
		}
		ids, err := discrete.ReadIDs(o.Kernel.IDs, K.SymmetricDim(), o.Kernel.File)
		if err != nil {
			return err
		}
		all, err := discrete.ReadEvaluations(o.Observed, ids)
		if err != nil {
			return err
		}
		chosen, setVS, failed, err := discrete.Solutions(K, all, o.M, q, sign)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Observed, err)
		}
		if failed > 0 {
			note = fmt.Sprintf("; %d of %d experiments failed (never chosen)", failed, len(all))
		}
		vs = setVS
		t.Head = []string{"rank", "index", "id", "value"}
		for r, c := range chosen {
			t.Rows = append(t.Rows, []string{strconv.Itoa(r + 1), strconv.Itoa(c.Index), ids[c.Index], Float(c.Value)})
		}
	}
	if o.Format.Value == FormatJSON {
		t.Extra = []field{{"m", o.M}, {"q", jsonNumber(float64(q))}, {"vs", jsonNumber(vs)}}
		return t.Write(e.Out, FormatJSON)
	}
	if err := t.Write(e.Out, o.Format.Value); err != nil {
		return err
	}
	if !e.Quiet {
		fmt.Fprintf(e.Err, "qvs bayesopt solutions: %d solution(s) in greedy pick order (rank 1 = the best value), VS (order 1, exp(-d^2/2)) = %.4g%s\n", len(t.Rows), vs, note)
	}
	return nil
}

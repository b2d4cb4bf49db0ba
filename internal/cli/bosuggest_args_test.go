package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/qvs-dev/qvs/internal/vendi"
)

// boSuggestCmd is `qvs bayesopt suggest args...` run directly: the flags
// fill BOSuggestOptions (those of one kind of input listed as given), the
// globals --seed and --quiet set the Env. It returns the exit code qvs
// would give, stdout, and the error's message followed by stderr. Which
// flag fills which field is cmd's to test (TestFlagsFillOptions); this
// writes the tests here in the command's terms.
func boSuggestCmd(t *testing.T, args ...string) (code int, stdout, msg string) {
	t.Helper()
	env, sout, serr := testEnv(t)
	o := DefaultBOSuggestOptions()
	c, d := &o.Continuous, &o.Discrete
	for i := 0; i < len(args); i++ {
		f := strings.TrimPrefix(args[i], "--")
		switch f {
		case "quiet":
			env.Quiet = true
			continue
		case "raw-ids":
			o.RawIDs = true
			continue
		case "retry-failed":
			o.RetryFailed = true
			continue
		case "minimize", "qvs-floor":
			c.Minimize = c.Minimize || f == "minimize"
			c.QVSFloor = c.QVSFloor || f == "qvs-floor"
			o.ContinuousFlags = append(o.ContinuousFlags, f)
			continue
		}
		if i+1 == len(args) {
			t.Fatalf("bayesopt suggest: %s needs a value", args[i])
		}
		i++
		v := args[i]
		num := func() float64 { return flagNumber(t, f, v) }
		integer := func() int { return flagInt(t, f, v) }
		var err error
		switch f {
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			env.Seed, env.SeedSet = n, true
		case "space":
			c.Space = v
		case "kernel":
			d.Kernel, o.OnKernel = v, true
		case "observed":
			o.Observed = v
		case "pending":
			c.Pending = v
		case "batch":
			o.Batch = integer()
		case "method":
			o.Method = v
		case "q":
			o.Q, err = vendi.ParseOrder(v)
		case "format":
			err = o.Format.Set(v)
		case "init":
			o.Init, o.InitGiven = integer(), true
		case "regions":
			c.Regions = integer()
		case "candidates":
			c.Candidates = integer()
		case "max-train":
			c.MaxTrain = integer()
		case "tau":
			c.Tau = num()
		case "length-scale":
			c.LengthScale, c.LengthScaleGiven = num(), true
		case "qvs-mode":
			c.QVSMode = v
		case "ids":
			d.IDs = v
		case "name":
			d.Name = v
		case "beta":
			d.Beta = num()
		default:
			t.Fatalf("bayesopt suggest: flag --%s", f)
		}
		if err != nil {
			t.Fatal(err)
		}
		switch f {
		case "pending", "regions", "candidates", "max-train", "tau", "length-scale", "qvs-mode":
			o.ContinuousFlags = append(o.ContinuousFlags, f)
		case "ids", "name", "beta":
			o.DiscreteFlags = append(o.DiscreteFlags, f)
		}
	}
	if err := RunBOSuggest(env, &o); err != nil {
		return ExitCode(err), sout.String(), err.Error() + "\n" + serr.String()
	}
	return 0, sout.String(), serr.String()
}

package cli

import (
	"fmt"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/knn"
)

// GraphOptions are the settings of `qvs graph`: the pool (a CSV or .npy
// pool with its kNN keys) and the .npz to write.
type GraphOptions struct {
	Pool datasets.Config
	Out  string
}

// RunGraph builds (or reads from the cache) the pool's kNN graph and
// writes it to o.Out as a SciPy CSR .npz, atomically. SIGINT, SIGTERM and
// SIGHUP (e.Ctx) end it with the context's error; the build runs beside
// the wait (it takes no context), so an interrupt leaves the old file or
// none.
func RunGraph(e *Env, o *GraphOptions) error {
	cs := o.Pool.CSV
	if err := fileio.CheckOutput(o.Out, fileio.OutputCheck{Inputs: []string{cs.File, cs.IDsFile}, Force: e.Force, Ours: fileio.IsCSRNPZ, Flag: "--out"}); err != nil {
		return Usage(err)
	}
	if err := checkOutputDir(o.Out); err != nil {
		return err
	}
	ctx := e.Context()
	type built struct {
		n   int
		m   *fileio.CSR
		err error
	}
	done := make(chan built, 1)
	go func() {
		pool, err := loadPool(e, o.Pool)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			done <- built{err: err}
			return
		}
		printPoolNotes(e, "", pool)
		steps := newStepLog(e.Err, e.Quiet)
		steps.Step("writing " + o.Out)
		m := pool.GraphCSR()
		err = fileio.WriteCSRNPZ(o.Out, m)
		steps.End()
		done <- built{pool.Len(), m, err}
	}()
	var b built
	select {
	case <-ctx.Done():
		return ctx.Err()
	case b = <-done:
	}
	if b.err != nil {
		return b.err
	}
	if !e.Quiet {
		weights := cs.Similarity
		if cs.Metric == knn.MetricTanimoto && weights != knn.SimilarityUnweighted {
			weights = "Tanimoto similarity"
		}
		fmt.Fprintf(e.Err, "%s: %d x %d CSR, %d edges (%s weights)\n", o.Out, b.n, b.n, len(b.m.Data), weights)
	}
	return nil
}

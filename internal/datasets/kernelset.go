package datasets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/vendi"
)

// KernelSet is a finite candidate set for discrete Bayesian optimisation
// (paper §4.2, Algorithm 3): n items, a precomputed positive semidefinite
// kernel matrix between them, the objective to maximise and optional extra
// metrics reported for the best item found (e.g. the MOF energy penalty of
// paper Figure 6).
type KernelSet struct {
	Name          string
	IDs           []string // unique item names; row i of Kernel is item i
	ObjectiveName string
	Objective     []float64 // maximised; finite
	MetricNames   []string
	Metrics       [][]float64   // Metrics[j][i] = metric j of item i (NaN = missing)
	Kernel        *mat.SymDense // n x n, symmetric, finite, positive diagonal, PSD up to kernelPSDTol
}

// Len is the number of candidates.
func (s *KernelSet) Len() int { return len(s.IDs) }

// KernelSetFiles locates a candidate set in the "kernel + table" format of
// the MOF task (Liu et al. 2024): a kernel matrix file and a CSV table whose
// data row i describes row and column i of the kernel.
type KernelSetFiles struct {
	// Kernel is an n x n matrix: .npy (float32/float64, 2-D) or CSV of
	// numbers (an optional header row is skipped).
	Kernel string
	// Table is a CSV with a header row and n data rows in kernel order.
	Table string
	// IDColumn names the column of unique item names.
	IDColumn string
	// ObjectiveColumn names the column to maximise (finite numbers).
	ObjectiveColumn string
	// MetricColumns name extra numeric columns reported for the best item;
	// empty cells and "nan" read as NaN (missing).
	MetricColumns []string
	// Note is appended to the error when files are missing (where to get
	// them, e.g. that the MOF data is not public).
	Note string
}

// kernelPSDTol is the tolerance of the positive-semidefiniteness check: the
// kernel K is accepted when K + kernelPSDTol·mean(diag K)·I has a Cholesky
// factor, i.e. its smallest eigenvalue is above -kernelPSDTol·mean(diag K).
// The discrete GP adds at least this much relative noise (its smallest
// noise-to-signal ratio), so every accepted kernel gives a well-posed GP.
const kernelPSDTol = 1e-6

// kernelSymTol is the relative asymmetry |K_ij - K_ji| / max|K_ii| allowed
// in a kernel file (float32 round-off of a symmetric matrix is ~6e-8).
const kernelSymTol = 1e-6

// MissingDataError reports candidate-set files that do not exist, with what
// each must contain, so that a user can supply them.
type MissingDataError struct {
	Task    string
	Missing []string // one line per missing file: "path: what it must hold"
	Note    string
}

func (e *MissingDataError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "task %q needs data files that are missing:", e.Task)
	for _, m := range e.Missing {
		b.WriteString("\n  - ")
		b.WriteString(m)
	}
	if e.Note != "" {
		b.WriteString("\n")
		b.WriteString(e.Note)
	}
	return b.String()
}

// ReadKernelSet reads a candidate set in the kernel + table format. Missing
// files give a *MissingDataError describing every needed file. The kernel
// must be square with as many rows as the table, finite, symmetric, with a
// positive diagonal, |K_ij| <= sqrt(K_ii K_jj), and PSD up to kernelPSDTol;
// errors name the file and the offending entry (1-based).
func ReadKernelSet(name string, f KernelSetFiles) (*KernelSet, error) {
	if f.Kernel == "" || f.Table == "" {
		return nil, fmt.Errorf("task %q: both a kernel file and a table file must be configured (got kernel %q, table %q)", name, f.Kernel, f.Table)
	}
	if f.IDColumn == "" || f.ObjectiveColumn == "" {
		return nil, fmt.Errorf("task %q: the id column and the objective column of %s must be configured", name, f.Table)
	}
	var missing []string
	if _, err := os.Stat(f.Kernel); errors.Is(err, os.ErrNotExist) {
		missing = append(missing, fmt.Sprintf("%s: the n x n kernel (covariance) matrix between the candidates, "+
			"as .npy (2-D float64 or float32) or CSV of numbers (optional header row); row/column i is data row i of %s",
			f.Kernel, f.Table))
	}
	if _, err := os.Stat(f.Table); errors.Is(err, os.ErrNotExist) {
		cols := []string{fmt.Sprintf("%q (unique item name)", f.IDColumn), fmt.Sprintf("%q (objective, maximised)", f.ObjectiveColumn)}
		for _, m := range f.MetricColumns {
			cols = append(cols, fmt.Sprintf("%q (extra metric reported for the best item)", m))
		}
		missing = append(missing, fmt.Sprintf("%s: CSV with a header row and one row per candidate in kernel order, with columns %s",
			f.Table, strings.Join(cols, ", ")))
	}
	if len(missing) > 0 {
		return nil, &MissingDataError{Task: name, Missing: missing, Note: f.Note}
	}

	set := &KernelSet{Name: name, ObjectiveName: f.ObjectiveColumn, MetricNames: append([]string(nil), f.MetricColumns...)}
	if err := readKernelTable(f, set); err != nil {
		return nil, err
	}
	K, err := ReadKernelMatrix(f.Kernel)
	if err != nil {
		return nil, err
	}
	if n := K.SymmetricDim(); n != set.Len() {
		return nil, fmt.Errorf("%s: kernel is %d x %d but table %s has %d candidates: row i of the kernel must describe data row i of the table",
			f.Kernel, n, n, f.Table, set.Len())
	}
	set.Kernel = K
	return set, nil
}

// ReadKernelMatrix reads a precomputed kernel matrix between n candidates:
// .npy (2-D float64/float32) or CSV of numbers (an optional header row is
// skipped). It must be square, finite, symmetric, with a positive
// diagonal, |K_ij| <= sqrt(K_ii K_jj), and PSD up to kernelPSDTol; errors
// name the file and the offending entry (1-based).
func ReadKernelMatrix(path string) (*mat.SymDense, error) {
	t, err := fileio.ReadTable(path, false)
	if err != nil {
		return nil, err
	}
	if t.Rows != t.Cols {
		return nil, fmt.Errorf("%s: expected a square n x n kernel matrix, got %d x %d", path, t.Rows, t.Cols)
	}
	K := mat.NewSymDense(t.Rows, nil)
	for i := 0; i < t.Rows; i++ {
		for j := i; j < t.Rows; j++ {
			K.SetSym(i, j, t.At(i, j))
		}
	}
	if err := checkKernel(path, t, K); err != nil {
		return nil, err
	}
	return K, nil
}

// readKernelTable reads the ids, objective and metrics of the table file.
func readKernelTable(f KernelSetFiles, set *KernelSet) error {
	fh, err := fileio.OpenInput(f.Table)
	if err != nil {
		return err
	}
	defer fh.Close()
	cr := fileio.NewCSVReader(fh)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: empty file, expected a header row with columns %q and %q", f.Table, f.IDColumn, f.ObjectiveColumn)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Table, err)
	}
	col := map[string]int{}
	for j, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = j
	}
	find := func(name string) (int, error) {
		j, ok := col[strings.TrimSpace(name)]
		if !ok {
			return 0, fmt.Errorf("%s: header has no column %q (columns: %s)", f.Table, name, strings.Join(header, ", "))
		}
		return j, nil
	}
	idCol, err := find(f.IDColumn)
	if err != nil {
		return err
	}
	objCol, err := find(f.ObjectiveColumn)
	if err != nil {
		return err
	}
	metCols := make([]int, len(f.MetricColumns))
	for k, m := range f.MetricColumns {
		if metCols[k], err = find(m); err != nil {
			return err
		}
	}
	set.Metrics = make([][]float64, len(f.MetricColumns))
	firstLine := map[string]int{}
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return fmt.Errorf("%s: %w", f.Table, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(header) {
			return fileio.LineErrorf(f.Table, line, "%d cells, expected %d like the header", len(rec), len(header))
		}
		id := rec[idCol] // verbatim: " sp " stays " sp "
		if strings.TrimSpace(id) == "" {
			return fileio.FieldErrorf(f.Table, line, f.IDColumn, "empty id")
		}
		if l, dup := firstLine[id]; dup {
			return fileio.FieldErrorf(f.Table, line, f.IDColumn, "id %q repeats line %d; ids must be unique", id, l)
		}
		firstLine[id] = line
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[objCol]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fileio.FieldErrorf(f.Table, line, f.ObjectiveColumn, "%q is not a finite number%s", rec[objCol], fileio.SeparatorHint(rec[objCol]))
		}
		set.IDs = append(set.IDs, id)
		set.Objective = append(set.Objective, v)
		for k, j := range metCols {
			cell := strings.TrimSpace(rec[j])
			m := math.NaN()
			if cell != "" {
				m, err = strconv.ParseFloat(cell, 64)
				if err != nil || math.IsInf(m, 0) {
					return fileio.FieldErrorf(f.Table, line, f.MetricColumns[k], "%q is not a number (leave the cell empty if missing)%s", rec[j], fileio.SeparatorHint(rec[j]))
				}
			}
			set.Metrics[k] = append(set.Metrics[k], m)
		}
	}
	if set.Len() == 0 {
		return fmt.Errorf("%s: no data rows after the header", f.Table)
	}
	return nil
}

// checkKernel validates the kernel read from path (t holds the full matrix
// as read, so asymmetry is visible; K its upper triangle).
func checkKernel(path string, t *fileio.Table, K *mat.SymDense) error {
	n := t.Rows
	var maxDiag, sumDiag float64
	for i := 0; i < n; i++ {
		d := t.At(i, i)
		if !(d > 0) {
			return fmt.Errorf("%s: row %d, column %d (the diagonal) is %v: a kernel needs positive self-similarity", path, i+1, i+1, d)
		}
		maxDiag = math.Max(maxDiag, d)
		sumDiag += d
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a, b := t.At(i, j), t.At(j, i)
			if math.Abs(a-b) > kernelSymTol*maxDiag {
				return fmt.Errorf("%s: not symmetric: row %d, column %d is %v but row %d, column %d is %v", path, i+1, j+1, a, j+1, i+1, b)
			}
			if a*a > t.At(i, i)*t.At(j, j)*(1+kernelSymTol) {
				return fmt.Errorf("%s: not positive semidefinite: row %d, column %d is %v, larger in magnitude than sqrt(K_ii K_jj) = %v (rows %d and %d of the diagonal)",
					path, i+1, j+1, a, math.Sqrt(t.At(i, i)*t.At(j, j)), i+1, j+1)
			}
		}
	}
	jitter := kernelPSDTol * sumDiag / float64(n)
	J := mat.NewSymDense(n, nil)
	J.CopySym(K)
	for i := 0; i < n; i++ {
		J.SetSym(i, i, J.At(i, i)+jitter)
	}
	var chol mat.Cholesky
	if chol.Factorize(J) {
		return nil
	}
	msg := fmt.Sprintf("%s: kernel is not positive semidefinite", path)
	var es mat.EigenSym
	if es.Factorize(K, false) {
		v := es.Values(nil)
		msg += fmt.Sprintf(": smallest eigenvalue %.4g, largest %.4g", v[0], v[n-1])
	}
	return fmt.Errorf("%s (tolerance -%g x mean diagonal = %.3g); clip its negative eigenvalues before use", msg, kernelPSDTol, -jitter)
}

// PhotoswitchKernelSet is the photoswitch stand-in for the MOF task (whose
// data, from Liu et al. 2024, is not public): the molecules of the photoswitch table at path, the Tanimoto
// kernel of their Morgan fingerprints (positive semidefinite: Ralaivola et
// al. 2005, "Graph kernels for chemical informatics"), and the objective
// lambda-max in nm (maximised). Items are named by their SMILES. There are
// no extra metrics.
func PhotoswitchKernelSet(path string) (*KernelSet, error) {
	t, err := readPhotoswitch(path)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for i, s := range t.Smiles {
		if j, dup := seen[s]; dup {
			return nil, fmt.Errorf("%s: SMILES %q appears on data rows %d and %d; item names must be unique", path, s, j+1, i+1)
		}
		seen[s] = i
	}
	return &KernelSet{
		Name:          "photoswitch-bo",
		IDs:           append([]string(nil), t.Smiles...),
		ObjectiveName: "lambda_max_nm",
		Objective:     append([]float64(nil), t.LambdaMax...),
		Kernel:        tanimotoKernel(t.Bits),
	}, nil
}

// tanimotoKernel is the n x n matrix of Tanimoto similarities between bit
// vectors (unit diagonal).
func tanimotoKernel(bits [][]uint64) *mat.SymDense {
	n := len(bits)
	K := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		K.SetSym(i, i, 1)
		for j := i + 1; j < n; j++ {
			K.SetSym(i, j, Tanimoto(bits[i], bits[j]))
		}
	}
	return K
}

// kernelSymmetryTol is the relative asymmetry |K_ij - K_ji| / max|K|
// KernelFromTable accepts (values written with ~10 significant digits
// round-trip).
const kernelSymmetryTol = 1e-8

// KernelFromTable checks that t is a square matrix, symmetric up to
// kernelSymmetryTol, and returns it symmetrised, (K + Kᵀ)/2, sharing t's
// memory (no second n x n copy; t's upper triangle is overwritten). With
// normalize (`qvs score|select --normalize`) it is rescaled to unit
// diagonal, K_ij / sqrt(K_ii K_jj), which needs every diagonal entry > 0
// and finite. Errors name t's file and the 1-based row and column.
// Unlike ReadKernelMatrix it does not require a PSD kernel: VS clips the
// spectrum at 0.
func KernelFromTable(t *fileio.Table, normalize bool) (*mat.SymDense, error) {
	path := t.Path
	if t.Rows != t.Cols {
		return nil, fmt.Errorf("%s: kernel must be square, got %d rows x %d columns", path, t.Rows, t.Cols)
	}
	maxAbs := vendi.Unoverflow(t.Data)
	for i := 0; i < t.Rows; i++ {
		for j := i + 1; j < t.Cols; j++ {
			if math.Abs(t.At(i, j)-t.At(j, i)) > kernelSymmetryTol*maxAbs {
				return nil, fmt.Errorf("%s: kernel is not symmetric: row %d, column %d is %v but row %d, column %d is %v",
					path, i+1, j+1, t.At(i, j), j+1, i+1, t.At(j, i))
			}
		}
	}
	// K shares the table's memory (no second n x n copy): its upper
	// triangle becomes (K_ij + K_ji)/2 in place, the lower one is left as read.
	n := t.Rows
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			t.Data[i*n+j] = 0.5 * (t.Data[i*n+j] + t.Data[j*n+i])
		}
	}
	K := mat.NewSymDense(n, t.Data)
	if !normalize {
		return K, nil
	}
	// vendi.Normalize names the item 0-based; the file's row is 1-based.
	for i := 0; i < n; i++ {
		if v := t.At(i, i); !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: --normalize: row %d, column %d (the diagonal) is %v; K_ij / sqrt(K_ii K_jj) needs every diagonal entry > 0 and finite", path, i+1, i+1, v)
		}
	}
	vendi.NormalizeInPlace(K)
	return K, nil
}

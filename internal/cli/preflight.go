package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
	"github.com/qvs-dev/qvs/internal/search"
)

// checkInputs checks every file `as suggest` reads before any of
// them is read in earnest: the pool's files (datasets.CheckInputFiles) and
// --observed and --pending, whose header, fields and labels are checked
// too (search.CheckObservedFile, CheckPendingFile; their items are
// resolved once the pool is loaded). A mistyped path or header is then
// reported at once, not after the pool's graph is built.
func checkInputs(pool datasets.Config, observed, pending string) error {
	if err := datasets.CheckInputFiles(pool); err != nil {
		return err
	}
	if observed != "" {
		if err := search.CheckObservedFile(observed); err != nil {
			return err
		}
	}
	if pending != "" {
		return search.CheckPendingFile(pending)
	}
	return nil
}

// CheckReadable checks that each non-empty path opens for reading as a
// regular file (fileio.OpenInput), in order, before a command's long work.
func CheckReadable(paths ...string) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		f, err := fileio.OpenInput(p)
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// CheckOutputDir checks that the folder an output file goes to exists, so
// a mistyped --out is reported before the work whose result it holds.
func CheckOutputDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: the folder of %s: %w", dir, path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: the folder of %s is not a directory", dir, path)
	}
	return nil
}

package fileio

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// CacheWarnings receives the warning printed when a cache file cannot be
// written (os.Stderr; tests replace it).
var CacheWarnings io.Writer = os.Stderr

var cacheWarned sync.Map // path -> true: one warning per file

// WriteCacheFunc writes a cache file atomically like WriteAtomicFunc, but
// a failure (a full or read-only file system, a cache folder that is a
// file) is not an error: caches only save time, so the work goes on, and a
// warning naming the file and the cause goes to CacheWarnings once per
// file (a full cache file system aborted a campaign). The file
// is left as it was (atomic write), so a later run recomputes it.
func WriteCacheFunc(path string, write func(w io.Writer) error) {
	if err := WriteAtomicFunc(path, write); err != nil {
		if _, done := cacheWarned.LoadOrStore(path, true); !done {
			fmt.Fprintf(CacheWarnings, "qvs: warning: cache file %s not written (%v); going on without it\n", path, err)
		}
	}
}

// WriteCacheCSV is WriteCacheFunc for a CSV file (see WriteCSVAtomic).
func WriteCacheCSV(path string, header []string, rows [][]string) {
	WriteCacheFunc(path, func(w io.Writer) error { return writeCSV(w, header, rows) })
}

package eval

import (
	"bufio"
	"path/filepath"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// indexTitle opens the README.md that Evaluate writes.
const indexTitle = "# Evaluation of the campaigns (written by `qvs eval`)"

// CheckOut checks, before any work, that Evaluate may write its index
// out/README.md: absent, or one an earlier Evaluate wrote (its first line
// is indexTitle); another README.md (the user's own, in `--out .`) is
// refused unless force.
func CheckOut(out string, force bool) error {
	return fileio.CheckOutput(filepath.Join(out, "README.md"), fileio.OutputCheck{Force: force, Ours: isIndex, Flag: "--out"})
}

func isIndex(path string) bool {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimSuffix(line, "\n") == indexTitle
}

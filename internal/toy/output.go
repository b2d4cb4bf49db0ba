package toy

import (
	"bufio"
	"path/filepath"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// CheckOut checks, before any work, that WriteResults may write its files
// into dir: none is one of inputs (the --config file: `--config
// config.yaml --out .` replaced the user's config with the resolved one),
// and an existing toy.csv or config.yaml is one an earlier WriteResults
// wrote (toy.csv starts with csvHeader; config.yaml beside such a toy.csv
// records qvs_version) unless force.
func CheckOut(dir string, inputs []string, force bool) error {
	csvPath := filepath.Join(dir, "toy.csv")
	ours := func(p string) bool { return firstLine(p) == strings.Join(csvHeader, ",") }
	if err := fileio.CheckOutput(csvPath, fileio.OutputCheck{Inputs: inputs, Force: force, Ours: ours, Flag: "--out"}); err != nil {
		return err
	}
	oursConfig := func(p string) bool { return ours(csvPath) && fileHas(p, "qvs_version:") }
	return fileio.CheckOutput(filepath.Join(dir, "config.yaml"), fileio.OutputCheck{Inputs: inputs, Force: force, Ours: oursConfig, Flag: "--out"})
}

// firstLine is the first line of the file at path ("" if unreadable).
func firstLine(path string) string {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimRight(line, "\r\n")
}

// fileHas tells whether a line of the file at path starts with prefix.
func fileHas(path, prefix string) bool {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return true
		}
	}
	return false
}

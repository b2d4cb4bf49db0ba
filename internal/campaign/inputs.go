package campaign

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// Input is a file the results of a campaign depend on.
type Input struct {
	Name string // as recorded in config.yaml: the data-relative path, or the path as given
	Path string // where this process reads it
}

// fingerprint identifies an input file's contents: its size and CRC-32C
// (hardware-accelerated: 6 GB/s on the 2-core development machine,
// BenchmarkFingerprints; it detects changed data, not
// tampering).
type fingerprint struct {
	File   string `yaml:"file"`
	Bytes  int64  `yaml:"bytes"`
	CRC32C string `yaml:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fingerprints reads every input, sorted by name, duplicates dropped.
func fingerprints(inputs []Input) ([]fingerprint, error) {
	in := append([]Input(nil), inputs...)
	sort.SliceStable(in, func(a, b int) bool { return in[a].Name < in[b].Name })
	var out []fingerprint
	for i, x := range in {
		if i > 0 && x.Name == in[i-1].Name {
			continue
		}
		f, err := fileio.OpenInput(x.Path)
		if err != nil {
			return nil, fmt.Errorf("input file: %w", err)
		}
		h := crc32.New(castagnoli)
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("input file %s: %w", x.Path, err)
		}
		out = append(out, fingerprint{File: x.Name, Bytes: n, CRC32C: fmt.Sprintf("%08x", h.Sum32())})
	}
	return out, nil
}

const inputsComment = "# size and CRC-32C of every input file: a rerun reading other contents is refused\n"

// inputsSection is the tail of config.yaml that records the fingerprints.
func inputsSection(fps []fingerprint) ([]byte, error) {
	if len(fps) == 0 {
		return nil, nil
	}
	b, err := yaml.Marshal(struct {
		Inputs []fingerprint `yaml:"inputs"`
	}{fps})
	if err != nil {
		return nil, err
	}
	return append([]byte(inputsComment), b...), nil
}

// splitInputs cuts config.yaml into the resolved config and the inputs
// section (from a top-level "inputs:" line to the end; nil if none).
func splitInputs(b []byte) (config, inputs []byte) {
	if bytes.HasPrefix(b, []byte("inputs:\n")) {
		return nil, b
	}
	if i := bytes.Index(b, []byte("\ninputs:\n")); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

// checkInputs compares the fingerprints recorded in config.yaml (path) with
// those of the files read now. A file recorded with other contents is an
// error naming it; files recorded on one side only are not compared (a
// folder started by a qvs that recorded none is resumed unchecked).
func checkInputs(path string, recorded []byte, now []fingerprint) error {
	if recorded == nil {
		return nil
	}
	var old struct {
		Inputs []fingerprint `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(recorded, &old); err != nil {
		return fmt.Errorf("%s: damaged inputs section: %v", path, err)
	}
	byName := map[string]fingerprint{}
	for _, f := range old.Inputs {
		byName[f.File] = f
	}
	for _, f := range now {
		o, ok := byName[f.File]
		if ok && o != f {
			return fmt.Errorf("input file %s differs from the one this campaign started with "+
				"(%d bytes, CRC-32C %s now; %s records %d bytes, CRC-32C %s): results would mix two versions of it; "+
				"use the original file or another --out directory", f.File, f.Bytes, f.CRC32C, path, o.Bytes, o.CRC32C)
		}
	}
	return nil
}

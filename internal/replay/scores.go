package replay

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/qvs-dev/qvs/internal/fileio"
)

// ReadScores reads a library's scores, a CSV (or CSV.gz) with the header
// id,value (the format of `qvs as suggest --observed` for scores, and of
// scripts/fingerprints.py's OUT.scores.csv): one row per item of the pool,
// ids as the pool names its items (ids[i] is item i). It returns the
// scores by pool index. Every item needs exactly one finite score: a
// replay reveals the score of every item it acquires. Errors name the
// file, the line and what was expected.
func ReadScores(path string, ids []string) ([]float64, error) {
	f, err := fileio.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readScores(f, path, ids)
}

func readScores(r io.Reader, path string, ids []string) ([]float64, error) {
	cr := fileio.NewCSVReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, expected the header id,value", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(header) != 2 || strings.TrimSpace(header[0]) != "id" || strings.TrimSpace(header[1]) != "value" {
		return nil, fmt.Errorf("%s: line 1: header %q, expected id,value%s", path, strings.Join(header, ","), fileio.SeparatorHint(header...))
	}
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	scores := make([]float64, len(ids))
	line := make([]int, len(ids)) // the line that scored each item, 0 = none
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		at, _ := cr.FieldPos(0)
		if len(rec) != 2 {
			return nil, fmt.Errorf("%s: line %d: %d cells, expected 2 (id,value)%s", path, at, len(rec), fileio.SeparatorHint(rec...))
		}
		i, _, ok := fileio.LookupID(index, rec[0])
		if !ok {
			return nil, fmt.Errorf("%s: line %d, column id: %q is no item of the pool", path, at, rec[0])
		}
		if line[i] != 0 {
			return nil, fmt.Errorf("%s: line %d, column id: %q is scored on line %d too; one score per item", path, at, rec[0], line[i])
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: line %d, column value: %q, expected a finite number", path, at, rec[1])
		}
		scores[i], line[i] = v, at
	}
	missing := 0
	first := -1
	for i, l := range line {
		if l == 0 {
			if first < 0 {
				first = i
			}
			missing++
		}
	}
	if missing > 0 {
		return nil, fmt.Errorf("%s: %d of the pool's %d items have no score (the first: %q); a replay needs every item's score", path, missing, len(ids), ids[first])
	}
	return scores, nil
}

package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// InputFiles lists the files Load reads for cfg, as paths (data-relative
// ones resolved against dataDir), so that a campaign can fingerprint them.
// Files that do not exist are left out (Load reports them).
func InputFiles(cfg Config, dataDir string) []string {
	files, _ := inputFiles(cfg, dataDir)
	return files
}

// DataHint is the advice appended when data files of the paper's data sets
// are missing.
const DataHint = "Fetch the paper's data with `make data` (into ../shared/data beside the checkout, or $QVS_DATA_DIR), or give --data-dir DIR (or QVS_DATA_DIR) naming the folder that holds these files."

// missingPaperData is a *MissingDataError listing the files of a paper
// data set (photoswitch, fashion, bmg) that are not under dataDir, naming
// `make data` and --data-dir (before: "open ../shared/data/bmg/...: no such
// file or directory"); nil when all are there or the pool is the user's.
func missingPaperData(cfg Config, dataDir string) error {
	switch cfg.Kind {
	case KindPhotoswitch, KindFashion, KindBMG:
	default:
		return nil
	}
	if _, missing := inputFiles(cfg, dataDir); len(missing) > 0 {
		if len(missing) > 5 {
			missing = append(missing[:4], fmt.Sprintf("... and %d more", len(missing)-4))
		}
		return &MissingDataError{Task: cfg.Kind, Missing: missing, Note: DataHint + " (data folder now: " + dataDir + ")"}
	}
	return nil
}

// inputFiles splits the files Load reads for cfg into those present and
// those missing.
func inputFiles(cfg Config, dataDir string) (files, missing []string) {
	add := func(paths ...string) {
		for _, p := range paths {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				files = append(files, p)
			} else if errors.Is(err, os.ErrNotExist) {
				missing = append(missing, p)
			}
		}
	}
	folder := func(dir string) {
		add(filepath.Join(dir, folderFeatures), filepath.Join(dir, folderLabels))
		if _, err := os.Stat(filepath.Join(dir, folderCSRWeights)); err == nil {
			add(filepath.Join(dir, folderCSRWeights))
		} else {
			add(filepath.Join(dir, folderNeighbors), filepath.Join(dir, folderSimilarity))
		}
	}
	switch cfg.Kind {
	case KindFolder:
		folder(cfg.Dir)
	case KindPhotoswitch:
		add(dataPath(dataDir, cfg.Photoswitch.File))
	case KindFashion:
		dir := dataPath(dataDir, cfg.Fashion.Dir)
		for _, f := range fashionFiles {
			add(filepath.Join(dir, f))
		}
	case KindBMG:
		dir := dataPath(dataDir, cfg.BMG.Dir)
		if hasFolder(dir) {
			folder(dir)
			break
		}
		add(filepath.Join(dir, cfg.BMG.File))
		edir := dataPath(dataDir, cfg.BMG.ElementsDir)
		for _, p := range cfg.BMG.Properties {
			add(filepath.Join(edir, p+".table"))
		}
	case KindCSV:
		add(cfg.CSV.File)
		if cfg.CSV.IDsFile != "" {
			add(cfg.CSV.IDsFile)
		}
	case KindGraph:
		for _, f := range []string{cfg.Graph.File, cfg.Graph.Kernel, cfg.Graph.IDs, cfg.Graph.Labels} {
			if f != "" {
				add(f)
			}
		}
	}
	return files, missing
}

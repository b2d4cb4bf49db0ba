package datasets

import (
	"os"
	"path/filepath"
)

// InputFiles lists the files Load reads for cfg, as paths (data-relative
// ones resolved against dataDir), so that a campaign can fingerprint them.
// Files that do not exist are left out (Load reports them).
func InputFiles(cfg Config, dataDir string) []string {
	var files []string
	add := func(paths ...string) {
		for _, p := range paths {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				files = append(files, p)
			}
		}
	}
	folder := func(dir string) {
		add(filepath.Join(dir, FolderFeatures), filepath.Join(dir, FolderLabels))
		if _, err := os.Stat(filepath.Join(dir, FolderCSRWeights)); err == nil {
			add(filepath.Join(dir, FolderCSRWeights))
		} else {
			add(filepath.Join(dir, FolderNeighbors), filepath.Join(dir, FolderSimilarity))
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
		if HasFolder(dir) {
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
	case KindGraph:
		for _, f := range []string{cfg.Graph.File, cfg.Graph.Kernel, cfg.Graph.IDs, cfg.Graph.Labels} {
			if f != "" {
				add(f)
			}
		}
	}
	return files
}

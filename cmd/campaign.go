package cmd

import (
	"path/filepath"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
)

// campaignInputs names input files for config.yaml's fingerprints: by
// their path relative to the data directory when they lie in it (so a
// moved data folder with the same contents resumes), else as given.
func campaignInputs(dataDir string, paths ...string) []campaign.Input {
	var out []campaign.Input
	for _, p := range paths {
		if p == "" {
			continue
		}
		name := p
		if rel, err := filepath.Rel(dataDir, p); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			name = filepath.ToSlash(rel)
		}
		out = append(out, campaign.Input{Name: name, Path: p})
	}
	return out
}

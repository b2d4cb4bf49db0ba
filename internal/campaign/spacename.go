package campaign

import (
	"path/filepath"
	"strings"
)

// SpaceTask is the task: of a `qvs bayesopt --space FILE --objective-cmd
// CMD` campaign, as its config.yaml records it (the space file is
// internal/bayesopt/space's).
const SpaceTask = "space"

// SpaceName is the name of a campaign on the space file at path: the
// file's stem ("my space (v2).yaml" gives "my-space-v2"), with every run of
// characters other than ASCII letters, digits, '_', '.' and '-' replaced by
// one '-' and the ends trimmed of '-', '_' and '.', so the name is safe as a
// folder and file name; SpaceTask when nothing is left. It names the
// default results folder (results/NAME) and labels the campaign's tables
// and figures. It is derived from the recorded space: key, never recorded
// itself, so folders written before campaigns were named resume unchanged.
func SpaceName(path string) string {
	base := filepath.Base(filepath.ToSlash(path))
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	var b strings.Builder
	dash := false
	for _, r := range base {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-_.")
	if name == "" {
		return SpaceTask
	}
	return name
}

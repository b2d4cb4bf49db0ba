package fileio

import (
	"fmt"
	"strings"
	"unicode"
)

// maxNameBytes is the longest file name most file systems take (ext4, XFS,
// tmpfs: 255 bytes); a name that becomes part of a longer file name
// (NAME-best-so-far.svg) must leave room for its suffix, which the writer's
// own error then reports.
const maxNameBytes = 255

// CheckPlainName returns an error unless name can be used as one path
// component that stays inside the folder it is joined to: not empty, not
// "." or "..", no '/' or '\\' (a separator on some system), no NUL or other
// control character, at most 255 bytes. Every name that comes from outside
// (a config's task: or name:, a campaign's recorded name, a run key) and
// becomes part of a file or folder name is checked with it before any path
// is built, so `task: ../../x` cannot make qvs write above its --out or
// --cache-dir. The error quotes the name; callers prefix the file and key.
func CheckPlainName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty name: expected a plain file name")
	case name == "." || name == "..":
		return fmt.Errorf("%q is not a plain name: it names a folder, expected a file name without '/' or '\\'", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("%q is not a plain name: it contains a path separator ('/' or '\\'), expected a file name such as %q", name, suggestPlain(name))
	case len(name) > maxNameBytes:
		return fmt.Errorf("name of %d bytes is too long: at most %d", len(name), maxNameBytes)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("%q is not a plain name: it contains the control character %U", name, r)
		}
	}
	return nil
}

// suggestPlain is name's last non-empty component after '/' or '\\' ("x"
// for "../../x"), or "NAME" when nothing is left: a hint, never used as a
// name by qvs itself.
func suggestPlain(name string) string {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' })
	for i := len(parts) - 1; i >= 0; i-- {
		if p := parts[i]; p != "." && p != ".." {
			return p
		}
	}
	return "NAME"
}

// Count writes a count of things for a message: "1 item", "3 items"; the
// plural adds s, or turns a final consonant-y into ies (quality, query).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") && !strings.ContainsAny(noun[len(noun)-2:len(noun)-1], "aeiou") {
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

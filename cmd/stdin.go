package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// stdinFlags are the file flags that read their file once, so "-" may
// stand for stdin (docs/json.md, "Pipes").
var stdinFlags = []string{"kernel", "embeddings", "quality", "ids", "observed", "pending", "pool", "graph"}

// maxStdin bounds what a file flag given as "-" reads from stdin (a
// variable so tests can lower it): 1 GiB, copied to a temporary file, not
// held in memory.
var maxStdin int64 = 1 << 30

// stdinName is how messages name the file read from stdin.
const stdinName = "stdin"

// stdinFile is the temporary copy of stdin made for a file flag given as
// "-" (see resolveStdin); the zero value is none.
type stdinFile struct{ dir, path string }

// resolveStdin replaces the value "-" of a file flag of c (stdinFlags) by
// a temporary file holding all of stdin, named stdin.npy when it starts
// with the NumPy magic, stdin.npz when it is a zip (scipy's save_npz) and
// stdin.csv otherwise (the readers tell formats by extension), so every
// reader works unchanged. Stdin can be read once:
// "-" given to two flags is a usage error naming them.
func resolveStdin(c *cobra.Command, stdin io.Reader) (stdinFile, error) {
	var named []*pflag.Flag
	for _, name := range stdinFlags {
		if f := c.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() == "-" {
			named = append(named, f)
		}
	}
	switch len(named) {
	case 0:
		return stdinFile{}, nil
	case 1:
	default:
		return stdinFile{}, usageErrorf("--%s and --%s are both - (stdin), which can be read once: give one of them as a file", named[0].Name, named[1].Name)
	}
	// Streamed to the file, at most maxStdin bytes: stdin has no size to
	// justify what is read (`--observed - < /dev/zero` read without end).
	in := bufio.NewReader(stdin)
	head, _ := in.Peek(6)
	dir, err := os.MkdirTemp("", "qvs-stdin-")
	if err != nil {
		return stdinFile{}, fmt.Errorf("--%s -: %w", named[0].Name, err)
	}
	name := "stdin.csv"
	switch {
	case bytes.HasPrefix(head, []byte("\x93NUMPY")):
		name = "stdin.npy"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		name = "stdin.npz"
	}
	s := stdinFile{dir: dir, path: filepath.Join(dir, name)}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		var n int64
		n, err = io.Copy(f, io.LimitReader(in, maxStdin+1))
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err == nil && n > maxStdin {
			err = fmt.Errorf("stdin holds more than %d bytes, the most qvs reads from stdin: give the data as a file", maxStdin)
		}
	}
	if err != nil {
		s.remove()
		return stdinFile{}, fmt.Errorf("--%s -: %w", named[0].Name, err)
	}
	if err := named[0].Value.Set(s.path); err != nil {
		s.remove()
		return stdinFile{}, err
	}
	return s, nil
}

// remove deletes the temporary copy.
func (s stdinFile) remove() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// rename names stdin instead of the temporary copy in a message.
func (s stdinFile) rename(msg string) string {
	if s.path == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.path, stdinName)
}

// renamingWriter writes to w with the temporary copy of stdin named stdin
// (warnings and notes on stderr name their file).
type renamingWriter struct {
	w io.Writer
	s stdinFile
}

func (r renamingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.s.rename(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

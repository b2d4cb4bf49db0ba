package cmd

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// stdinFlags are the file flags that read their file once, so "-" may
// stand for stdin (docs/json.md, "Pipes").
var stdinFlags = []string{"kernel", "embeddings", "quality", "ids", "observed", "pending", "pool", "graph", "space"}

// campaignFiles are the file flags a campaign records and reads again on
// every rerun (config.yaml keeps the name, the input fingerprints the
// contents): "-" is refused there, naming the flag.
var campaignFiles = map[string][]string{"bayesopt": {"space"}}

// maxStdin bounds what a file flag given as "-" reads from stdin (a
// variable so tests can lower it): 1 GiB, copied to a temporary file, not
// held in memory.
var maxStdin int64 = 1 << 30

// resolveStdin replaces the value "-" of a file flag of c (stdinFlags) by
// a temporary copy of all of stdin (fileio.SpoolStdin), so every reader
// works unchanged. Stdin can be read once: "-" given to two flags is a
// usage error naming them.
func resolveStdin(c *cobra.Command, stdin io.Reader) (fileio.Spool, error) {
	var named []*pflag.Flag
	for _, name := range stdinFlags {
		if f := c.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() == "-" {
			named = append(named, f)
		}
	}
	for _, f := range named {
		if c.HasParent() && c.Parent() == c.Root() && slices.Contains(campaignFiles[c.Name()], f.Name) {
			return fileio.Spool{}, cli.Usagef("--%s -: a campaign records its --%s file and reads it again on every rerun, which stdin cannot give: save it to a file", f.Name, f.Name)
		}
	}
	switch len(named) {
	case 0:
		return fileio.Spool{}, nil
	case 1:
	default:
		return fileio.Spool{}, cli.Usagef("--%s and --%s are both - (stdin), which can be read once: give one of them as a file", named[0].Name, named[1].Name)
	}
	s, err := fileio.SpoolStdin(stdin, maxStdin)
	if err != nil {
		return fileio.Spool{}, fmt.Errorf("--%s -: %w", named[0].Name, err)
	}
	if err := named[0].Value.Set(s.Path()); err != nil {
		s.Remove()
		return fileio.Spool{}, err
	}
	return s, nil
}

// renamingWriter writes to w with the temporary copy of stdin named stdin
// (warnings and notes on stderr name their file).
type renamingWriter struct {
	w io.Writer
	s fileio.Spool
}

func (r renamingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.s.Rename(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

package eval

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLaTeXTablesCompile compiles every golden .tex table, each in a
// document that loads exactly the packages the table's header comment names,
// with pdflatex. It is skipped where pdflatex is not installed (CI has no
// TeX; on Debian: apt-get install texlive-latex-recommended
// texlive-latex-extra).
func TestLaTeXTablesCompile(t *testing.T) {
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex not installed")
	}
	files, err := filepath.Glob(filepath.Join(fixtureGolden, "tables", "*.tex"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden .tex tables (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(body), "\n")
			_, pkgs, ok := strings.Cut(first, `\usepackage`)
			if !ok {
				t.Fatalf("header %q does not name the packages the table needs", first)
			}
			dir := t.TempDir()
			doc := fmt.Sprintf("\\documentclass{article}\n\\usepackage[margin=1cm,landscape]{geometry}\n\\usepackage%s\n\\begin{document}\n%s\n\\end{document}\n", pkgs, body)
			if err := os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				log := string(out)
				if i := strings.Index(log, "\n!"); i >= 0 {
					log = log[i:min(len(log), i+800)]
				}
				t.Fatalf("pdflatex: %v\n%s", err, log)
			}
		})
	}
}

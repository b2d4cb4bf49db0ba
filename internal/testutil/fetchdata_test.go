package testutil

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fetchData runs scripts/fetch-data.sh DEST with env added; it returns the
// exit code and stderr.
func fetchData(t *testing.T, dest string, env ...string) (int, string) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("fetch-data.sh needs %s", tool)
		}
	}
	cmd := exec.Command("bash", filepath.Join(RepoRoot(), "scripts", "fetch-data.sh"), dest)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFetchDataMirror runs scripts/fetch-data.sh against a local mirror of
// two small files: it installs verified files, skips them on a rerun,
// resumes a .part file, and refuses a file whose sha256 differs, leaving
// neither it nor its .part behind.
func TestFetchDataMirror(t *testing.T) {
	dir := t.TempDir()
	mirror, dest := filepath.Join(dir, "mirror"), filepath.Join(dir, "data")
	a, b := "alpha,beta\n1,2\n", strings.Repeat("0123456789", 1000)
	write(t, filepath.Join(mirror, "set", "a.csv"), a)
	write(t, filepath.Join(mirror, "other", "deep", "b.bin"), b)
	manifest := filepath.Join(dir, "manifest")
	write(t, manifest, "# comment\n\n"+sha([]byte(a))+"  set/a.csv  https://example.invalid/a.csv\n"+
		sha([]byte(b))+"  other/deep/b.bin  https://example.invalid/b.bin\n")
	env := []string{"QVS_DATA_MIRROR=" + mirror, "QVS_DATA_MANIFEST=" + manifest}

	code, out := fetchData(t, dest, env...)
	if code != 0 || read(t, filepath.Join(dest, "set", "a.csv")) != a || read(t, filepath.Join(dest, "other", "deep", "b.bin")) != b ||
		!strings.Contains(out, "2 fetched, 0 already verified, 0 failed") {
		t.Fatalf("first fetch: exit %d\n%s", code, out)
	}
	// Rerun: nothing fetched, even with the mirror gone.
	code, out = fetchData(t, dest, "QVS_DATA_MIRROR="+dir, "QVS_DATA_MANIFEST="+manifest)
	if code != 0 || !strings.Contains(out, "0 fetched, 2 already verified") {
		t.Errorf("rerun: exit %d\n%s", code, out)
	}

	// Resume: a .part holding a prefix is continued, not restarted. A part
	// whose prefix is wrong therefore gives a wrong file, which is refused
	// and its .part deleted; the next run starts over and succeeds.
	bPath := filepath.Join(dest, "other", "deep", "b.bin")
	os.Remove(bPath)
	write(t, bPath+".part", b[:4000])
	if code, out = fetchData(t, dest, env...); code != 0 || read(t, bPath) != b || !strings.Contains(out, "1 fetched, 1 already verified") {
		t.Errorf("resume from a good prefix: exit %d\n%s", code, out)
	}
	os.Remove(bPath)
	write(t, bPath+".part", "XXXX")
	code, out = fetchData(t, dest, env...)
	if code != 1 || !strings.Contains(out, "other/deep/b.bin from file://") || !strings.Contains(out, "expected "+sha([]byte(b))) {
		t.Errorf("resume from a wrong prefix: exit %d, want 1 naming the file\n%s", code, out)
	}
	if _, err := os.Stat(bPath); err == nil {
		t.Error("a file that failed verification was installed")
	}
	if _, err := os.Stat(bPath + ".part"); err == nil {
		t.Error("the .part of a file that failed verification was kept")
	}
	if code, out = fetchData(t, dest, env...); code != 0 || read(t, bPath) != b {
		t.Errorf("fetch after a failed one: exit %d\n%s", code, out)
	}

	// A corrupted mirror file and a missing one: exit 1, both named.
	os.Remove(bPath)
	os.Remove(filepath.Join(dest, "set", "a.csv"))
	write(t, filepath.Join(mirror, "other", "deep", "b.bin"), b[:len(b)-1]+"!")
	os.Remove(filepath.Join(mirror, "set", "a.csv"))
	code, out = fetchData(t, dest, env...)
	if code != 1 || !strings.Contains(out, "set/a.csv: download from file://") || !strings.Contains(out, "other/deep/b.bin from") ||
		!strings.Contains(out, "0 fetched, 0 already verified, 2 failed") {
		t.Errorf("bad mirror: exit %d\n%s", code, out)
	}
	// A present file with another sha256 is reported, not overwritten.
	write(t, filepath.Join(dest, "set", "a.csv"), "mine\n")
	code, out = fetchData(t, dest, env...)
	if code != 1 || !strings.Contains(out, "set/a.csv exists but its sha256 is") || read(t, filepath.Join(dest, "set", "a.csv")) != "mine\n" {
		t.Errorf("foreign file: exit %d\n%s", code, out)
	}
	if code, out := fetchData(t, dest, "QVS_DATA_MIRROR="+filepath.Join(dir, "nope")); code != 2 || !strings.Contains(out, "neither a folder nor a URL") {
		t.Errorf("bad mirror variable: exit %d\n%s", code, out)
	}
}

// TestFetchDataWithoutNetwork: without
// network `make data` took about 8.5 minutes (73 files x 4 attempts) and
// left empty folders. The first missing file's source is probed once with
// short timeouts: an unreachable host (127.0.0.1:9, connection refused at
// once) fails in seconds, names the host and QVS_DATA_MIRROR, and creates
// nothing. A file whose download fails later leaves no empty folder.
func TestFetchDataWithoutNetwork(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "data")
	manifest := filepath.Join(dir, "manifest")
	write(t, manifest, sha([]byte("x"))+"  a/b/x.csv  http://127.0.0.1:9/x.csv\n"+sha([]byte("y"))+"  c/y.csv  http://127.0.0.1:9/y.csv\n")
	start := time.Now()
	code, out := fetchData(t, dest, "QVS_DATA_MANIFEST="+manifest)
	if code != 1 || !strings.Contains(out, "fetch-data: cannot reach 127.0.0.1:9") || !strings.Contains(out, "QVS_DATA_MIRROR") {
		t.Errorf("no network: exit %d\n%s", code, out)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("no network took %v", d)
	}
	if _, err := os.Stat(dest); err == nil {
		t.Errorf("no network: %s was created", dest)
	}
	// A mirror lacking one file: that file's folders are removed again,
	// the other file is installed.
	mirror := filepath.Join(dir, "mirror")
	write(t, filepath.Join(mirror, "c", "y.csv"), "y")
	code, out = fetchData(t, dest, "QVS_DATA_MANIFEST="+manifest, "QVS_DATA_MIRROR="+mirror)
	if code != 1 || read(t, filepath.Join(dest, "c", "y.csv")) != "y" || !strings.Contains(out, "1 fetched, 0 already verified, 1 failed") {
		t.Errorf("mirror without a/b/x.csv: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dest, "a")); err == nil {
		t.Errorf("the folders of a file not installed were left")
	}
}

// TestDataManifest checks scripts/data.sha256 against the data: every
// sha256 a PROVENANCE.md states for a file is the manifest's, every
// manifest entry names an upstream https URL, and the data directory's
// files have the manifest's sha256. Then fetch-data.sh, with the data
// directory as mirror, rebuilds it.
func TestDataManifest(t *testing.T) {
	f, err := os.Open(filepath.Join(RepoRoot(), "scripts", "data.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{} // path -> sha256
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 || len(fields[0]) != 64 || !strings.HasPrefix(fields[2], "https://") {
			t.Fatalf("manifest line %q: expected sha256, path, https URL", sc.Text())
		}
		want[fields[1]] = fields[0]
		paths = append(paths, fields[1])
	}
	data := DataDir(t, paths...)
	// A folder whose PROVENANCE.md states sha256 values must state the
	// manifest's value for each of its files (elements/magpie states none).
	hexRe := regexp.MustCompile(`[0-9a-f]{64}`)
	checked := 0
	for _, path := range paths {
		prov := filepath.Join(data, filepath.Dir(path), "PROVENANCE.md")
		b, err := os.ReadFile(prov)
		if err != nil || !hexRe.Match(b) {
			continue
		}
		if !strings.Contains(string(b), want[path]) {
			t.Errorf("%s: manifest sha256 %s is not the one %s states", path, want[path], prov)
		}
		checked++
	}
	if checked != 6 { // bmg 1, photoswitch 1, fashion-mnist 4
		t.Errorf("%d manifest values checked against a PROVENANCE.md, want 6", checked)
	}
	for _, path := range paths {
		b, err := os.ReadFile(filepath.Join(data, path))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha(b); got != want[path] {
			t.Errorf("%s: sha256 %s, manifest %s", path, got, want[path])
		}
	}
	if testing.Short() {
		return
	}
	dest := filepath.Join(t.TempDir(), "data")
	code, out := fetchData(t, dest, "QVS_DATA_MIRROR="+data)
	if code != 0 || !strings.Contains(out, ": "+strconv.Itoa(len(paths))+" fetched, 0 already verified, 0 failed") {
		t.Errorf("fetch from the data directory as mirror: exit %d\n%s", code, out)
	}
}

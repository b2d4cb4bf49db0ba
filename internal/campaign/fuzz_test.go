package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadRecords: a run's record file (runs/KEY.csv, read when a campaign
// resumes) never panics the reader; a damaged file or a foreign header is an
// error naming it, and accepted rows have the header's width.
func FuzzReadRecords(f *testing.F) {
	header := []string{"iteration", "region", "x0", "value", "seconds"}
	f.Add([]byte("iteration,region,x0,value,seconds\n0,-1,0.5,1,0.01\n"))
	f.Add([]byte("iteration,region,x0,value,seconds\n0,-1,0.5\n"))
	f.Add([]byte("iteration,batch,index\n\"0\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "k.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readRecords(p, header)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range rows {
			if len(r) != len(header) {
				t.Fatalf("row %v for header %v", r, header)
			}
		}
	})
}

// FuzzRecordedInputs: any config.yaml (outside input: a user may edit it)
// splits and checks without panicking, and a section that records exactly
// the current fingerprints is accepted.
func FuzzRecordedInputs(f *testing.F) {
	fps := []fingerprint{{File: "pool/pool.csv", Bytes: 6, CRC32C: "0a1b2c3d"}}
	sec, _ := inputsSection(fps)
	f.Add("# resolved config\nseed: 42\n" + string(sec))
	f.Add("seed: 1\ninputs:\n    - file: x\n      bytes: -1\n      crc32c: zz\n")
	f.Add("inputs:\n")
	f.Add("inputs: [")
	f.Fuzz(func(t *testing.T, file string) {
		cfg, inputs := splitInputs([]byte(file))
		if len(cfg)+len(inputs) != len(file) {
			t.Fatalf("split lost bytes: %d + %d != %d", len(cfg), len(inputs), len(file))
		}
		_ = checkInputs("config.yaml", inputs, fps)
	})
}

// FuzzParseShard: any --shard value and scheduler environment gives a
// shard with 0 <= Index < Count, or an error.
func FuzzParseShard(f *testing.F) {
	f.Add("auto", "3", "1", "1", "8", "")
	f.Add("auto/4", "", "", "", "", "2")
	f.Add("1/3", "", "", "", "", "")
	f.Add("auto", "-5", "9", "0", "2", "")
	f.Fuzz(func(t *testing.T, flag, id, lo, step, count, index string) {
		env := map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": lo, "SLURM_ARRAY_TASK_STEP": step,
			"SLURM_ARRAY_TASK_COUNT": count, "JOB_COMPLETION_INDEX": index, "QVS_SHARD_COUNT": count}
		s, err := parseShard(flag, func(k string) string { return env[k] })
		if err == nil && flag != "" && (s.Count < 1 || s.Index < 0 || s.Index >= s.Count) {
			t.Fatalf("parseShard(%q, %v) = %+v", flag, env, s)
		}
		if err != nil && !strings.Contains(err.Error(), "--shard") {
			t.Fatalf("error does not name the flag: %v", err)
		}
	})
}

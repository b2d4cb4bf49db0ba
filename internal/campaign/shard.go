package campaign

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Shard selects every Count-th run starting at Index. Count <= 1 selects all.
type Shard struct{ Index, Count int }

// ParseShard parses "i/n" with 0 <= i < n, or "auto" / "auto/n", which
// take the shard from a cluster scheduler's environment (ShardFromEnv).
func ParseShard(s string) (Shard, error) { return parseShard(s, os.Getenv) }

func parseShard(s string, getenv func(string) string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	if s == "auto" || strings.HasPrefix(s, "auto/") {
		count := 0
		if c, ok := strings.CutPrefix(s, "auto/"); ok {
			n, err := strconv.Atoi(c)
			if err != nil || n < 1 {
				return Shard{}, fmt.Errorf("--shard %q: expected auto or auto/n with n >= 1", s)
			}
			count = n
		}
		return ShardFromEnv(getenv, count)
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: expected i/n with 0 <= i < n, e.g. 0/4, or auto", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// ShardFromEnv is the shard of this task of a cluster job array:
//   - Slurm job array (sbatch --array=A-B[:S]): index (SLURM_ARRAY_TASK_ID -
//     SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP of SLURM_ARRAY_TASK_COUNT,
//     so --array=1-8 works as well as 0-7;
//   - Kubernetes Indexed Job: index JOB_COMPLETION_INDEX, count from
//     QVS_SHARD_COUNT (set it to the Job's completions) unless count > 0.
//
// count > 0 (from --shard auto/n) overrides the scheduler's count. It is an
// error, naming the variables, when neither scheduler's are set or they
// make no shard.
func ShardFromEnv(getenv func(string) string, count int) (Shard, error) {
	num := func(name string, dflt int) (int, error) {
		v := getenv(name)
		if v == "" {
			return dflt, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return n, nil
	}
	var sh Shard
	switch {
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		id, err := num("SLURM_ARRAY_TASK_ID", 0)
		if err != nil {
			return sh, err
		}
		lo, err := num("SLURM_ARRAY_TASK_MIN", 0)
		if err != nil {
			return sh, err
		}
		step, err := num("SLURM_ARRAY_TASK_STEP", 1)
		if err != nil {
			return sh, err
		}
		n, err := num("SLURM_ARRAY_TASK_COUNT", 0)
		if err != nil {
			return sh, err
		}
		if step < 1 || (id-lo)%step != 0 {
			return sh, fmt.Errorf("--shard auto: Slurm array task %d is not on the grid min %d, step %d; use --array=0-(n-1) or --shard i/n", id, lo, step)
		}
		sh = Shard{Index: (id - lo) / step, Count: n}
		if count > 0 {
			sh.Count = count
		}
		if sh.Count < 1 {
			return sh, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_COUNT is not set; give --shard auto/n")
		}
		if sh.Index < 0 || sh.Index >= sh.Count {
			return sh, fmt.Errorf("--shard auto: Slurm array task %d (min %d, step %d) is shard %d, outside 0..%d; "+
				"use a contiguous --array or --shard i/n", id, lo, step, sh.Index, sh.Count-1)
		}
		return sh, nil
	case getenv("JOB_COMPLETION_INDEX") != "":
		i, err := num("JOB_COMPLETION_INDEX", 0)
		if err != nil {
			return sh, err
		}
		n, err := num("QVS_SHARD_COUNT", 0)
		if err != nil {
			return sh, err
		}
		if count > 0 {
			n = count
		}
		if n < 1 {
			return sh, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d but no shard count: set QVS_SHARD_COUNT to the Job's completions or give --shard auto/n", i)
		}
		if i < 0 || i >= n {
			return sh, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is outside 0..%d (shard count %d)", i, n-1, n)
		}
		return Shard{Index: i, Count: n}, nil
	}
	return sh, fmt.Errorf("--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX " +
		"(a Kubernetes Indexed Job) is set; give --shard i/n")
}

func (s Shard) selects(pos int) bool { return s.Count <= 1 || pos%s.Count == s.Index }

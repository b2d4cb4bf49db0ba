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
// take the shard from a cluster scheduler's environment (shardFromEnv).
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
		return shardFromEnv(getenv, count)
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: expected i/n with 0 <= i < n, e.g. 0/4, or auto", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// shardFromEnv is the shard of this task of a cluster job array:
//   - Slurm job array, --shard auto/n (count > 0): index SLURM_ARRAY_TASK_ID
//     itself, of n, so a task resubmitted alone (sbatch --array=2) is
//     shard 2 again; the array must be --array=0-(n-1) (or a part of it);
//   - Slurm job array, plain --shard auto (sbatch --array=A-B[:S]): index
//     (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP
//     of SLURM_ARRAY_TASK_COUNT, so --array=1-8 works as well as 0-7. Only
//     a whole array says its size: an array starting above task 1, or a
//     one-task array other than task 0 (a task resubmitted alone, which
//     would otherwise be shard 0/1 and take over the whole campaign), is an
//     error asking for --shard auto/n;
//   - Kubernetes Indexed Job: index JOB_COMPLETION_INDEX, count from
//     QVS_SHARD_COUNT (set it to the Job's completions) unless count > 0.
//
// It is an error, naming the variables, when neither scheduler's are set
// or they make no shard.
func shardFromEnv(getenv func(string) string, count int) (Shard, error) {
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
		if count > 0 {
			if id < 0 || id >= count {
				return sh, fmt.Errorf("--shard auto/%d: Slurm array task %d is outside 0..%d: with auto/n the task id is the shard index; submit --array=0-%d (or the tasks to rerun)", count, id, count-1, count-1)
			}
			return Shard{Index: id, Count: count}, nil
		}
		if lo > 1 || (n == 1 && id != 0) {
			return sh, fmt.Errorf("--shard auto: Slurm array task %d belongs to an array of %d task(s) starting at %d, not a whole array (a resubmitted task?): "+
				"its shard count is unknown; give --shard auto/n with the original array's size n (the task id is then the shard index) or --shard i/n", id, n, lo)
		}
		if step < 1 || (id-lo)%step != 0 {
			return sh, fmt.Errorf("--shard auto: Slurm array task %d is not on the grid min %d, step %d; use --array=0-(n-1) or --shard i/n", id, lo, step)
		}
		sh = Shard{Index: (id - lo) / step, Count: n}
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

// String is "i/n", or "all" when s selects every run.
func (s Shard) String() string {
	if s.Count < 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// shardSource names the scheduler task this process runs in ("Slurm array
// task 2 of job 4711", "Kubernetes index 1"), "" outside a scheduler.
func shardSource(getenv func(string) string) string {
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		if job := getenv("SLURM_ARRAY_JOB_ID"); job != "" {
			return "Slurm array task " + id + " of job " + job
		}
		return "Slurm array task " + id
	}
	if i := getenv("JOB_COMPLETION_INDEX"); i != "" {
		return "Kubernetes index " + i
	}
	return ""
}

func (s Shard) selects(pos int) bool { return s.Count <= 1 || pos%s.Count == s.Index }

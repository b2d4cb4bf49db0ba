package campaign

import (
	"strings"
	"testing"
)

func TestShardAuto(t *testing.T) {
	for _, c := range []struct {
		flag string
		env  map[string]string
		want Shard
		err  string // substring of the error; "" for none
	}{
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{3, 8}, ""},
		// --array=1-8: task ids 1..8 are shards 0..7.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{7, 8}, ""},
		// --array=0-14:2: ids 0,2,...,14 are shards 0..7.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{3, 8}, ""},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, Shard{2, 4}, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, Shard{}, "SLURM_ARRAY_TASK_COUNT"},
		// --array=1,5,9 (a list): 9 - 1 = 8 is outside 3 shards.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"}, Shard{}, "outside 0..2"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "3"}, Shard{}, `SLURM_ARRAY_TASK_ID="x"`},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1", "QVS_SHARD_COUNT": "4"}, Shard{1, 4}, ""},
		{"auto/2", map[string]string{"JOB_COMPLETION_INDEX": "1"}, Shard{1, 2}, ""},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, Shard{}, "QVS_SHARD_COUNT"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "4", "QVS_SHARD_COUNT": "4"}, Shard{}, "outside 0..3"},
		{"auto", nil, Shard{}, "neither SLURM_ARRAY_TASK_ID"},
		{"auto/0", map[string]string{"JOB_COMPLETION_INDEX": "0"}, Shard{}, "auto/n"},
		{"1/4", map[string]string{"JOB_COMPLETION_INDEX": "3"}, Shard{1, 4}, ""}, // explicit i/n ignores the environment
		// A task resubmitted alone (sbatch --array=2)
		// sees MIN = 2 and COUNT = 1. With auto/n the task id is the shard
		// (before: shard 0/4, so shard 2 never ran); plain auto refuses
		// (before: shard 0/1, the whole campaign).
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "1"}, Shard{2, 4}, ""},
		{"auto/8", map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_COUNT": "3"}, Shard{5, 8}, ""}, // --array=3-5 reruns shards 3..5
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_COUNT": "1"}, Shard{}, "give --shard auto/n with the original array's size"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "1"}, Shard{}, "not a whole array"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_COUNT": "2"}, Shard{}, "starting at 3"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "1"}, Shard{0, 1}, ""}, // --array=0: one shard, all runs
		// With auto/n the id must be a shard index: --array=1-8 with
		// auto/8 is refused at task 8 (plain auto takes it).
		{"auto/8", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{}, "outside 0..7"},
	} {
		got, err := parseShard(c.flag, func(k string) string { return c.env[k] })
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%s %v: %v %v, want %v", c.flag, c.env, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %v: error %v, want one mentioning %q", c.flag, c.env, err, c.err)
		}
	}
}

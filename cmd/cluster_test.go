package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/testutil"
)

// The Slurm array script of docs/cluster.md, run as two array tasks with
// the environment Slurm gives them (--array=0-1, SHARDS=2), fills the
// folder as one unsharded process does; each task's log starts with the
// line naming its shard, and a task rerun alone (ARRAY=1: Slurm sets
// _MIN=1, _COUNT=1) is shard 1 again. Run outside a job, the script submits
// itself (a stand-in sbatch on PATH records the arguments): job and log
// named after OUT, logs appended to across requeues, the extra flags
// passed on.
func TestClusterSlurmScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(testutil.RepoRoot(), "examples", "cluster", "slurm-array.sh")
	dir := t.TempDir()
	cfg := asWriteFile(t, dir, "tiny.yaml", strings.Replace(testutil.TinyASConfig, "repeats: 2", "repeats: 1", 1))
	cache := filepath.Join(dir, "cache")
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runQVS(t, "as", "--config", cfg, "--cache-dir", cache, "--quiet", "--out", whole); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "array")
	env := append(os.Environ(), "QVS_TEST_MAIN=1", "QVS="+os.Args[0], "CMD=as", "CONFIG="+cfg, "OUT="+out, "SHARDS=2",
		"QVS_CACHE_DIR="+cache, "SLURM_JOB_ID=", "SLURM_CPUS_PER_TASK=1")
	task := func(id, lo, count int) string {
		cmd := exec.Command("bash", script)
		cmd.Env = append(env, "SLURM_ARRAY_JOB_ID=77", "SLURM_ARRAY_TASK_ID="+strconv.Itoa(id), "SLURM_ARRAY_TASK_MIN="+strconv.Itoa(lo),
			"SLURM_ARRAY_TASK_STEP=1", "SLURM_ARRAY_TASK_COUNT="+strconv.Itoa(count))
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("array task %d: %v\n%s", id, err, b)
		}
		return string(b)
	}
	for id := 0; id <= 1; id++ {
		log := task(id, 0, 2)
		if want := fmt.Sprintf("%s: shard %d/2 in Slurm array task %d of job 77: 4 of 8 runs\n", out, id, id); !strings.HasPrefix(log, want) {
			t.Errorf("array task %d log %q, want it to start with %q", id, log, want)
		}
		if n := len(testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv"))) - 1; n != 4*(id+1) {
			t.Errorf("after array task %d: %d of 8 runs, want %d", id, n, 4*(id+1))
		}
	}
	testutil.SameResults(t, whole, out)
	// Task 1 rerun alone into a fresh folder runs shard 1's 4 runs.
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if log := task(1, 1, 1); !strings.Contains(log, "shard 1/2") {
		t.Errorf("rerun of task 1: %q", log)
	}
	if got := testutil.ReadCSVFile(t, filepath.Join(out, "summary.csv")); len(got) != 5 || got[1][0] == testutil.ReadCSVFile(t, filepath.Join(whole, "summary.csv"))[1][0] {
		t.Errorf("rerun of task 1 ran %v, want shard 1's 4 runs", got[1:])
	}

	bin := t.TempDir()
	args := filepath.Join(dir, "sbatch.args")
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\necho 4711\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := exec.Command("bash", script, "--seed", "3")
	sub.Dir = dir
	sub.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "OUT=results/bmg-2", "CMD=as", "SLURM_JOB_ID=", "SLURM_ARRAY_TASK_ID=")
	b, err := sub.Output()
	if err != nil || string(b) != "4711\n" {
		t.Fatalf("submit: %v, stdout %q", err, b)
	}
	got, _ := os.ReadFile(args)
	want := "--parsable\n--array=0-7\n--job-name=qvs-bmg-2\n--output=logs/qvs-bmg-2-%A_%a.log\n--open-mode=append\n" + script + "\n--seed\n3\n"
	if string(got) != want {
		t.Errorf("sbatch arguments\n%s\nwant\n%s", got, want)
	}
	if fi, err := os.Stat(filepath.Join(dir, "logs")); err != nil || !fi.IsDir() {
		t.Errorf("the logs folder was not made: %v", err)
	}
}

// The Kubernetes manifests of docs/cluster.md parse, run `qvs ... --shard
// auto` as an Indexed Job whose QVS_SHARD_COUNT equals its completions, and
// share one ReadWriteMany claim with the eval Job.
func TestClusterKubernetesManifests(t *testing.T) {
	type container struct {
		Command []string `yaml:"command"`
		Env     []struct {
			Name, Value string
		} `yaml:"env"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	type doc struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string   `yaml:"completionMode"`
			Completions    int      `yaml:"completions"`
			Parallelism    int      `yaml:"parallelism"`
			AccessModes    []string `yaml:"accessModes"`
			Template       struct {
				Spec struct {
					Containers []container `yaml:"containers"`
					Volumes    []struct {
						PVC struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					} `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	read := func(name string) []doc {
		b, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "examples", "cluster", name))
		if err != nil {
			t.Fatal(err)
		}
		var docs []doc
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var d doc
			err := dec.Decode(&d)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			docs = append(docs, d)
		}
		return docs
	}
	docs := append(read("k8s-indexed-job.yaml"), read("k8s-eval-job.yaml")...)
	claims := map[string]bool{}
	var indexed, eval int
	for _, d := range docs {
		switch d.Kind {
		case "PersistentVolumeClaim":
			if !slices.Contains(d.Spec.AccessModes, "ReadWriteMany") {
				t.Errorf("claim %s is not ReadWriteMany: shards on several nodes share it", d.Metadata.Name)
			}
			claims[d.Metadata.Name] = true
		case "Job":
			c := d.Spec.Template.Spec.Containers[0]
			for _, v := range d.Spec.Template.Spec.Volumes {
				if !claims[v.PVC.ClaimName] {
					t.Errorf("job %s mounts claim %q, not defined", d.Metadata.Name, v.PVC.ClaimName)
				}
			}
			if slices.Contains(c.Command, "eval") {
				eval++
				continue
			}
			indexed++
			count := ""
			for _, e := range c.Env {
				if e.Name == "QVS_SHARD_COUNT" {
					count = e.Value
				}
			}
			if d.Spec.CompletionMode != "Indexed" || count != strconv.Itoa(d.Spec.Completions) ||
				!strings.Contains(strings.Join(c.Command, " "), "--shard auto") {
				t.Errorf("job %s: mode %q, completions %d, QVS_SHARD_COUNT %q, command %v", d.Metadata.Name,
					d.Spec.CompletionMode, d.Spec.Completions, count, c.Command)
			}
			// The command parses as qvs flags (binary path aside).
			root, _ := NewRootCommand(io.Discard, io.Discard)
			sub, rest, err := root.Find(c.Command[1:])
			if err == nil {
				err = sub.ParseFlags(rest)
			}
			if err != nil {
				t.Errorf("job %s: command %v: %v", d.Metadata.Name, c.Command, err)
			}
		}
	}
	if indexed != 1 || eval != 1 {
		t.Errorf("%d indexed jobs and %d eval jobs, want 1 and 1", indexed, eval)
	}
}

// Package campaign runs a set of repeated experiment runs (one per method,
// hyperparameter setting and repeat) into a results directory with the
// output contract shared by `qvs as`, `qvs as replay` and `qvs bayesopt`:
//
//	DIR/config.yaml             resolved config (with qvs version and seed)
//	DIR/summary.csv             one row per finished run
//	DIR/runs/KEY.csv            every record (query / evaluation) of run KEY
//	DIR/runs/KEY.summary.csv    the run's summary row; its presence = done
//	DIR/runs/KEY.NAME.csv       extra per-run files (curves, solutions)
//
// Durability: every file is written atomically (temp + fsync + rename), so a
// run killed at any instant leaves either the previous or the new version of
// each file. Rerunning the same campaign skips finished runs and hands an
// unfinished run the records it had made, which it replays to continue.
//
// Determinism: a run must derive every random draw from (seed, run key,
// iteration), e.g. with rng.New, never from a stream that lives across
// iterations; then a resumed run produces exactly the records of an
// uninterrupted one.
//
// Sharding: Shard{Index: i, Count: n} runs only runs whose position p in
// Spec.Runs has p mod n == i, so n machines can fill one results folder;
// ParseShard("auto") takes i and n from a Slurm job array or a Kubernetes
// Indexed Job.
//
// Concurrency: any number of processes may execute a campaign into one
// folder at once (shards, duplicates, late joiners). Each run is computed
// under DIR/runs/KEY.lock (fileio.TryLock: flock, or a lease file), so never
// by two processes at a time; a run held by another process is waited for,
// and taken over if its holder dies. config.yaml is checked and written, and
// summary.csv rewritten, under DIR/.campaign.lock. Temp files are swept only
// when their writer is gone (fileio.SweepTemps), and so is the lock file a
// killed process left on a run it had finished.
//
// Inputs: config.yaml ends with the size and CRC-32C of every Spec.Inputs
// file; a rerun reading other contents is refused, naming the file.
//
// Kinds: every campaign of qvs (active search, continuous and discrete
// BayesOpt, the scored-library replay) is a Kind: Plan checks its
// settings and lists its runs without reading data, Open loads the data
// and returns the RunFunc. One driver (cli.RunCampaign) plans, checks the
// folder's config.yaml (Plan.CheckFolder), opens, executes and reports
// every kind alike.
//
// Names: RunKey is the one way every kind names its runs ("qvs-q0.5-r00"),
// which also seeds their random streams; a campaign on a user's space is of
// task SpaceTask and named after its space file (SpaceName). InnerWorkers
// splits the workers between runs in parallel and the insides of each run.
package campaign

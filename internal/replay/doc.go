// Package replay benchmarks scored searches on a fully scored library (a
// virtual screen whose every molecule has a docking score): each run
// starts from a random initial batch, asks surrogate.Suggest for a batch
// per round given the scores acquired so far, and reveals the scores of
// what it picked from the library's own column. Hits are the library's
// top-k scores (HitSet: ties with the k-th included). Per round a run
// records the hits found, VS_1 of them under the pool's similarity
// (Similarity) and the round's wall and CPU seconds.
//
// A replay is a campaign of internal/campaign (config.yaml, summary.csv,
// runs/KEY.csv, runs/KEY.curve.csv; resume; shards): Plan lists the runs,
// Campaign.RunFunc executes one; `qvs as replay` drives it and `qvs eval`
// tabulates its folders (kind replay).
package replay

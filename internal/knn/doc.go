// Package knn builds the k-nearest-neighbour graphs of the active-search
// pools (internal/datasets): row i of a KNNGraph lists i's k nearest other
// items with their distances, nearest first, ties to the lower index.
// Metrics: Euclidean and cosine on dense features (float64 rows or a
// float32 block, Dense), Tanimoto on packed fingerprints. Edge weights
// (EdgeWeights, WeightsInPlace, TanimotoGraph) turn distances into the
// similarities in (0, 1] the active-search model and the diversity kernel
// read.
//
// # Exact kNN graphs
//
// DenseKNN (Euclidean, cosine) and BitsKNN (Tanimoto) compute exact graphs on
// all cores with ties broken by the lower index. DenseKNN rotates the points
// to their principal axes (distances unchanged), partitions them into k-d
// leaves, and for each query leaf visits the other leaves nearest first,
// skipping a leaf for every query whose distance to its bounding box exceeds
// the query's running k-th distance. For the rest, one float32 matrix
// product over the leading axes gives partial squared distances (lower
// bounds); only pairs that pass are measured in full in float64. Every
// candidate within a proven rounding bound of the k-th value is kept, and the
// survivors are re-ranked by the distance computed directly from the
// original features, so the graph equals the brute-force definition exactly
// (Fashion-MNIST, 70,000 x 50, k = 50: about 14 CPU-seconds). CachedKNN
// stores graphs under cacheDir/knn/<key>.bin, keyed by a SHA-256 of the
// features and parameters and protected by a SHA-256 trailer: a damaged file
// is detected and recomputed, and writes are atomic.
//
// # Approximate kNN graphs
//
// ResolveKNNMethod chooses the method of a pool.csv.knn setting: exact,
// approx, or auto (approximate from ApproxMinItems items,
// ApproxMinItemsTanimoto fingerprints; the built-in pools are always
// exact). ApproxDenseKNN (ApproxDenseKNN32 on float32 rows) and
// ApproxBitsKNN build random-projection trees for an initial graph (median
// splits by quickselect, Workers trees at a time), refine it by NN-descent
// (each round reads the previous round's rows, so the result depends on the
// seed only, not on the scheduling), and re-rank each row's candidates by
// the exact distance, so every listed distance equals Dense.Dist (the
// pools' datasets.Pool.Distance). The recall@k is measured against brute
// force on sampled rows and returned with the graph; BuildGraph caches it
// beside the graph (its key adds the method and its parameters to the
// features' hash).
//
// # Building, caching, memory
//
// BuildGraph builds a user's CSV or .npy pool's graph: the method chosen,
// the graph read from the cache or built and stored (GraphOptions: workers,
// progress, how a message names a config key; GraphInfo says what
// happened); the built-in pools call CachedKNN or TanimotoGraph.
// CachedFloats caches other computed arrays the same way (the Fashion-MNIST
// PCA under cacheDir/pca). On pools of 131,072 items or more, LowGCSlack
// lowers the collector's target while a graph is built or searched and
// ReleaseMemory returns freed phases' arrays to the operating system, so the
// peak memory holds one phase's arrays, not two.
//
// # Progress
//
// A ProgressFunc hears how a long build advances, phase by phase
// (StartPhase, Phase); the pool loaders report their own reading phases
// through the same type.
package knn

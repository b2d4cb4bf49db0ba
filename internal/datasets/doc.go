// Package datasets builds the pools of diverse active search (paper section
// 3.1 and 4.1, Tables 1-3): n items with a binary target, feature vectors,
// and a sparse k-nearest-neighbour similarity graph; and reads the kernel
// sets of discrete BayesOpt (KernelSet: a precomputed kernel with its ids,
// objective and metric columns; ReadKernelSet, PhotoswitchKernelSet).
//
// The graph is what the active-search model and the diversity kernel see.
// Row i of the directed graph lists i's k nearest neighbours (never i), each
// with a weight in (0, 1]; the kNN model of internal/search uses it as is,
// and the Vendi kernel of a set of items is its symmetrisation (W + W^T)/2
// with unit diagonal, as in the authors' code. The features serve the "maximum
// pairwise distance" column of the tables through Pool.Distance.
//
// # Pools
//
// Load(Config, dataDir, cacheDir, workers) builds one of:
//   - synthetic (the default; needs no data): Gaussian clusters, a few rich
//     in positives, determined by the config and its seed;
//   - folder: the authors' format (features.npy, labels.npy, csr_weights.npz
//     written by scipy.sparse.save_npz, or nearest_neighbors.npy plus
//     similarities.npy), read by internal/fileio (headers validated, sizes
//     checked against the file before allocating), so a user who has
//     the paper's preprocessed data runs the exact tasks;
//   - photoswitch: 1,919 molecules, target lambda-max >= 450 nm, Morgan
//     fingerprints, Tanimoto kNN (k = 20) weighted by the similarity;
//   - fashion: Fashion-MNIST train then test (70,000 images), target class 0,
//     PCA of the pixels (50 components), Euclidean kNN (k = 50) with Gaussian
//     weights exp(-d^2/h^2), h^2 the median squared edge length;
//   - bmg: the authors' folder if present, else the Landolt ternary alloys
//     with Magpie-style composition features (element fractions and
//     fraction-weighted mean, average deviation, min, max, range of 22
//     elemental properties), zero-variance columns dropped, z-scored,
//     Euclidean kNN (k = 50) with unweighted edges as the authors built it;
//   - csv: any table with feature columns, a label column and an optional id
//     column; or a .npy matrix of features (float32, float64, uint8; packed
//     fingerprints MSB-first for Tanimoto) with an optional ids file, loaded
//     into one contiguous copy, without labels; float32 features stay
//     float32 (Pool.Dense32, a knn.Rows32), every distance computed from them
//     in float64, equal bit for bit to that of the values widened;
//   - graph: the user's own similarity instead of features, a graph (SciPy
//     CSR .npz or an edges CSV) or a kernel matrix whose k largest entries
//     per row are kept, with ids and labels from files or none
//     (GraphConfig); its distance is 1 - the diversity kernel (MetricGraph).
//
// DefaultConfig documents every default and the reason for it.
//
// # kNN graphs
//
// The graphs are built by internal/knn (exact and approximate engines,
// Euclidean, cosine and Tanimoto, the graph cache, edge weights); the pool
// loaders build or read the graph (knn.CachedKNN, knn.TanimotoGraph; a
// user's pool knn.BuildGraph with the method of pool.csv.knn) and keep it
// in the pool's rows (Pool.SetGraph). Pool.GraphCSR is the graph as
// the SciPy CSR matrix `qvs graph` writes. InputFiles lists the files a
// pool reads, which a campaign's config.yaml fingerprints.
//
//	p, err := datasets.Load(datasets.DefaultConfig("photoswitch"), dataDir, ".cache", 0)
//	// p.Len() == 1919, p.PositiveCount() == 718, p.Neighbors[i] has 20 items
package datasets

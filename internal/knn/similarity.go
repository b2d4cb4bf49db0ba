package knn

import "fmt"

// CheckSimilarity checks, before anything is read, that similarity names
// edge weights metric can have (the checks the weighting itself makes
// once the graph is built): gaussian, unweighted, or native with metric
// cosine; for tanimoto, native (gaussian meaning the same) or unweighted.
func CheckSimilarity(similarity, metric string) error {
	if metric == MetricTanimoto {
		return checkTanimotoSimilarity(similarity)
	}
	switch similarity {
	case SimilarityGaussian, SimilarityUnweighted:
		return nil
	case SimilarityNative:
		if metric != MetricCosine {
			return fmt.Errorf("similarity %q needs metric %q or %q, not %q", similarity, MetricCosine, MetricTanimoto, metric)
		}
		return nil
	}
	return fmt.Errorf("similarity %q is not one of %q, %q, %q", similarity, SimilarityGaussian, SimilarityUnweighted, SimilarityNative)
}

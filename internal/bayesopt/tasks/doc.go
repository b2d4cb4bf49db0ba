// Package tasks holds the black-box objectives of the paper's diverse
// Bayesian optimisation experiments (section 4.2) behind the
// bayesopt.Objective interface, looked up by name:
//
//   - "rover" (60-d): trajectory planning through obstacles (package rover),
//     distance = one-way distance between trajectories;
//   - "lunar" (12-d): a heuristic lunar-lander controller, mean return over 50
//     fixed-seed episodes (package lunar), distance = Euclidean;
//   - "synthetic" (6-d) or "synthetic-<d>": four Gaussian bumps of different
//     heights on [0, 1]^d, a cheap multi-modal function for fast tests of the
//     optimisers, distance = Euclidean.
//
// Every task is deterministic and safe for concurrent use. The tasks are
// the lines of one registry (Task: name, constructor, protocol defaults),
// which Lookup, Names and DefaultProtocol read: adding a task is its
// objective in a package or file of its own and one line there.
//
//	obj, err := tasks.Lookup("rover")
//	lo, hi := obj.Bounds()
//	f, err := obj.Evaluate(ctx, x)
package tasks

// Package lunar is the 12-dimensional lunar lander task of the paper's
// diverse Bayesian optimisation experiments (section 4.2, Figure 4), as the
// TuRBO/ROBOT code defines it: OpenAI's hand-written
// heuristic controller with its twelve constants w = 2x, x in [0, 1]^12, flies
// gym's LunarLander-v2 (discrete actions), and the objective is the mean
// return over 50 episodes with fixed seeds 0..49.
//
// The environment is a port of gym's lunar_lander.py onto the pure-Go Box2D
// port github.com/ByteArena/box2d (pinned to a commit that honours collision
// filters): random terrain of 11 chunks with a flat pad, the six-sided lander
// hull, two legs on motorised revolute joints with limits, main and side
// engines as impulses with random dispersion, the initial random force
// (+-1500, the ROBOT code's "harder" setting), potential-based shaping
// rewards, fuel costs, -100 for a crash or leaving the screen, +100 when the
// lander comes to rest, and a cap of 1000 steps that ends with -100 (the
// original's timestep counter). Every fixture gets an explicit collision
// filter: the port's MakeB2FixtureDef leaves category and mask at 0, which
// collides with nothing. gym's exhaust particles are decoration (they collide
// only with the ground and never touch the lander) and are not simulated.
//
// Randomness comes from Go's PCG generator seeded with the episode index, so
// results are deterministic but not numerically equal to gym's (NumPy's
// generator draws different terrains and forces). With seeds 0..49 OpenAI's
// default heuristic (DefaultX) averages 228.6; over 1000 seeds it averages
// 254.7 (sd 105), in line with the roughly 260 it scores in gym. Random x
// average about -126 (40 draws), against about -140 in gym.
//
// The diversity distance between two controllers is the Euclidean distance
// between their x.
//
//	task := lunar.New()
//	f, err := task.Evaluate(ctx, lunar.DefaultX) // 50 episodes on GOMAXPROCS workers
package lunar

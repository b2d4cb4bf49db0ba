package cli

// Upper bounds on counts a flag or config key sets. Above them a command
// would allocate far beyond its input before doing anything useful (the
// audit found each by running it): they are refused as usage errors naming
// the flag or key, never left to the out-of-memory killer.
const (
	// maxRepeats: every run of a campaign is planned, in memory, before
	// the first starts (10^8 repeats took over 5 GB).
	maxRepeats = 10000
	// maxCandidates: Thompson sampling draws a joint sample over a region's
	// candidates, O(m^2) memory and O(m^3) time: m = 5,000 takes 1.4 GB and
	// about 2 min on the 2-core box; 10^9 exhausted 24 GB.
	maxCandidates = 5000
	// maxRegions: M trust regions (the paper uses 3 to 20); 10^8 took
	// 7.7 GB before the first evaluation.
	maxRegions = 100
	// maxDiscreteBatch: the discrete engine's batch on an 800-item RBF
	// kernel took 47 MB and 3 s at 100, 185 MB and 35 s at 300, and ran out
	// of 3 GB at 700 (the paper uses 5).
	maxDiscreteBatch = 300
	// MaxWorkers: each worker is a goroutine with its own buffers (a
	// campaign's, a kNN graph's); 10^11 workers ran out of memory starting
	// them. 1024 is far above the cores of any one node.
	MaxWorkers = 1024
)

// limitWhy says in a message why each bound exists.
var limitWhy = map[string]string{
	"repeats":    "every run is planned in memory before the first starts",
	"candidates": "Thompson sampling is quadratic in memory and cubic in time in the candidates",
	"regions":    "trust regions; the paper uses 3 to 20",
	"batch":      "the discrete engine's memory grows steeply with the batch",
}

// checkAtMost refuses v > limit as a usage error naming the config key
// (or the flag that set it) and the file.
func checkAtMost(configPath, key string, v, limit int) error {
	if v > limit {
		return SettingError(configPath, key, v, "at most %d (%s)", limit, limitWhy[key])
	}
	return nil
}

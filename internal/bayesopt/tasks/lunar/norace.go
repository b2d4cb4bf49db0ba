//go:build !race

package lunar

// raceDetector reports whether the race detector is compiled in.
const raceDetector = false

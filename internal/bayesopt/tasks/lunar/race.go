//go:build race

package lunar

// raceDetector reports whether the race detector is compiled in. The Box2D
// port increments global statistics counters (b2_gjkCalls, B2_toiCalls, ...)
// without synchronisation. They never feed back into the simulation, so
// parallel episodes are still deterministic, but the race detector reports
// them; race-enabled builds therefore run one episode at a time.
const raceDetector = true

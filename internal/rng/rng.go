// Package rng derives the random streams of every campaign, pool and figure
// from a master seed and labels (run key, iteration, purpose), so a draw
// depends only on what it is for, never on what was drawn before: a resumed
// run repeats an uninterrupted one, and runs on any number of goroutines or
// machines give the same records.
//
// It sits at the bottom of the layers (it imports only the standard
// library), so pools, campaigns and figures all reach it.
package rng

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// Seed derives a 64-bit seed from a master seed and any labels (run key,
// iteration, ...) by FNV-1a hashing of their text: the master in decimal,
// then each label formatted with %v after a NUL byte. Equal inputs give
// equal seeds; the derivation is part of the records' format (changing it
// changes every campaign's draws).
func Seed(master uint64, labels ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, master)
	for _, l := range labels {
		fmt.Fprintf(h, "\x00%v", l)
	}
	return h.Sum64()
}

// New returns a PCG generator seeded from s = Seed(master, labels...) as
// rand.NewPCG(s, s^0x9e3779b97f4a7c15).
func New(master uint64, labels ...any) *rand.Rand {
	s := Seed(master, labels...)
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

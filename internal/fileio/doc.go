// Package fileio reads numeric matrices and vectors from CSV and .npy files
// with errors that name the file, row and problem, and writes result files
// atomically (temp file in the same directory, fsync, rename) so a killed
// process never leaves a half-written result over a good one. Every CSV
// reader (NewCSVReader) also reads gzip-compressed files, told by gzip's
// magic bytes, within a bound on their expansion. TryLock gives
// inter-process locks (flock, or lease files where flock is unavailable), and
// SweepTemps removes the temp files of writers that were killed.
package fileio

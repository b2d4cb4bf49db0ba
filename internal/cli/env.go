package cli

import (
	"context"
	"io"
)

// Env is what a command's run function receives besides its options: its
// context (cancelled on SIGINT, SIGTERM or SIGHUP), its streams, and the
// global flags, resolved (defaults and environment variables applied).
type Env struct {
	Ctx     context.Context
	In      io.Reader // stdin (a file flag given as "-" is already spooled to a file)
	Out     io.Writer // results
	Err     io.Writer // progress, notes, warnings
	DataDir string    // third-party data directory
	// CacheDir is where computed caches go (kNN graphs, embeddings).
	CacheDir string
	Seed     uint64 // master seed
	SeedSet  bool   // --seed was given
	Workers  int    // parallel workers (>= 1)
	Quiet    bool   // no progress bars, no chatter on Err (warnings still print)
	Force    bool   // replace an existing output file qvs did not write
	Config   string // the --config file ("" none), for messages
	Version  string // the qvs version recorded in config.yaml
	// KeyName, if not nil, is how a message names a config key in
	// passing: "--FLAG (key KEY)" when a flag set it, else the key.
	KeyName func(key string) string
}

// Context is e.Ctx, or context.Background when it is nil.
func (e *Env) Context() context.Context {
	if e.Ctx == nil {
		return context.Background()
	}
	return e.Ctx
}

// Chatter is where status messages go: Err, or io.Discard under --quiet.
func (e *Env) Chatter() io.Writer {
	if e.Quiet || e.Err == nil {
		return io.Discard
	}
	return e.Err
}

// Key names config key in a message (KeyName, else the key itself).
func (e *Env) Key(key string) string {
	if e.KeyName == nil {
		return key
	}
	return e.KeyName(key)
}

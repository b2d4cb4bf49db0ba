// Package cli holds what every qvs command does once its command line is
// parsed: an options struct per command and a run function taking the
// options and an Env (streams, context, the resolved global flags), with
// no cobra in it. Package cmd only declares flags, fills the options and
// calls the run function, so a command is tested by calling its run
// function with an Env whose streams are buffers.
//
// Output goes through one path: a command's rows are a Table written in
// its --format (Format: table, csv or json, refused when the flag is
// parsed), numbers at full precision by Float (the aligned table rounds
// with Fixed or Rounded), text cells of the aligned table quoted when
// unprintable (TableCell), ids in CSV spreadsheet-safe unless --raw-ids.
// A Table goes to Env.Out in one write, after the work that makes it, so
// stdout is empty on an error; progress and notes go to Env.Err (nothing
// under --quiet).
//
// Errors a run function returns decide the exit status (ExitCode): a
// UsageError (Usagef, ConfigError, ConfigErrorf, SettingError) is a bad
// command line or config (exit 2), any other error a failed run (exit 1).
package cli

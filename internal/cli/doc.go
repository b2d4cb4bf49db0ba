// Package cli holds what every qvs command does once its command line is
// parsed: an options struct per command and a run function taking the
// options and an Env (streams, context, the resolved global flags), with
// no cobra in it. Package cmd only declares flags, fills the options and
// calls the run function, so a command is tested by calling its run
// function with an Env whose streams are buffers.
//
// Campaigns: each kind of campaign is a campaign.Kind of this package
// (ASCampaign for `qvs as`, BayesoptCampaign and DiscreteCampaign for
// `qvs bayesopt`, ReplayCampaign for `qvs as replay`), whose Plan applies
// the count bounds (MaxRepeats, MaxCandidates, MaxRegions,
// MaxDiscreteBatch) and the lower package's checks, and one driver,
// RunCampaign, plans, checks the folder, opens, executes and prints the
// table (PrintCampaignTable) for every kind. Pools are loaded here with
// their notes and steps on Env.Err (LoadPool, LoadSearchPool), items with
// LoadItems.
//
// Output goes through one path: a command's rows are a Table written in
// its --format (Format: table, csv or json, refused when the flag is
// parsed), numbers at full precision by Float (the aligned table rounds
// with Fixed or Rounded), text cells of the aligned table quoted when
// unprintable, ids in CSV spreadsheet-safe unless --raw-ids.
// A Table goes to Env.Out in one write, after the work that makes it, so
// stdout is empty on an error; progress and notes go to Env.Err (nothing
// under --quiet).
//
// Errors a run function returns decide the exit status (ExitCode): a
// UsageError (Usagef, ConfigError, ConfigErrorf, SettingError) is a bad
// command line or config (exit 2), any other error a failed run (exit 1).
package cli

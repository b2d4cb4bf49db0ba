package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/eval"
)

// RunCampaign runs a campaign of any kind into its folder: k.Plan (every
// setting checked), the folder's config.yaml compared with the plan,
// k.Open (the data loaded), campaign.Execute of the runs of shard (the
// zero Shard: all), the report line on stderr (unless quiet) and the
// campaign's table on stdout, as `qvs eval` writes it (PrintCampaignTable).
// Runs stop cleanly on SIGINT, SIGTERM or SIGHUP (campaign.InterruptContext
// of env's context, installed when the runs start: a signal while the data
// loads still ends the process).
func RunCampaign(env *Env, k campaign.Kind, shard campaign.Shard) error {
	p, err := k.Plan()
	if err != nil {
		return err
	}
	if err := p.CheckFolder(); err != nil {
		return err
	}
	o, err := k.Open(env.Context())
	if err != nil {
		return err
	}
	cfg := p.Config
	if o.Config != nil {
		cfg = o.Config
	}
	steps := p.Steps
	if o.Steps != 0 {
		steps = o.Steps
	}
	workers := env.Workers
	if p.Sequential {
		workers = 1
	}
	ctx, stop := campaign.InterruptContext(env.Context())
	defer stop()
	rep, err := campaign.Execute(ctx, campaign.Spec{
		Dir: p.Dir, Header: p.Header, Runs: p.Runs, Steps: steps, Unit: p.Unit,
		Workers: workers, Shard: shard, Quiet: env.Quiet, Force: env.Force, Progress: env.Err,
		Config: cfg, Growable: p.Growable, Version: env.Version, Kind: p.Kind,
		Inputs: o.Inputs, Prepare: o.Prepare,
	}, o.Run)
	if rep.Started() {
		fmt.Fprintf(env.Chatter(), "%s: %s\n", p.Name, rep)
	}
	if err != nil {
		return err
	}
	return PrintCampaignTable(env.Out, p.Dir, kindOfKey(p.Kind), shard, len(p.Runs))
}

// kindOfKey is the eval.Kind config.yaml records as key.
func kindOfKey(key string) eval.Kind {
	for _, k := range []eval.Kind{eval.KindActiveSearch, eval.KindDiscreteBO, eval.KindContinuousBO, eval.KindReplay} {
		if k.Key() == key {
			return k
		}
	}
	return eval.KindUnknown
}

// PrintCampaignTable prints the table of the campaign in dir exactly as
// `qvs eval` writes it (caption, Markdown table, notes): every command that
// ends with a table (`qvs as`, `qvs as table`, `qvs as replay`, `qvs
// bayesopt` continuous and discrete) goes through here, so they share one
// style.
//
// want is the kind of campaign the command makes (eval.KindUnknown: any).
// A partial campaign says so in a note. shard is the command's --shard
// (zero when unsharded) and planned the number of runs the whole campaign
// plans: a shard run's table is marked partial until every planned run of
// every shard is finished.
func PrintCampaignTable(w io.Writer, dir string, want eval.Kind, shard campaign.Shard, planned int) error {
	camp, err := eval.LoadCampaign(dir)
	if err != nil {
		return err
	}
	if len(camp.Runs) == 0 {
		_, err := fmt.Fprintf(w, "%s: no finished runs yet\n", filepath.Join(dir, "summary.csv"))
		return err
	}
	if want != eval.KindUnknown && camp.Kind != want {
		return fmt.Errorf("%s: not %s campaign (summary columns %v)", dir, kindArticle(want), camp.Header)
	}
	t := eval.TableOf(camp)
	if t == nil {
		return fmt.Errorf("%s: unknown campaign kind (summary columns %v)", dir, camp.Header)
	}
	if shard.Count > 1 && len(camp.Runs) < planned {
		// `qvs as table` reads only active-search folders; the rerun
		// without --shard prints any kind's table once every run is done.
		then := "`qvs eval`"
		if camp.Kind == eval.KindActiveSearch {
			then = "`qvs as table` or `qvs eval`"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("Partial table: this process ran shard %d/%d; %d of the %d planned runs are finished. "+
			"Run the other shards into %s (or rerun without --shard), then %s for the full table.",
			shard.Index, shard.Count, len(camp.Runs), planned, dir, then))
	} else {
		t.NotePartial(camp.Partial())
	}
	return t.WriteMarkdown(w)
}

// kindArticle is "an active-search" / "a BayesOpt" / "a discrete BayesOpt".
func kindArticle(k eval.Kind) string {
	if k == eval.KindActiveSearch {
		return "an active-search"
	}
	return "a " + k.String()
}

// campaignInputs names input files for config.yaml's fingerprints: by
// their path relative to the data directory when they lie in it (so a
// moved data folder with the same contents resumes), else as given; ""
// is skipped.
func campaignInputs(dataDir string, paths ...string) []campaign.Input {
	var out []campaign.Input
	for _, p := range paths {
		if p == "" {
			continue
		}
		name := p
		if rel, err := filepath.Rel(dataDir, p); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			name = filepath.ToSlash(rel)
		}
		out = append(out, campaign.Input{Name: name, Path: p})
	}
	return out
}

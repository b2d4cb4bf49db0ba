package cmd

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/qvs-dev/qvs/internal/campaign"
	"github.com/qvs-dev/qvs/internal/eval"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// printCampaignTable prints the table of the campaign in dir exactly as
// `qvs eval` writes it (caption, Markdown table, notes): every command that
// ends with a table (`qvs as`, `qvs as table`, `qvs bayesopt` continuous
// and discrete) goes through here, so they share one style.
//
// want is the kind of campaign the command makes (eval.KindUnknown: any).
// A partial campaign says so in a note. shard is the command's --shard
// (zero when unsharded) and planned the number of runs the whole campaign
// plans: a shard run's table is marked partial until every planned run of
// every shard is finished.
func printCampaignTable(w io.Writer, dir string, want eval.Kind, shard campaign.Shard, planned int) error {
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

// nItems writes a count of things for a message: "1 item", "3 items"
// (fileio.Count).
func nItems(n int, noun string) string { return fileio.Count(n, noun) }

package cmd

import (
	"github.com/qvs-dev/qvs/internal/cli"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// printCampaignTable prints the table of the campaign in a folder as
// `qvs eval` writes it (cli.PrintCampaignTable).
var printCampaignTable = cli.PrintCampaignTable

// nItems writes a count of things for a message: "1 item", "3 items"
// (fileio.Count).
func nItems(n int, noun string) string { return fileio.Count(n, noun) }

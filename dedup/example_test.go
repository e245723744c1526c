package dedup_test

import (
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
)

// The poller fingerprints each item as it parses a page, asks the detector
// which new items are copies of another source's story inside the store
// transaction, and commits them to the index once the transaction has.
func ExampleDetector() {
	d, err := dedup.NewDetector(dedup.DefaultConfig())
	if err != nil {
		panic(err)
	}
	at := time.Date(2026, 11, 16, 8, 0, 0, 0, time.UTC)
	item := func(source, id, title, description, prefix string, after time.Duration) dynamo.FingerprintEntry {
		return dynamo.FingerprintEntry{
			Key:         dynamo.ItemKey{SourceID: source, ItemID: id},
			Fingerprint: dedup.Fingerprint(title, description, prefix),
			FirstSeen:   at.Add(after),
		}
	}
	polls := [][]dynamo.FingerprintEntry{
		{item("wire", "a1", "Voltra recalls 85,000 electric SUVs over brake software fault",
			"Voltra is recalling about 85,000 of its Terra electric SUVs because a software fault can delay braking in cold weather, the company said.", "", 0)},
		{item("techbeat", "b7", "TechBeat | VOLTRA RECALLS 85,000 ELECTRIC SUVS OVER BRAKE SOFTWARE FAULT",
			"<p>Voltra is recalling about 85,000 of its <b>Terra</b> electric SUVs because a software fault can delay braking in cold weather, the carmaker said on Monday.</p>", "TechBeat | ", time.Hour),
			item("techbeat", "b8", "Voltra opens its first European battery factory",
				"<p>Voltra opened its first battery plant in Europe on Thursday, a factory near Lyon that will employ 1,800 people.</p>", "TechBeat | ", time.Hour)},
	}
	for _, items := range polls {
		dups := d.Detect(items) // inside the store transaction
		for _, dup := range dups {
			fmt.Printf("%s/%s is a copy of %s/%s\n", dup.Item.SourceID, dup.Item.ItemID, dup.Primary.SourceID, dup.Primary.ItemID)
		}
		d.Commit(items, dups) // after it committed
	}
	// Output:
	// techbeat/b7 is a copy of wire/a1
}

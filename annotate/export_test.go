package annotate

import "math"

// ReadEveryRecord makes the statistics that score candidates read every
// record, however many (manyRecords), until the function it returns is
// called: TestSampledAsWhole compares the suggestions made so with those
// made on samples.
func ReadEveryRecord() (restore func()) {
	was := manyRecords
	manyRecords = math.MaxInt
	return func() { manyRecords = was }
}

package annotate

import (
	"math"
	"testing"
)

// ReadEveryRecord makes the statistics that score candidates read every
// record, however many (manyRecords), until the function it returns is
// called: TestSampledAsWhole compares the suggestions made so with those
// made on samples.
func ReadEveryRecord() (restore func()) {
	was := manyRecords
	manyRecords = math.MaxInt
	return func() { manyRecords = was }
}

// PageTarget is a fuzz target that reads a whole page: its name, the check
// it runs on one input, and whether its input is a string rather than a
// []byte (the type of the seed files TestMutatedPages writes for it).
type PageTarget struct {
	Name   string
	Check  func(t *testing.T, page []byte)
	String bool
}

// PageTargets are the page-level fuzz targets of the package's internal
// tests, which TestMutatedPages runs beside those of its external ones.
var PageTargets = []PageTarget{
	{Name: "FuzzPrunedLinks", Check: checkPrunedLinks},
	{Name: "FuzzOpenCounts", Check: checkOpenCounts, String: true},
	{Name: "FuzzDescAtPlace", Check: checkDescAtPlace},
	{Name: "FuzzMayLinkTo", Check: checkMayLinkTo, String: true},
	{Name: "FuzzScan", Check: checkScan, String: true},
	{Name: "FuzzPlain", Check: checkPlain, String: true},
	{Name: "FuzzKeepsText", Check: checkKeepsText, String: true},
	{Name: "FuzzPlainTagName", Check: checkPlainTagName, String: true},
	{Name: "FuzzRawAttrs", Check: checkRawAttrs, String: true},
}

//go:build race

package main

// raceDetector reports a test binary built with -race, whose children
// (serve run from it) carry the detector's shadow memory and run many
// times slower.
const raceDetector = true

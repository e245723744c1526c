//go:build !race

package main

// raceDetector reports a test binary built with -race (race_on_test.go).
const raceDetector = false

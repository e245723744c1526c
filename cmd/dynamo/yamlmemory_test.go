package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/sources"
)

// yamlChildEnv, when set, makes TestYAMLSourcesFileMemory the child: it
// reads the YAML sources file the variable names after its reader
// ("whole:" or "entries:") and prints its peak resident memory.
const yamlChildEnv = "DYNAMO_YAML_MEMORY_CHILD"

// TestYAMLSourcesFileMemory checks a YAML sources file of
// DYNAMO_MEMORY_SOURCES entries (2,000 unless set; docs/benchmarks/load.md
// measures 100,000), as serve checks it before applying it, in a process
// of its own, and reads its peak resident memory (VmHWM): under 200 MB
// read entry by entry (eachFileSource), beside the same file decoded
// whole (eachYAMLEntryWhole, as serve read YAML before), logged.
func TestYAMLSourcesFileMemory(t *testing.T) {
	if yamlChild(t) {
		return
	}
	n := memorySources(t)
	var file bytes.Buffer
	file.WriteString("# the sources\nsources:\n")
	for i := range n {
		fmt.Fprintf(&file, "  - id: s%07d\n    url: https://example.org/news/%d.html\n    kind: html\n    interval: 30m\n    category: news\n    timezone: Europe/Paris\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "sources.yaml")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	peaks := map[string]float64{}
	for _, reader := range []string{"whole", "entries"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestYAMLSourcesFileMemory$")
		cmd.Env = append(os.Environ(), yamlChildEnv+"="+reader+":"+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", reader, err, out)
		}
		var entries int
		var kb float64
		if _, err := fmt.Sscanf(string(out), "%d entries VmHWM=%f", &entries, &kb); err != nil || entries != n {
			t.Fatalf("%s: %d entries read (%v), want %d; the child's output:\n%s", reader, entries, err, n, out)
		}
		peaks[reader] = kb / 1024
		t.Logf("%d entries (%.1f MB of YAML) read %s: VmHWM %.1f MB", n, float64(file.Len())/(1<<20), reader, peaks[reader])
	}
	if peaks["entries"] > memoryBound>>20 {
		t.Errorf("%d entries read entry by entry: peak resident memory %.1f MB, want under %d MB", n, peaks["entries"], memoryBound>>20)
	}
}

// yamlChild reports whether this process is TestYAMLSourcesFileMemory's
// child, and if so reads the file and prints its VmHWM in kB.
func yamlChild(t *testing.T) bool {
	reader, path, ok := strings.Cut(os.Getenv(yamlChildEnv), ":")
	if !ok {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svc := &sources.Service{Policies: policy.Names()}
	entries := 0
	if reader == "whole" {
		err = eachYAMLEntryWhole(data, 0, func(raw []byte) error {
			entries++
			var src dynamo.Source
			return readFileSource(raw, &src, svc)
		})
	} else {
		err = eachFileSource(data, svc, func(*dynamo.Source) error { entries++; return nil })
	}
	if err != nil {
		t.Fatalf("%s: %v", reader, err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	_, hwm, _ := strings.Cut(string(status), "VmHWM:")
	hwm, _, _ = strings.Cut(hwm, "kB")
	fmt.Printf("%d entries VmHWM=%s\n", entries, strings.TrimSpace(hwm))
	return true
}

#!/usr/bin/env bash
# Dynamo's whole test suite, runnable on a fresh Debian machine with Go.
#
# It installs what the tests need (xmllint, jing, python3-feedparser,
# python3-listparser, Chromium, Node.js and npm, PostgreSQL when no server
# is reachable),
# provides a PostgreSQL server (DYNAMO_TEST_DATABASE_URL if set, else one
# answering on 127.0.0.1:5432, else a throwaway cluster it starts and stops
# itself), then runs gofmt, go vet, staticcheck, every Go test (the
# concurrent packages under the race detector) and a short run of every
# fuzz target.
#
#   FUZZTIME=10s   how long each fuzz target runs (0 skips fuzzing)
#   PKGS=./...     which packages to test
#   DYNAMO_ARTIFACTS=artifacts  where the browser tests save their
#                  screenshots (under web/), kept after the run
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-10s}
PKGS=${PKGS:-./...}
export DYNAMO_ARTIFACTS=${DYNAMO_ARTIFACTS:-$PWD/artifacts}
source scripts/setup.sh

# --- tools and PostgreSQL --------------------------------------------------
missing=()
[ -x /usr/bin/xmllint ] || missing+=(libxml2-utils)
[ -x /usr/bin/jing ] || missing+=(jing)
/usr/bin/python3 -c 'import feedparser' 2>/dev/null || missing+=(python3-feedparser)
/usr/bin/python3 -c 'import listparser' 2>/dev/null || missing+=(python3-listparser)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v curl >/dev/null || missing+=(curl)
# websub's tests run independent WebSub peers from npm (websub/testdata/peers).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[ -n "$pg_bin" ] || missing+=(postgresql)
install_missing "${missing[@]}"
provide_postgres 200

# --- static checks ---------------------------------------------------------
# Each phase's wall time, printed at the end.
suite_start=$SECONDS
phase_start=$SECONDS
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet $PKGS
# staticcheck, pinned so that a new release's checks do not fail a run
# unannounced; installed into GOPATH/bin when it is missing.
staticcheck_version=v0.8.2 # staticcheck 2026.2.2
staticcheck="$(go env GOPATH)/bin/staticcheck"
if ! "$staticcheck" -version 2>/dev/null | grep -q "(${staticcheck_version#v})"; then
  go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
"$staticcheck" $PKGS
static_seconds=$((SECONDS - phase_start))
phase_start=$SECONDS

# --- fuzzing ---------------------------------------------------------------
# A target fails only on a real finding: an input that fails, crashes or hangs
# the target when run again as an ordinary test. Go 1.26's fuzz coordinator
# can also fail a run that found nothing, for the machine's sake rather than
# the input's; such a run is told apart as below and the target run once
# more before it counts (a second failure fails, whatever its cause):
# - a bare "context deadline exceeded" at the -fuzztime boundary on a busy
#   machine (golang/go#75804, fixed in Go 1.27), no failing input written;
# - a worker killed by a signal that is no crash, such as the OOM killer's
#   SIGKILL ("no crash will be recorded"), no failing input written;
# - "fuzzing process hung or terminated unexpectedly", also "while
#   minimizing": a worker panics when one run of the target takes over 10
#   seconds, which a loaded machine can cause (golang/go#56238, #52569), and
#   the input in hand is written as failing. That input is run again as an
#   ordinary test with a 2-minute timeout: if it fails, crashes or hangs
#   there, it is a finding; if it passes, it is moved from testdata to the
#   log directory (a seed, not a regression), and the output names it and
#   how long it ran.
#
# Each package's targets run from one test binary built for fuzzing (`go test
# -c -fuzz`), in the package's directory as `go test` runs it, rather than
# through `go test -fuzz` once per target, which loads the packages and
# links the instrumented binary again for every target.
#
# The packages are fuzzed side by side, as many at a time as the machine
# has cores (FUZZJOBS), the packages with the most targets first, and each
# target runs with one fuzzing worker (-parallel 1) for FUZZTIME: a target
# gets FUZZTIME of one core, where `go test -fuzz` alone would give it one
# worker per core. On two cores that is the same fuzzing CPU as running
# the targets one after the other for half of FUZZTIME each, in half the
# wall time of running them one after the other for FUZZTIME each.
fuzz_cache=$(go env GOCACHE)/fuzz
fuzz_bin_dir="$log_dir/fuzz-bin"
fuzz_out_dir="$log_dir/fuzz-out"
FUZZJOBS=${FUZZJOBS:-$(nproc 2>/dev/null || echo 2)}
# fuzz_binary prints the path of package $1's fuzzing test binary.
fuzz_binary() { echo "$fuzz_bin_dir/${1//\//_}.test"; }
# fuzz_log prints the path of the log of package $1's current fuzzing run.
fuzz_log() { echo "$fuzz_out_dir/${1//\//_}.log"; }
# fuzz_once runs target $2 of package $1 (directory $3) for FUZZTIME with
# one worker, with the other flags `go test -fuzz` gives the binary (its
# default 10-minute timeout, its corpus cache under GOCACHE).
fuzz_once() {
  (cd "$3" && "$(fuzz_binary "$1")" -test.paniconexit0 -test.timeout=10m -test.run='^$' -test.fuzz="^$2\$" \
    -test.parallel=1 -test.fuzztime="$FUZZTIME" -test.fuzzminimizetime=3s -test.fuzzcachedir="$fuzz_cache/$1") >"$(fuzz_log "$1")" 2>&1
}
# failing_inputs counts the failing inputs kept for a target.
failing_inputs() {
  if [ -d "$1" ]; then ls "$1" | wc -l; else echo 0; fi
}
# spurious_fuzz_failure says whether the failed run of target $2 in
# package $1 (directory $3), whose log is fuzz_log $1, which left $4
# failing inputs where there had been $5, is one of the coordinator's own
# failures above.
spurious_fuzz_failure() {
  local pkg=$1 target=$2 dir=$3 after=$4 before=$5 written input start log
  log=$(fuzz_log "$pkg")
  if [ "$after" = "$before" ]; then
    grep -q -x -E '    (context deadline exceeded|fuzzing process terminated by unexpected signal; no crash will be recorded: .*)' "$log"
    return
  fi
  grep -q -E '^    fuzzing process hung or terminated unexpectedly( while minimizing)?: ' "$log" || return 1
  written=$(sed -n -E "s|^    Failing input written to testdata/fuzz/$target/([0-9a-f]+)\$|\\1|p" "$log")
  [ -n "$written" ] && [ "$after" = "$((before + 1))" ] || return 1
  input="$dir/testdata/fuzz/$target/$written"
  start=$(date +%s)
  if ! go test -count=1 -timeout 2m -run "^$target/$written\$" "$pkg" >"$log.rerun" 2>&1; then
    echo "fuzz input $input fails as an ordinary test:"; tail -n 40 "$log.rerun"
    return 1
  fi
  mv "$input" "$log_dir/$target-$written"
  echo "fuzz input $target/$written passes as an ordinary test ($(($(date +%s) - start)) s with the build); moved to $log_dir/$target-$written"
}
# fuzz_package fuzzes each of the targets $3… of package $1 (directory $2)
# in turn, writing what it says to fuzz_log $1.out and how many targets
# failed to fuzz_log $1.failed, then printing what it said in one piece.
fuzz_package() {
  local pkg=$1 dir=$2 target failed=0 inputs_before inputs_after log
  shift 2
  log=$(fuzz_log "$pkg")
  {
    if ! go test -c -fuzz=. -o "$(fuzz_binary "$pkg")" "$pkg" >"$log" 2>&1; then
      echo "fuzz FAIL $pkg: building its fuzzing test binary"; tail -n 40 "$log"
      failed=$#
    else
      for target in "$@"; do
        inputs_before=$(failing_inputs "$dir/testdata/fuzz/$target")
        if fuzz_once "$pkg" "$target" "$dir"; then
          echo "fuzz ok   $pkg $target ($FUZZTIME)"
          continue
        fi
        inputs_after=$(failing_inputs "$dir/testdata/fuzz/$target")
        if spurious_fuzz_failure "$pkg" "$target" "$dir" "$inputs_after" "$inputs_before"; then
          echo "fuzz again $pkg $target: the coordinator failed with no finding ($(grep -m1 -E '^    (context|fuzzing process)' "$log" | sed 's/^ *//'))"
          if fuzz_once "$pkg" "$target" "$dir"; then
            echo "fuzz ok   $pkg $target ($FUZZTIME)"
            continue
          fi
        fi
        echo "fuzz FAIL $pkg $target"; tail -n 40 "$log"; failed=$((failed + 1))
      done
    fi
  } >"$log.out"
  echo "$failed" >"$log.failed"
  rm -f "$(fuzz_binary "$pkg")"
  flock "$fuzz_out_dir" cat "$log.out"
}
# fuzz_all fuzzes every package of fuzz_queue, the packages with the most
# targets first, as many at a time as FUZZJOBS once the tests have ended
# (the file $tests_done exists) and one at a time before: it starts when
# the first of the three test runs ends, and the other two still use the
# cores.
fuzz_all() {
  local limit
  while read -r _ pkg dir targets; do
    [ -n "$pkg" ] || continue
    # Looked at every second, not on a job's end: the tests may end while
    # one package is being fuzzed, and a second may start then.
    while :; do
      limit=1
      [ -e "$tests_done" ] && limit=$FUZZJOBS
      [ "$(jobs -rp | wc -l)" -ge "$limit" ] || break
      sleep 1
    done
    # shellcheck disable=SC2086 # the targets are words
    fuzz_package "$pkg" "$dir" $targets &
  done <<<"$fuzz_queue"
  wait
}
fuzz_queue=
if [ "$FUZZTIME" != 0 ]; then
  mkdir -p "$fuzz_bin_dir" "$fuzz_out_dir"
  # The targets are read from the test files rather than with `go test
  # -list`, which would link every package's test binary once more; each
  # line: how many targets, the package, its directory, its targets.
  fuzz_queue=$(go list -f '{{.ImportPath}} {{.Dir}}' $PKGS | while read -r pkg dir; do
    targets=$(sed -n -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$dir"/*_test.go 2>/dev/null || true)
    [ -z "$targets" ] || echo "$(wc -w <<<"$targets") $pkg $dir" $targets
  done | sort -s -k1,1 -n -r)
fi
tests_done="$log_dir/tests-done"

# --- tests -----------------------------------------------------------------
# The concurrent packages (the poller, the API, the stores, duplicate
# detection, the web interface, the command) run under the race detector;
# the rest, single-threaded, without it, so that the whole suite stays
# under 15 minutes on two cores (README.md "Tests, reliability and benchmarks").
race_re='^github\.com/dynamo-feeds/dynamo/(poller|api|storage(/.*)?|dedup|web|cmd/dynamo)$'
all_pkgs=$(go list $PKGS)
race_pkgs=$(grep -E "$race_re" <<<"$all_pkgs" || true)
plain_pkgs=$(grep -v -E "$race_re" <<<"$all_pkgs" || true)
# dedup's search for its default thresholds is single-threaded arithmetic
# over the labelled pairs: over 8 minutes under -race for nothing the race
# detector could find, so it runs without it. So do dedup's other tests
# over the labelled pairs and the synthetic window (the decision's table,
# the candidate stages, Load rebuilding the stories, the window's search
# against a scan): dedup starts no goroutine, and in these tests one
# goroutine changes what they touch (the candidate stages' goroutines only
# read), so the detector, which reports accesses from two goroutines, has
# nothing to find; about a minute of CPU under -race. dedup's concurrent
# tests (TestStoriesConcurrentPolls, TestWindowConcurrentSearchesAndAdds)
# stay under -race.
race_skip='^(TestDefaultThresholdsAreTheSearchsBest|TestLabelledPairs|TestCandidateStages|TestStoriesLoadRebuildsRecordedStories|TestWindowSearchEqualsScan)$'
# The archived-feed walk reads 2,500 items under -race; its full 25,000
# items (about half a minute) run once more without it.
full_walk='^TestArchivedFeedWalk$'
# serve's memory bound with 2,000 sources, and a listing and an archive
# larger than serve's memory, are left out of the -race run (the
# detector's shadow memory is no measure of what serve holds, and its
# reports in serve's process, a child of the test, are never read; run by
# hand under -race, the tests skip saying so) and run here without it.
streamed='^(TestServeMemoryBound|TestServeStreams(Listing|Archive)LargerThanMemory)$'
# The page-size rule's tests at the limits (docs/WRAPPER.md, "Size cap")
# and the playground's bound on a 20 MiB page of ten million lines are
# left out of the -race run too: nearly all their CPU is one request at a
# time reading, parsing and suggesting pages of 10 and 20 MiB, under the
# detector's instrumentation of every byte (54 s of CPU for the five
# under it, 6 s without, each run alone, 2026-11-24 22:30 UTC). Their
# goroutines (the loopback servers and clients, the poller's one poll)
# are those of the packages' other tests, which stay under -race with
# small pages: the detector could find nothing in them that the page's
# size adds. They run here without it, and so do cmd/dynamo's dense
# pages (annotated without their dates to fit, refused when titles and
# links alone would not fit), which skip themselves under -race and so
# would run nowhere (1.6 s for the two without it).
big_pages='^(TestWrapPagesAtTheSizeLimit|TestPollPagesAtTheSizeLimit|TestPlaygroundPagesAtTheSizeLimit|TestPlaygroundLongPagesBounded|TestPageSizeRuleCommands|TestAnnotateRefusesAPageItsReadersWouldNot|TestAnnotateLeavesOutDatesToFit)$'
# go test's own vet step is off (-vet=off): `go vet $PKGS` above has run
# every check it runs, and more, on the same packages and test files; left
# on, it would vet every package again for each build (race and not).
#
# The tests the race run leaves out run without the detector in one `go
# test` (the five packages side by side), and the three runs (under the
# race detector, the tests it leaves out, the other packages) run side by
# side, each with its own log, gathered in that order once all are done:
# each run waits on its slowest package and on PostgreSQL, child
# processes and loopback peers, and dedup's search uses one core, so that
# one after the other they left a core idle for much of the time (the
# tests phase of 97c1b6c took 705 s on two cores, README.md, for about
# 860 s of CPU: 405 s under -race, 318 s the other packages, 134 s the
# tests left out, measured 2026-11-24 22:03-22:33 UTC).
outside_race=$(grep -x -E 'github\.com/dynamo-feeds/dynamo/(dedup|api|cmd/dynamo|poller|web)' <<<"$race_pkgs" || true)
status=0
race_pid=
outside_pid=
: >"$log_dir/test-race.log"
: >"$log_dir/test-outside-race.log"
: >"$log_dir/test-plain.log"
if [ -n "$race_pkgs" ]; then
  go test -vet=off -race -count=1 -timeout 20m -v -skip "$race_skip|$streamed|$big_pages" $race_pkgs >"$log_dir/test-race.log" 2>&1 &
  race_pid=$!
fi
if [ -n "$outside_race" ]; then
  go test -vet=off -count=1 -timeout 20m -v -run "$race_skip|$full_walk|$streamed|$big_pages" $outside_race >"$log_dir/test-outside-race.log" 2>&1 &
  outside_pid=$!
fi
plain_pid=
if [ -n "$plain_pkgs" ]; then
  go test -vet=off -count=1 -timeout 20m -v $plain_pkgs >"$log_dir/test-plain.log" 2>&1 &
  plain_pid=$!
fi
# Fuzzing starts when the first of the runs ends, one package at a time
# until the others have ended too (fuzz_all): the tests' last minutes,
# one or two long tests at a time, leave a core idle (the tests phase of
# 6450b5d+: 556 s of wall on two cores, about 830 s of CPU). Its output
# is kept and printed after the tests'. It runs whether or not the tests
# pass; the suite fails if either does.
fuzz_pid=
runs=$(echo $race_pid $outside_pid $plain_pid)
while [ -n "$runs" ]; do
  ended=
  wait -n -p ended $runs || status=$?
  runs=$(tr ' ' '\n' <<<"$runs" | { grep -v -x "$ended" || true; } | tr '\n' ' ' | sed 's/ *$//')
  if [ -z "$fuzz_pid" ] && [ -n "$fuzz_queue" ]; then
    fuzz_start=$SECONDS
    fuzz_all >"$log_dir/fuzz.out" 2>&1 &
    fuzz_pid=$!
  fi
done
: >"$tests_done"
cat "$log_dir/test-race.log" "$log_dir/test-plain.log" "$log_dir/test-outside-race.log" >"$log_dir/test.log"
# Everything but the per-test chatter of passing tests.
grep -v -E '^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|SKIP):)' "$log_dir/test.log" \
  | grep -v -E '^\s+\S+_test\.go:[0-9]+: ' || true
if [ "$status" != 0 ]; then
  echo; echo "---- failures in full ----"
  # Each failed test's own lines, from its last === RUN or === CONT to its
  # --- FAIL (the summary above leaves out the _test.go lines that say why).
  for name in $(sed -n -E 's/^\s*--- FAIL: (\S+) .*/\1/p' "$log_dir/test.log" | sort -u); do
    echo "== $name"
    awk -v n="$name" '{ s = $0; sub(/^[ \t]+/, "", s) }
      s == "=== RUN   " n || s == "=== CONT  " n { buf = ""; keep = 1 }
      keep { buf = buf $0 "\n" }
      keep && index(s, "--- FAIL: " n " (") == 1 { printf "%s", buf; buf = ""; keep = 0 }' \
      "$log_dir/test.log" | tail -n 60
  done
  grep -E -B2 -A30 '^panic:|^FAIL' "$log_dir/test.log" | head -n 200 || true
fi
passed=$(grep -c -E '^\s*--- PASS:' "$log_dir/test.log" || true)
failed=$(grep -c -E '^\s*--- FAIL:' "$log_dir/test.log" || true)
skipped=$(grep -c -E '^\s*--- SKIP:' "$log_dir/test.log" || true)
# The skipped tests by name, with the reason each gave: go test -v streams a
# test's log lines under its "=== RUN/NAME/CONT name" header, so the last
# such line of a test is its reason; the line after "--- SKIP" is taken
# when nothing was streamed for it.
if [ "$skipped" != 0 ]; then
  echo "skipped:"
  awk 'function show(r) { sub(/^[ \t]+/, "", r); print "  " name ": " r; pending = 0 }
    pending { show($0 ~ /^[ \t]+[^ \t]+\.go:[0-9]+:/ ? $0 : "(no reason given)") }
    /^=== (RUN|NAME|CONT)/ { current = $3 }
    /^[ \t]+[^ \t]+\.go:[0-9]+:/ { reason[current] = $0 }
    /^[ \t]*--- SKIP:/ { name = $3; if (name in reason) show(reason[name]); else pending = 1 }
    END { if (pending) show("(no reason given)") }' "$log_dir/test.log"
fi
if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi # a build failure or panic

test_seconds=$((SECONDS - phase_start))
fuzz_failed=0
fuzz_seconds=0
if [ -n "$fuzz_pid" ]; then
  wait "$fuzz_pid" || true
  fuzz_seconds=$((SECONDS - fuzz_start))
  cat "$log_dir/fuzz.out"
  # Each package's count of failed targets; a package whose job left no
  # count (it was killed) counts all its targets.
  while read -r n pkg _; do
    [ -n "$pkg" ] || continue
    if [ -e "$(fuzz_log "$pkg").failed" ]; then n=$(cat "$(fuzz_log "$pkg").failed"); fi
    fuzz_failed=$((fuzz_failed + n))
  done <<<"$fuzz_queue"
fi

echo
if [ -d "$DYNAMO_ARTIFACTS/web" ]; then
  echo "browser screenshots: $DYNAMO_ARTIFACTS/web/ ($(ls "$DYNAMO_ARTIFACTS/web" | wc -l) files)"
fi
echo "phases: static checks $static_seconds s, tests $test_seconds s, fuzzing $fuzz_seconds s from the first test run's end (wall; tests and fuzzing overlap), in all $((SECONDS - suite_start)) s"
echo "tests: $passed passed, $((failed + fuzz_failed)) failed, $skipped skipped"
[ "$status" = 0 ] && [ "$fuzz_failed" = 0 ]

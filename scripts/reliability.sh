#!/usr/bin/env bash
# Dynamo's whole reliability suite (SPEC §12, §13; issue 10), long versions,
# runnable on a fresh Debian machine with Go. It takes about a quarter of an
# hour and stops by itself; everything it runs talks to 127.0.0.1 only.
#
# It installs what it needs (what scripts/test.sh installs, plus wrk,
# rss-bridge and php-cli), provides a PostgreSQL server the way
# scripts/test.sh does (DYNAMO_TEST_DATABASE_URL if set, else one answering
# on 127.0.0.1:5432, else a throwaway cluster it starts and stops itself),
# then runs `go test -tags long ./reliability/...` with DYNAMO_RELIABILITY_LONG=1
# (the tag adds the tests that exist for the record: wrk, RSS-Bridge), one
# package at a time so that the load figures are not taken beside the
# failure tests:
#
#   reliability/        failures (kill -9 mid-poll, PostgreSQL restarted,
#                       disk full, hostile origins) and hostile input, long
#   reliability/load/   the API for a minute at 256 connections (Go load
#                       generator, each answer checked), wrk for a minute at
#                       256 connections against the built `dynamo serve` on
#                       each store plus issue 5's cached/from-memory/uncached
#                       benchmark, `dynamo serve`'s memory with 10,000
#                       sources, and the same feed beside RSS-Bridge
#
# It prints every figure (the RESULT lines) with the machine and its load,
# and ends with `reliability: N passed, M failed`; it exits non-zero when
# anything failed. RELIABILITY_LOG=FILE keeps the full test log.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

# --- tools and PostgreSQL --------------------------------------------------
missing=()
[ -x /usr/bin/xmllint ] || missing+=(libxml2-utils)
[ -x /usr/bin/jing ] || missing+=(jing)
/usr/bin/python3 -c 'import feedparser' 2>/dev/null || missing+=(python3-feedparser)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v curl >/dev/null || missing+=(curl)
command -v wrk >/dev/null || missing+=(wrk)
command -v php >/dev/null || missing+=(php-cli)
[ -f /usr/share/rss-bridge/bridges/XPathBridge.php ] || missing+=(rss-bridge)
[ -n "$pg_bin" ] || missing+=(postgresql)
install_missing "${missing[@]}"
provide_postgres 300

# --- the machine -----------------------------------------------------------
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPU, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(free -g | awk '/^Mem:/ {print $2}') GB RAM, $(go version | cut -d' ' -f3), $(wrk --version 2>&1 | head -n 1 | cut -d' ' -f1-2)"
echo "load:    $(uptime | sed 's/.*load average/load average/')"

# --- the suite -------------------------------------------------------------
started=$(date +%s)
status=0
DYNAMO_RELIABILITY_LONG=1 go test -tags long -count=1 -p 1 -timeout 28m -v ./reliability/... >"$log_dir/test.log" 2>&1 || status=$?
[ -n "${RELIABILITY_LOG:-}" ] && cp "$log_dir/test.log" "$RELIABILITY_LOG"

echo
echo "---- figures ----"
grep -E 'RESULT \|' "$log_dir/test.log" | sed -E 's/^\s+\S+_test\.go:[0-9]+: RESULT //' || true
echo
echo "---- tests ----"
grep -E '^\s*--- (PASS|FAIL|SKIP):|^(ok|FAIL)\s' "$log_dir/test.log" || true
if [ "$status" != 0 ]; then
  echo; echo "---- failures in full ----"
  grep -E -B2 -A40 '^\s*--- FAIL|^panic:|^FAIL' "$log_dir/test.log" | head -n 400 || true
fi
passed=$(grep -c -E '^\s*--- PASS:' "$log_dir/test.log" || true)
failed=$(grep -c -E '^\s*--- FAIL:' "$log_dir/test.log" || true)
skipped=$(grep -c -E '^\s*--- SKIP:' "$log_dir/test.log" || true)
if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi # a build failure, panic or timeout

echo
echo "took $(( ($(date +%s) - started) / 60 )) min; $skipped skipped; $(uptime | sed 's/.*load average/load average/')"
echo "reliability: $passed passed, $failed failed"
[ "$status" = 0 ]

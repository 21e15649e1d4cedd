#!/bin/sh
# etldump --help and --version: usage on stdout, exit 0.
E=${ETLDUMP:-./build/bin/etldump}
fail() { echo "FAIL: $*"; exit 1; }

out=$("$E" --help) || fail "--help exited $?"
printf '%s\n' "$out" | grep -q -- '--summary' || fail "--help does not mention --summary"
printf '%s\n' "$out" | grep -q -- '--provider' || fail "--help does not mention the filters"
printf '%s\n' "$out" | grep -q '^Usage: etldump' || fail "--help has no Usage line"

out=$("$E" -h) || fail "-h exited $?"
printf '%s\n' "$out" | grep -q -- '--count' || fail "-h does not mention --count"

out=$("$E" --version) || fail "--version exited $?"
printf '%s\n' "$out" | grep -Eq '^etldump \(libetl\) [0-9]+\.[0-9]+\.[0-9]+$' || fail "bad --version output: $out"
exit 0

#!/bin/sh
# The etldump filters select the events written; the logfile header and
# the other header-buffer records are always kept.
# wdi-shutdown-perfdiag-kernel.etl (airbus-cert/etl-parser, Apache-2.0):
# 17078 records, 3 of them in the header buffer (Header, Extension,
# PartitionInfoExtension); PERFINFO64 8645, SYSTEM64 8433; Process 328.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/wdi-shutdown-perfdiag-kernel.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

records() { "$E" --summary --json "$1" | sed -n 's/^  "records": \([0-9]*\),$/\1/p'; }

"$X" --type PERFINFO64 "$F" -o "$d/o.etl" || fail "--type: exit $?"
[ "$(records "$d/o.etl")" = 8648 ] || fail "--type PERFINFO64: $(records "$d/o.etl") records, expected 8645 + 3"
"$E" --summary --json "$d/o.etl" | grep -q '"header_types": {"SYSTEM64": 3, "PERFINFO64": 8645}' ||
	fail "--type PERFINFO64: header types"
"$E" --type PERFINFO64 "$F" > "$d/a"
"$E" --type PERFINFO64 "$d/o.etl" > "$d/b"
cmp -s "$d/a" "$d/b" || fail "--type PERFINFO64: listing differs"

"$X" --provider process "$F" -o "$d/o.etl" || fail "--provider: exit $?"
[ "$(records "$d/o.etl")" = 331 ] || fail "--provider Process: $(records "$d/o.etl") records, expected 328 + 3"
[ "$("$E" --count --provider Process "$d/o.etl")" = 328 ] || fail "--provider Process: count"

# Repeated --type: either; with --provider: both.
"$X" --type PERFINFO64 --type SYSTEM64 "$F" -o "$d/o.etl" || fail "two --type: exit $?"
[ "$(records "$d/o.etl")" = 17078 ] || fail "two --type: $(records "$d/o.etl") records"
"$X" --type SYSTEM64 --provider Process "$F" -o "$d/o.etl" || fail "--type --provider: exit $?"
n=$("$E" --count --type SYSTEM64 --provider Process "$F")
[ "$(records "$d/o.etl")" = $((n + 3)) ] || fail "--type --provider: $(records "$d/o.etl") records, expected $n + 3"

# A time window (UTC).
n=$("$E" --count --since 2020-02-28T17:15:49 --until 2020-02-28T17:15:50.5 "$F")
[ "$n" -gt 0 ] || fail "time window selects nothing in the input"
"$X" --since 2020-02-28T17:15:49 --until 2020-02-28T17:15:50.5 "$F" -o "$d/o.etl" || fail "--since/--until: exit $?"
[ "$(records "$d/o.etl")" = $((n + 3)) ] || fail "--since/--until: $(records "$d/o.etl") records, expected $n + 3"

# Relative to the trace start (StartTime 09:03:47.74, events from 17:15:47).
n=$("$E" --count --since 29521 --until 29522.5 "$F")
[ "$n" -gt 0 ] || fail "relative window selects nothing in the input"
"$X" --since 29521 --until 29522.5 "$F" -o "$d/o.etl" || fail "relative --since/--until: exit $?"
[ "$(records "$d/o.etl")" = $((n + 3)) ] || fail "relative --since/--until: $(records "$d/o.etl") records, expected $n + 3"

# Nothing matches: only the header records remain.
"$X" --pid 4294967295 "$F" -o "$d/o.etl" || fail "--pid: exit $?"
[ "$(records "$d/o.etl")" = 3 ] || fail "--pid: $(records "$d/o.etl") records, expected 3"
exit 0

#!/bin/sh
# Several inputs are merged in time order into one file. Design: the output
# keeps the first input's header-buffer records (Header + the records after
# it) and drops every other input's, so
#   records(out) = sum of records(in) - header-buffer records of inputs 2..n.
# The logfile header is the first input's with LogFileName "[multiple
# files]" and RELOG; the clock anchor is the earliest input's; lost counts
# add up. Corpus sources: ../shared/corpus/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

records() { "$E" --summary --json "$1" | sed -n 's/^  "records": \([0-9]*\),$/\1/p'; }
sorted_times() { cut -c1-28 "$1" | sort -c 2>/dev/null; }

# wsl-lxcore (2020-07-14, 4 records, 2 in the header buffer) first, then
# amsi (2020-02-17, 21 records, 2 in the header buffer): 4 + 21 - 2.
a=$C/wsl-lxcore-tracelogging.etl
b=$C/amsi-tracelogging.etl
"$X" -f etl "$a" "$b" -o "$d/m.etl" 2>"$d/err" || fail "exit $? ($(cat "$d/err"))"
[ "$(records "$d/m.etl")" = 23 ] || fail "$(records "$d/m.etl") records, expected 23"
"$E" "$d/m.etl" > "$d/out" || fail "output unreadable"
sorted_times "$d/out" || fail "listing not in time order: $(cat "$d/out")"
h=$("$E" --header "$d/m.etl")
printf '%s\n' "$h" | grep -q '^  log_file_name  *"\[multiple files\]"$' || fail "log_file_name"
printf '%s\n' "$h" | grep -q '^  logger_name  *"lxcore_kernel"$' || fail "logger_name is not the first input's"
printf '%s\n' "$h" | grep -q '^  log_file_mode  *0x00010000 RELOG$' || fail "log_file_mode"
printf '%s\n' "$h" | grep -q '^  start_time  *2020-02-17T12:48:30.4203138Z' || fail "start_time is not the earliest input's"
printf '%s\n' "$h" | grep -q '^  events_lost  *3$' || fail "events_lost is not 0 + 3"
printf '%s\n' "$h" | grep -q '^  end_time  *2020-07-14T' || fail "end_time is not the latest"
# Every event of both inputs, at its own time (both clocks are 10 MHz QPC,
# so re-expressed timestamps convert back exactly); header records apart.
"$E" "$a" "$b" | grep 'cpu=' | grep -v -e 'EventTrace/Header ' -e 'EventTrace/PartitionInfoExtension ' | sort > "$d/x"
grep -v -e 'EventTrace/Header ' -e 'EventTrace/PartitionInfoExtension ' "$d/out" | sort > "$d/y"
cmp -s "$d/x" "$d/y" || fail "events differ: $(diff "$d/x" "$d/y" | head -5)"
[ "$(grep -c 'EventTrace/Header ' "$d/out")" = 1 ] || fail "not one logfile header record"
[ "$(grep -c 'EventTrace/PartitionInfoExtension ' "$d/out")" = 1 ] || fail "not one PartitionInfoExtension"
# The kept header records are stamped with the output's start.
head -2 "$d/out" | cut -c1-28 | uniq | grep -c . | grep -q '^1$' || fail "header records not at the start"

# A file merged with itself (--allow-same-input: refused without it; same
# clock: timestamps kept): every event
# twice, in order; wdi-shutdown has 17078 records, 3 in the header buffer.
f=$C/wdi-shutdown-perfdiag-kernel.etl
"$X" --allow-same-input "$f" "$f" -o "$d/m.etl" || fail "self merge: exit $?"
[ "$(records "$d/m.etl")" = $((2 * 17078 - 3)) ] || fail "self merge: $(records "$d/m.etl") records"
"$E" "$f" | sed 1,3d | awk '{ print; print }' > "$d/x"
"$E" "$d/m.etl" | sed 1,3d > "$d/y"
cmp -s "$d/x" "$d/y" || fail "self merge: listing is not each event twice"

# Different anchors with a 2.3 MHz clock (win7-classic-process-32, 3
# records, then win7-classic-image-32, 27 records, started 6 s earlier; 1
# header-buffer record each): timestamps of the first are re-expressed in
# the second's clock, within half a tick (2 x 100 ns) of their time.
a=$C/win7-classic-process-32.etl
b=$C/win7-classic-image-32.etl
"$X" "$a" "$b" -o "$d/m.etl" || fail "2.3 MHz: exit $?"
[ "$(records "$d/m.etl")" = 29 ] || fail "2.3 MHz: $(records "$d/m.etl") records, expected 29"
"$E" "$d/m.etl" > "$d/out"
sorted_times "$d/out" || fail "2.3 MHz: not in time order"
"$E" "$a" "$b" | grep 'cpu=' | grep -v 'EventTrace/Header ' | cut -c30- | sort > "$d/x"
grep -v 'EventTrace/Header ' "$d/out" | cut -c30- | sort > "$d/y"
cmp -s "$d/x" "$d/y" || fail "2.3 MHz: events differ"
t=$("$E" "$a" | grep 'op=1 ' | cut -c18-27)
u=$(grep 'op=1 ' "$d/out" | grep -v 'Image' | cut -c18-27)
[ -n "$t" ] && [ -n "$u" ] || fail "2.3 MHz: no Process op=1 event"
diff=$(( $(echo "$u" | sed 's/^0*//;s/\.//') - $(echo "$t" | sed 's/^0*//;s/\.//') ))
[ "$diff" -ge -2 ] && [ "$diff" -le 2 ] || fail "2.3 MHz: time moved by $diff x 100 ns ($t -> $u)"

# A compressed input and an uncompressed one: 179474 + 17078 - 3; the
# output's buffers are compressed like the first input's.
"$X" "$C/perfview-kernel-clr-x64-compressed.etl" "$C/wdi-shutdown-perfdiag-kernel.etl" -o "$d/m.etl" ||
	fail "big merge: exit $?"
[ "$(records "$d/m.etl")" = 196549 ] || fail "big merge: $(records "$d/m.etl") records"
"$E" "$d/m.etl" > "$d/out"
sorted_times "$d/out" || fail "big merge: not in time order"
"$E" --summary --json "$d/m.etl" | grep -q '"compressed_buffers": 0,' && fail "big merge: not compressed"

# Filters apply to every input.
"$X" --provider EventTrace "$C/wdi-shutdown-perfdiag-kernel.etl" "$C/amsi-tracelogging.etl" -o "$d/m.etl" ||
	fail "filtered merge: exit $?"
n=$("$E" --count --provider EventTrace "$C/wdi-shutdown-perfdiag-kernel.etl")
[ "$(records "$d/m.etl")" = "$n" ] || fail "filtered merge: $(records "$d/m.etl") records, expected $n"
exit 0

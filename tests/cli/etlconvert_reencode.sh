#!/bin/sh
# etlconvert -f etl re-encodes every event. For every corpus file (see
# ../shared/corpus/INDEX.md for sources), the output read back by etldump
# has the same records, header types, extended item types and logfile
# fields (--summary --json), and the same event listing in time order,
# byte for byte, payload hex dumps included.
#
# The one record whose bytes differ is the logfile header (the writer makes
# it afresh): BuffersWritten, LogFileMode without CIRCULAR/NEWFILE, and the
# LoggerName/LogFileName pointer fields (the timer sources on Windows 7+),
# which the writer sets to 0 for now. Its event line is still identical (same size,
# pid, tid and time); only its hex dump is left out of the comparison.
# The file-order listing is not compared: the writer fills each
# processor's buffers completely, so buffers are flushed in another order.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# The summary lines that must agree.
fields() {
	"$E" --summary --json "$1" |
		grep -E '^ *"(records|header_types|ext_item_types|logger_name|pointer_size|build|version|clock_type|perf_freq|events_lost|buffers_lost)":'
}
# Hex listing without the logfile header record's dump.
hexlist() {
	"$E" --hex "$1" | awk '/^    / { if (skip) next; print; next }
	                       { skip = ($0 ~ /EventTrace\/Header /); print }'
}

n=0
for f in "$C"/*.etl; do
	b=$(basename "$f")
	"$X" -f etl "$f" -o "$d/out.etl" 2>"$d/err" || fail "$b: exit $? ($(cat "$d/err"))"
	[ -s "$d/err" ] && fail "$b: stderr: $(cat "$d/err")"
	fields "$f" > "$d/a" || fail "$b: etldump failed on the input"
	fields "$d/out.etl" > "$d/b" || fail "$b: etldump failed on the output"
	[ "$(wc -l < "$d/a")" -eq 11 ] || fail "$b: summary fields missing: $(cat "$d/a")"
	cmp -s "$d/a" "$d/b" || fail "$b: summary differs: $(diff "$d/a" "$d/b")"
	"$E" "$f" > "$d/a"
	"$E" "$d/out.etl" > "$d/b" || fail "$b: etldump exit $? on the output"
	cmp -s "$d/a" "$d/b" || fail "$b: listing differs: $(diff "$d/a" "$d/b" | head -5)"
	hexlist "$f" > "$d/a"
	hexlist "$d/out.etl" > "$d/b"
	cmp -s "$d/a" "$d/b" || fail "$b: hex listing differs: $(diff "$d/a" "$d/b" | head -5)"
	# The header records after the logfile header are the input's.
	"$E" --header "$f" | sed -n '/^header buffer records/,$p' | sed 's/^  0x[0-9a-f]*//' > "$d/a"
	"$E" --header "$d/out.etl" | sed -n '/^header buffer records/,$p' | sed 's/^  0x[0-9a-f]*//' > "$d/b"
	cmp -s "$d/a" "$d/b" || fail "$b: header records differ: $(diff "$d/a" "$d/b")"
	n=$((n + 1))
done
[ $n -ge 18 ] || fail "only $n corpus files"

# LogFileMode: CIRCULAR becomes FILE_MODE_SEQUENTIAL, NEWFILE is dropped,
# the other bits stay (clr-gc-circular: 0x8000002; powershell: 0x9).
"$X" "$C/clr-gc-circular.etl" -o "$d/out.etl" || fail "circular: exit $?"
"$E" --summary --json "$d/out.etl" | grep -q '"log_file_mode": 134217729,' || fail "circular: mode"
"$X" "$C/powershell-manifest.etl" -o "$d/out.etl" || fail "newfile: exit $?"
"$E" --summary --json "$d/out.etl" | grep -q '"log_file_mode": 1,' || fail "newfile: mode"

# A processor above the header's number_of_processors (patched to 2 in a
# copy of amsi-tracelogging, whose events are on processors 2 to 7): the
# output has 8 and every event keeps its processor.
cp "$C/amsi-tracelogging.etl" "$d/np.etl" && chmod u+w "$d/np.etl"
printf '\002' | dd of="$d/np.etl" bs=1 seek=116 conv=notrunc 2>/dev/null
"$E" --header "$d/np.etl" | grep -q 'number_of_processors *2$' || fail "patch failed"
"$X" "$d/np.etl" -o "$d/out.etl" || fail "processors: exit $?"
"$E" --header "$d/out.etl" | grep -q 'number_of_processors *8$' || fail "processors: not raised to 8"
"$E" "$d/np.etl" > "$d/a"
"$E" "$d/out.etl" > "$d/b"
cmp -s "$d/a" "$d/b" || fail "processors: listing differs"

# Standard input and a truncated input (exit 2: damage reported, every
# complete record converted).
f=$C/wsl-lxcore-tracelogging.etl
cat "$f" | "$X" - -o "$d/out.etl" || fail "stdin: exit $?"
"$E" "$f" > "$d/a"
"$E" "$d/out.etl" > "$d/b"
cmp -s "$d/a" "$d/b" || fail "stdin: listing differs"
head -c 100000 "$C/amsi-tracelogging.etl" > "$d/cut.etl"
"$X" "$d/cut.etl" -o "$d/out.etl" 2>"$d/err"
rc=$?
[ $rc -eq 2 ] || fail "truncated: exit $rc, expected 2"
grep -q "^etlconvert: $d/cut.etl: offset 0x10000: " "$d/err" || fail "truncated: stderr: $(cat "$d/err")"
"$E" "$d/cut.etl" > "$d/a" 2>/dev/null
"$E" "$d/out.etl" > "$d/b" || fail "truncated: output unreadable"
cmp -s "$d/a" "$d/b" || fail "truncated: listing differs"
[ "$(grep -c 'Z  cpu=' "$d/b")" -eq 13 ] || fail "truncated: not 13 events"
exit 0

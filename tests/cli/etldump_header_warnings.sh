#!/bin/sh
# What the logfile header tells against the file is visible (issue 10,
# point 3): a sequential file shorter than its header's BuffersWritten
# exits 2 in every mode and --summary (text and --json "warnings") says so
# with both figures, also when cut exactly at a buffer boundary; an
# EndTime before the last event and lost events are warnings.
# amsi-tracelogging.etl (airbus-cert/etl-parser, Apache-2.0): 6 buffers of
# 64 KiB, 21 records, EventsLost 3.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

for n in 1 2 5; do
	head -c $((n * 65536)) "$C/amsi-tracelogging.etl" > "$d/t.etl"
	want="it holds $n buffers, the header counts 6 written"
	for mode in "" "-F" "--summary" "--summary --json" "--count" "--buffers"; do
		# shellcheck disable=SC2086
		"$E" $mode "$d/t.etl" >"$d/out" 2>"$d/err"
		rc=$?
		[ $rc -eq 2 ] || fail "$n buffers [$mode]: exit $rc, expected 2"
		grep -q "$want" "$d/err" || fail "$n buffers [$mode]: stderr: $(cat "$d/err")"
	done
	"$E" --summary "$d/t.etl" 2>/dev/null | sed -n '/^warnings/,$p' > "$d/w"
	grep -q "^  offset 0x[0-9a-f]*: The file is shorter than its logfile header says: $want" "$d/w" ||
		fail "$n buffers: --summary warnings: $(cat "$d/w")"
	"$E" --summary --json "$d/t.etl" 2>/dev/null | sed -n '/"warnings": \[/,/\]/p' > "$d/w"
	grep -q "\"message\": \"The file is shorter than its logfile header says: $want" "$d/w" ||
		fail "$n buffers: --json warnings: $(cat "$d/w")"
done

# The whole file: clean, but the session's losses are warnings.
"$E" --summary "$C/amsi-tracelogging.etl" > "$d/out" || fail "whole file: exit $?"
grep -q '^warnings  *1$' "$d/out" || fail "whole file: $(sed -n '/^warnings/,$p' "$d/out")"
grep -q 'The session lost 3 events (EventsLost in the logfile header)' "$d/out" ||
	fail "whole file: no lost-events warning"
grep -q shorter "$d/out" && fail "whole file: called shorter"

# EndTime (logfile header payload 0x10, at 0x78 here) set before the
# events: a warning in text and JSON, exit 0.
cp "$C/amsi-tracelogging.etl" "$d/e.etl" && chmod u+w "$d/e.etl"
printf '\001\000\000\000\000\000\000\001' | dd of="$d/e.etl" bs=1 seek=$((0x78)) conv=notrunc 2>/dev/null
"$E" --summary "$d/e.etl" > "$d/out" || fail "EndTime: exit $?"
grep -q "offset 0x78: The logfile header's EndTime (.*) is earlier than the last event" "$d/out" ||
	fail "EndTime: $(sed -n '/^warnings/,$p' "$d/out")"
"$E" --summary --json "$d/e.etl" | grep -q '"offset": 120, "message": "The logfile header.s EndTime' ||
	fail "EndTime: --json"

# BuffersLost (logfile header payload 0x114 with 8-byte pointers, at 0x17C
# here) set to 2: a warning beside the lost events, in text and JSON, exit 0.
cp "$C/amsi-tracelogging.etl" "$d/b.etl" && chmod u+w "$d/b.etl"
printf '\002\000\000\000' | dd of="$d/b.etl" bs=1 seek=$((0x17C)) conv=notrunc 2>/dev/null
"$E" --summary "$d/b.etl" > "$d/out" || fail "BuffersLost: exit $?"
grep -q '^warnings  *2$' "$d/out" || fail "BuffersLost: $(sed -n '/^warnings/,$p' "$d/out")"
grep -q 'The session lost 2 buffers (BuffersLost in the logfile header): their events are not in the file' \
	"$d/out" || fail "BuffersLost: no lost-buffers warning"
"$E" --summary --json "$d/b.etl" | grep -q '"message": "The session lost 2 buffers (BuffersLost' ||
	fail "BuffersLost: --json"
exit 0

#!/bin/sh
# --order-memory (every tool): time order inflates one compressed buffer per
# processor at once, at most N bytes of them together (default 1G). A
# buffer past the limit is reported at its offset, as damage (exit 2), and
# skipped; the other events are still read. File order (etldump -F) holds
# one buffer and ignores the limit. The PerfView file has 359 compressed
# buffers of up to 64 KiB on 8 processors: 179474 events (expected.json).
E=${ETLDUMP:-./build/bin/etldump}
B=$(dirname "$E")
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/perfview-kernel-clr-x64-compressed.etl
[ -f "$F" ] || { echo "SKIP: no $F"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
ALL=179474
[ "$(sed -n '/"perfview-kernel-clr-x64-compressed.etl"/,/"events"/s/.*"events": \([0-9]*\).*/\1/p' \
       "$C/expected.json")" = $ALL ] || fail "expected.json does not give $ALL events for the PerfView file"

for t in etldump etlconvert etlreplay; do
	"$B/$t" --help > "$d/help" || fail "$t --help"
	grep -q -- '--order-memory N\[K|M|G\]' "$d/help" || fail "$t --help does not document --order-memory"
	grep -q 'buffers, one per processor (default 1G)' "$d/help" || fail "$t --help does not give the default"
	"$B/$t" --order-memory 0 "$F" > /dev/null 2> "$d/err"
	[ $? -eq 1 ] && grep -q "invalid --order-memory '0'" "$d/err" || fail "$t: --order-memory 0 is not a usage error"
	"$B/$t" --order-memory 12Q "$F" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$t: --order-memory 12Q is not a usage error"
done

# The default, and 1M (8 x 64 KiB fit): every event, nothing reported.
for m in "" "--order-memory 1M"; do
	# shellcheck disable=SC2086
	"$E" $m -c "$F" > "$d/out" 2> "$d/err"
	[ $? -eq 0 ] && [ "$(cat "$d/out")" = $ALL ] && [ ! -s "$d/err" ] ||
		fail "etldump $m: exit $?, $(cat "$d/out") events, $(cat "$d/err")"
done

# 400K: buffers are skipped, each reported once at its own offset.
"$E" --order-memory 400K -c "$F" > "$d/out" 2> "$d/err"
rc=$?
n=$(cat "$d/out")
[ $rc -eq 2 ] || fail "400K: exit $rc, expected 2 (damage)"
[ "$n" -gt 0 ] && [ "$n" -lt $ALL ] || fail "400K: $n events"
skipped=$(grep -c 'Compressed buffer skipped: reading in time order' "$d/err")
[ "$skipped" -gt 0 ] && [ "$skipped" -eq "$(wc -l < "$d/err")" ] || fail "400K: $(head -3 "$d/err")"
grep -q 'past the time-order memory limit of 409600 bytes' "$d/err" || fail "400K: $(head -1 "$d/err")"
[ "$(sed -n 's/.*: offset \(0x[0-9a-f]*\): .*offset=\(0x[0-9a-f]*\),.*/\1 \2/p' "$d/err" |
     awk '$1 != $2' | wc -l)" -eq 0 ] || fail "400K: a report names another offset than its buffer's"
[ "$(sed -n 's/.*: offset \(0x[0-9a-f]*\): .*/\1/p' "$d/err" | sort -u | wc -l)" -eq "$skipped" ] ||
	fail "400K: a buffer reported twice"
# File order reads everything under the same limit.
"$E" --order-memory 400K -F -c "$F" > "$d/out" 2> "$d/err"
[ $? -eq 0 ] && [ "$(cat "$d/out")" = $ALL ] && [ ! -s "$d/err" ] || fail "-F 400K: $(cat "$d/out") $(cat "$d/err")"

# The summary says the most time order held: 8 processors x 64 KiB; in
# file order it says nothing (JSON: 0); under 400K it stays within it.
"$E" -s "$F" > "$d/s" 2> "$d/err" || fail "etldump -s: $(cat "$d/err")"
grep -qx 'time-order memory 524288 bytes at most in inflated buffers (--order-memory)' "$d/s" ||
	fail "etldump -s: $(sed -n 3p "$d/s")"
"$E" -s --json "$F" | grep -qx '  "order_memory_peak": 524288,' || fail "etldump -s --json: no peak of 524288"
"$E" -F -s --json "$F" | grep -qx '  "order_memory_peak": 0,' || fail "etldump -F -s --json: peak not 0"
"$E" -F -s "$F" > "$d/s" || fail "etldump -F -s"
! grep -q 'time-order memory' "$d/s" || fail "etldump -F -s names time-order memory"
p=$("$E" --order-memory 400K -s --json "$F" 2> /dev/null |
    sed -n 's/^  "order_memory_peak": \([0-9]*\),$/\1/p')
[ -n "$p" ] && [ "$p" -gt 0 ] && [ "$p" -le 409600 ] || fail "400K: peak ${p:-none}"

# etlconvert and etlreplay read in time order: the same reports, exit 2.
"$B/etlconvert" -q --order-memory 400K -f jsonl "$F" -o "$d/x.jsonl" 2> "$d/err"
[ $? -eq 2 ] || fail "etlconvert 400K: exit $?"
[ "$(wc -l < "$d/x.jsonl")" -eq "$n" ] || fail "etlconvert 400K: $(wc -l < "$d/x.jsonl") events, etldump $n"
[ "$(grep -c 'Compressed buffer skipped: reading in time order' "$d/err")" -eq "$skipped" ] ||
	fail "etlconvert 400K: $(head -2 "$d/err")"
"$B/etlreplay" -q --order-memory 400K "$F" -o "$d/r.etl" 2> "$d/err"
[ $? -eq 2 ] || fail "etlreplay 400K: exit $?"
[ "$(grep -c 'Compressed buffer skipped: reading in time order' "$d/err")" -eq "$skipped" ] ||
	fail "etlreplay 400K: $(head -2 "$d/err")"
exit 0

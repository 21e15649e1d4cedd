#!/bin/sh
# --buffers: one line per buffer with offset, sizes, flags, type, cpu,
# sequence and compressed -> inflated sizes
# (microsoft/perfview SelfDescribingSingleEvent.etl, MIT).
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

out=$("$E" --buffers "$C/eventsource-selfdescribing-compressed.etl") || fail "exit $?"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] || fail "expected 3 lines: $out"
l1=$(printf '%s\n' "$out" | sed -n 1p)
l2=$(printf '%s\n' "$out" | sed -n 2p)
l3=$(printf '%s\n' "$out" | sed -n 3p)
for w in '^0x00000000 ' 'size=1024 ' 'saved=0x1b8 ' 'offset=0x208 ' 'flags=0x0001 ' 'type=HEADER ' 'cpu=0 ' 'seq=0 ' '\[FLUSH_MARKER\]$'; do
	printf '%s\n' "$l1" | grep -q -- "$w" || fail "line 1 lacks '$w': $l1"
done
for w in '^0x00000400 ' 'size=6153 ' 'flags=0x0060 ' 'type=GENERIC ' 'seq=1 ' 'compressed 6081 -> 7096 ' 'PROC_INDEX COMPRESSED'; do
	printf '%s\n' "$l2" | grep -q -- "$w" || fail "line 2 lacks '$w': $l2"
done
for w in '^0x00001c09 ' 'cpu=1 ' 'seq=2 ' 'compressed 154 -> 168 '; do
	printf '%s\n' "$l3" | grep -q -- "$w" || fail "line 3 lacks '$w': $l3"
done

# Buffer counts of other corpus files (expected.json).
n=$("$E" --buffers "$C/perfview-kernel-clr-x64-compressed.etl" | wc -l)
[ "$n" -eq 360 ] || fail "perfview: $n buffers, expected 360"
n=$("$E" --buffers "$C/perfview-kernel-clr-x64-compressed.etl" | grep -c ' compressed ')
[ "$n" -eq 359 ] || fail "perfview: $n compressed buffers, expected 359"
n=$("$E" --buffers "$C/win7-kernel-process-manifest.etl" | wc -l)
[ "$n" -eq 182 ] || fail "win7-kernel-process: $n buffers, expected 182"
exit 0

#!/bin/sh
# --hex: after each event line, its payload as offset, 16 hex bytes, ASCII
# (airbus-cert/etl-parser lxcore_kernel.etl, Apache-2.0).
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

out=$("$E" --hex "$C/wsl-lxcore-tracelogging.etl") || fail "exit $?"
# The logfile header payload: BufferSize 0x2000, version 10.0.1.5, build 19041.
l=$(printf '%s\n' "$out" | sed -n 2p)
[ "$l" = "    0000  00 20 00 00 0a 00 01 05  61 4a 00 00 06 00 00 00  |. ......aJ......|" ] ||
	fail "first dump line: '$l'"
# Payload sizes 360, 48, 118, 88 -> 23 + 3 + 8 + 6 dump lines, plus 4 event lines.
n=$(printf '%s\n' "$out" | wc -l)
[ "$n" -eq 44 ] || fail "$n lines, expected 44"
n=$(printf '%s\n' "$out" | grep -c '^    [0-9a-f]\{4\}  ')
[ "$n" -eq 40 ] || fail "$n dump lines, expected 40"
# The last dump line of a 360-byte payload holds 8 bytes.
l=$(printf '%s\n' "$out" | sed -n 24p)
printf '%s\n' "$l" | grep -q '^    0160  ' || fail "line 24: '$l'"
[ "$(printf '%s\n' "$l" | sed 's/.*|\(.*\)|$/\1/' | wc -c)" -eq 9 ] || fail "line 24 ASCII column: '$l'"
# Filters apply to --hex as well.
n=$("$E" --hex --type EVENT_HEADER64 "$C/wsl-lxcore-tracelogging.etl" | wc -l)
[ "$n" -eq 16 ] || fail "--hex --type EVENT_HEADER64: $n lines, expected 16"
exit 0

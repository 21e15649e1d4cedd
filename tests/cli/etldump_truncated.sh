#!/bin/sh
# A truncated copy of a corpus file (airbus-cert/etl-parser AMSITrace.etl,
# Apache-2.0): exit 2, the loss reported on stderr with its offset, and the
# complete records still printed.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
t=$(mktemp) || exit 1
err=$(mktemp) || exit 1
trap 'rm -f "$t" "$err"' EXIT

# 100000 bytes: the header buffer and part of the second 64 KiB buffer
# (whose 0x7838 valid bytes are all present) survive.
head -c 100000 "$C/amsi-tracelogging.etl" > "$t"

out=$("$E" "$t" 2>"$err")
rc=$?
[ $rc -eq 2 ] || fail "exit $rc, expected 2"
grep -q "^etldump: $t: offset 0x10000: " "$err" || fail "stderr does not name the offset: $(cat "$err")"
n=$(printf '%s\n' "$out" | grep -c 'Z  cpu=')
[ "$n" -eq 13 ] || fail "$n event lines, expected 13"

n=$("$E" --count "$t" 2>/dev/null)
[ $? -eq 2 ] || fail "--count: exit status is not 2"
[ "$n" = 13 ] || fail "--count printed '$n', expected 13"

# The summary lists the error; --json too, with the offset as a number.
"$E" --summary "$t" 2>/dev/null | grep -q 'offset 0x10000: Buffer cut short' || fail "--summary lists no error"
js=$("$E" --summary --json "$t" 2>/dev/null)
printf '%s\n' "$js" | grep -q '{"offset": 65536, "message": "Buffer cut short' || fail "--json lists no error: $js"
printf '%s\n' "$js" | grep -q '"records": 13,' || fail "--json records != 13"

# --buffers shows the damaged buffer and its error line.
b=$("$E" --buffers "$t" 2>/dev/null)
[ $? -eq 2 ] || fail "--buffers: exit status is not 2"
echo "$b" | grep -q '^  damaged: offset 0x10000: ' || fail "--buffers shows no damage line: $b"

# A compressed file cut in the middle of a buffer (microsoft/perfview
# net.4.5.2.x64.etl, MIT).
head -c 30000 "$C/perfview-kernel-clr-x64-compressed.etl" > "$t"
"$E" --count "$t" >/dev/null 2>"$err"
rc=$?
[ $rc -eq 2 ] || fail "compressed: exit $rc, expected 2"
grep -q 'offset 0x[0-9a-f]*: Compressed buffer cut short' "$err" || fail "compressed: stderr: $(cat "$err")"
exit 0

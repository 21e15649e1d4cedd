#!/bin/sh
# '-' (and no file at all) reads standard input, in time and file order,
# plain or gzip-compressed.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

f=$C/wsl-lxcore-tracelogging.etl
n=$(cat "$f" | "$E" --count -) || fail "exit $?"
[ "$n" = 4 ] || fail "cat | --count - printed '$n', expected 4"
n=$(cat "$f" | "$E" --count) || fail "exit $?"
[ "$n" = 4 ] || fail "cat | --count printed '$n', expected 4"
n=$(cat "$f" | "$E" --count --file-order -) || fail "exit $?"
[ "$n" = 4 ] || fail "cat | --count --file-order - printed '$n', expected 4"

f=$C/amsi-tracelogging.etl
a=$("$E" "$f") || fail "exit $?"
b=$(cat "$f" | "$E" -) || fail "stdin: exit $?"
[ "$a" = "$b" ] || fail "listing from stdin differs from the file's"
n=$(gzip -c "$f" | "$E" --count -) || fail "gzip stdin: exit $?"
[ "$n" = 21 ] || fail "gzip | --count - printed '$n', expected 21"
n=$(cat "$f" | "$E" --buffers - | wc -l)
[ "$n" -eq 6 ] || fail "cat | --buffers -: $n lines, expected 6"
cat "$f" | "$E" --summary --json - | grep -q '"file": "(standard input)"' || fail "stdin is not named"
exit 0

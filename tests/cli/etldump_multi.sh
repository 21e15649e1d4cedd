#!/bin/sh
# Several inputs: a "==> file <==" heading each, processed in turn; with
# --summary --json one object per file.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
a=$C/wsl-lxcore-tracelogging.etl
b=$C/amsi-tracelogging.etl

out=$("$E" --count "$a" "$b") || fail "exit $?"
exp=$(printf '==> %s <==\n4\n\n==> %s <==\n21' "$a" "$b")
[ "$out" = "$exp" ] || fail "got: $out"

n=$("$E" "$a" "$b" | grep -c 'cpu=')
[ "$n" -eq 25 ] || fail "$n event lines, expected 25"

js=$("$E" --summary --json "$a" "$b") || fail "exit $?"
[ "$(printf '%s\n' "$js" | grep -c '^{$')" -eq 2 ] || fail "expected 2 JSON objects"
printf '%s\n' "$js" | grep -q '==>' && fail "JSON output has headings"
printf '%s\n' "$js" | grep -q '"records": 4,' || fail "no records 4"
printf '%s\n' "$js" | grep -q '"records": 21,' || fail "no records 21"

# A single file has no heading.
"$E" --count "$a" | grep -q '==>' && fail "single file has a heading"
exit 0

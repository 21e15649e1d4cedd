#!/bin/sh
# An input that cannot be opened: exit 3 and a message naming it; the other
# inputs are still processed.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

out=$("$E" /nonexistent/dir/no-such.etl 2>"$err")
rc=$?
[ $rc -eq 3 ] || fail "exit $rc, expected 3"
grep -q '^etldump: /nonexistent/dir/no-such.etl: ' "$err" || fail "stderr does not name the file: $(cat "$err")"

# Missing file among good ones: the good one is still counted, status 3.
out=$("$E" --count /nonexistent/no-such.etl "$C/wsl-lxcore-tracelogging.etl" 2>"$err")
rc=$?
[ $rc -eq 3 ] || fail "mixed inputs: exit $rc, expected 3"
printf '%s\n' "$out" | grep -qx '4' || fail "mixed inputs: the good file was not counted: $out"

# An empty input is an I/O-level failure too.
empty=$(mktemp) || exit 1
"$E" --count "$empty" >/dev/null 2>"$err"
rc=$?
rm -f "$empty"
[ $rc -eq 3 ] || fail "empty input: exit $rc, expected 3"
exit 0

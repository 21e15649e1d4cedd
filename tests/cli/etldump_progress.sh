#!/bin/sh
# -q means something (issue 10): the progress display shows on stderr when
# it is a terminal and the input is large (over 8 MiB), for etldump whatever
# stdout is unless the event lines go to that terminal, for etlconvert
# whatever stdout is, for etlreplay (-o, and --realtime with its event
# lines in a file); -q turns it off. script(1) gives the terminal.
# wdi-shutdown-perfdiag-kernel.etl (airbus-cert/etl-parser, Apache-2.0),
# 3 MB: merged with two copies of itself for a 9 MB input.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
R=$(dirname "$E")/etlreplay
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
command -v script >/dev/null || { echo "SKIP: no script(1)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
F=$C/wdi-shutdown-perfdiag-kernel.etl
cp "$F" "$d/a.etl" && cp "$F" "$d/b.etl" || exit 1
"$X" -q "$F" "$d/a.etl" "$d/b.etl" -o "$d/big.etl" || fail "making the input: exit $?"
[ "$(wc -c < "$d/big.etl")" -gt 8388608 ] || fail "the input is not over 8 MiB"

# On a terminal, the command's stdout to a file; what reached the terminal.
tty_run() {
	script -qec "$1" "$d/log" >/dev/null 2>&1 </dev/null
	cat "$d/log"
}
shown() { tty_run "$1" | grep -q '[0-9]%'; }
shown "'$E' --summary '$d/big.etl' >'$d/out'" || fail "etldump --summary: no progress"
shown "'$E' -c '$d/big.etl' >'$d/out'" || fail "etldump -c: no progress"
shown "'$E' '$d/big.etl' >'$d/out'" || fail "etldump listing to a file: no progress"
shown "'$E' -q --summary '$d/big.etl' >'$d/out'" && fail "etldump -q: progress shown"
shown "'$X' -f xml '$d/big.etl' >'$d/out'" || fail "etlconvert to stdout: no progress"
shown "'$X' -q -f xml '$d/big.etl' >'$d/out'" && fail "etlconvert -q: progress shown"
shown "'$R' '$d/big.etl' -o '$d/r.etl'" || fail "etlreplay -o: no progress"
shown "'$R' --realtime '$d/big.etl' >'$d/out'" || fail "etlreplay --realtime to a file: no progress"
shown "'$R' -q '$d/big.etl' -o '$d/r.etl'" && fail "etlreplay -q: progress shown"
# Not on a terminal: nothing.
"$E" --summary "$d/big.etl" 2>"$d/err" >/dev/null
[ -s "$d/err" ] && fail "progress without a terminal: $(cat "$d/err")"
"$R" "$d/big.etl" -o "$d/r.etl" 2>"$d/err" >/dev/null || fail "etlreplay -o: exit $?"
[ -s "$d/err" ] && fail "etlreplay: progress without a terminal: $(cat "$d/err")"
exit 0

#!/bin/sh
# etlconvert usage: errors exit 1 with a message and a hint to --help and
# write nothing; --help and --version exit 0. Usage errors of the other
# formats (xml, json, jsonl, csv, text) are in etlconvert_formats.sh.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/wsl-lxcore-tracelogging.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

expect_usage() {   # message-pattern, args...
	pat=$1
	shift
	out=$("$X" "$@" 2>"$d/err")
	rc=$?
	[ $rc -eq 1 ] || fail "'$*' exited $rc, expected 1"
	[ -z "$out" ] || fail "'$*' printed on stdout: $out"
	grep -q "^etlconvert: .*$pat" "$d/err" || fail "'$*': stderr: $(cat "$d/err")"
	grep -q "^Try 'etlconvert --help'" "$d/err" || fail "'$*': no --help hint"
	[ -z "$(ls "$d" | grep -v '^err$')" ] || fail "'$*' wrote $(ls "$d")"
}

for fmt in xml json jsonl csv text; do
	expect_usage "with -f etl only" -f $fmt --raw "$F" -o "$d/o.$fmt"
done
expect_usage "unknown format" -f yaml "$F" -o "$d/o.etl"
expect_usage "no output file" "$F"
expect_usage "no input file" -o "$d/o.etl"
expect_usage "must be a file" "$F" -o -
expect_usage "one input only" --raw "$F" "$F" -o "$d/o.etl"
expect_usage "filters" --raw --pid 4 "$F" -o "$d/o.etl"
expect_usage "split" --raw --split-size 1M "$F" -o "$d/o.etl"
expect_usage "compress" --raw --compress "$F" -o "$d/o.etl"
expect_usage "invalid --split-size" --split-size 10X "$F" -o "$d/o.etl"
expect_usage "invalid --split-size" --split-size 0 "$F" -o "$d/o.etl"
expect_usage "invalid --split-time" --split-time -1 "$F" -o "$d/o.etl"
expect_usage "invalid --split-time" --split-time 0 "$F" -o "$d/o.etl"
expect_usage "invalid header type" --type NOPE "$F" -o "$d/o.etl"
expect_usage "unknown option" --nope "$F" -o "$d/o.etl"
expect_usage "needs an argument" "$F" -o

"$X" --help > "$d/out" || fail "--help: exit $?"
grep -q '^Usage: etlconvert' "$d/out" || fail "--help: no usage line"
grep -q -- '--split-size' "$d/out" || fail "--help: no --split-size"
grep -q -- '--provider' "$d/out" || fail "--help: no filter options"
"$X" --version | grep -q '^etlconvert (libetl) [0-9]' || fail "--version"
rm -f "$d/out"

# -f etl is the default, and explicit.
"$X" "$F" -o "$d/a.etl" || fail "default format: exit $?"
"$X" -f etl "$F" -o "$d/b.etl" || fail "-f etl: exit $?"
cmp -s "$d/a.etl" "$d/b.etl" || fail "-f etl differs from the default"
# Standard input once only.
"$X" - - -o "$d/c.etl" < "$F" 2>"$d/err"
[ $? -eq 1 ] || fail "two '-' inputs: not a usage error"
exit 0

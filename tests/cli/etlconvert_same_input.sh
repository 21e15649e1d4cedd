#!/bin/sh
# An output that is one of the inputs is refused before anything is read
# (exit 1, the input unchanged) - under its own name, through a symbolic
# or hard link, /proc/self/fd/N, or standard input; an input given twice
# too, unless --allow-same-input asks for it (issue 10, point 1).
# amsi-tracelogging.etl (airbus-cert/etl-parser, Apache-2.0): 21 records.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
cp "$C/amsi-tracelogging.etl" "$d/in.etl" && chmod u+w "$d/in.etl"
ln -s in.etl "$d/link.etl"
ln "$d/in.etl" "$d/hard.etl"

refused() {   # pattern, args...
	pat=$1
	shift
	"$X" -q "$@" >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -eq 1 ] || fail "'$*': exit $rc, expected 1 ($(cat "$d/err"))"
	grep -q "^etlconvert: .*$pat" "$d/err" || fail "'$*': stderr: $(cat "$d/err")"
	cmp -s "$d/in.etl" "$C/amsi-tracelogging.etl" || fail "'$*': the input changed"
}
refused "is the input" -f xml "$d/in.etl" -o "$d/in.etl"
refused "is the input" -f etl "$d/in.etl" -o "$d/in.etl"
refused "is the input" --raw "$d/in.etl" -o "$d/in.etl"
refused "is the input" -f json "$d/in.etl" -o "$d/link.etl"
refused "is the input" -f csv "$d/link.etl" -o "$d/in.etl"
refused "is the input" "$d/hard.etl" -o "$d/in.etl"
refused "is the input" -f text "$d/in.etl" -o /proc/self/fd/3 3<"$d/in.etl"
refused "is the input" -f xml - -o "$d/in.etl" <"$d/in.etl"
refused "is the input" "$C/win7-classic-image-32.etl" "$d/in.etl" -o "$d/in.etl.gz" -o "$d/in.etl"
[ -L "$d/link.etl" ] || fail "the link is gone"

# The same input twice: refused, no output made.
refused "given twice" -f etl "$d/in.etl" "$d/in.etl" -o "$d/m.etl"
refused "are the same file" -f etl "$d/in.etl" "$d/./link.etl" -o "$d/m.etl"
refused "given twice" -f xml "$d/in.etl" "$d/in.etl"
[ ! -e "$d/m.etl" ] || fail "an output was made"
"$E" "$d/in.etl" "$d/hard.etl" >/dev/null 2>"$d/err"
[ $? -eq 1 ] || fail "etldump: the same file twice is not refused"
grep -q "^etldump: the inputs .* are the same file" "$d/err" || fail "etldump: $(cat "$d/err")"

# Asked for: every event twice (the 2 header-buffer records once).
"$X" -q --allow-same-input "$d/in.etl" "$d/in.etl" -o "$d/m.etl" || fail "--allow-same-input: exit $?"
[ "$("$E" -c "$d/m.etl")" = $((2 * 21 - 2)) ] || fail "--allow-same-input: $("$E" -c "$d/m.etl") records"
# The output may still not be an input.
refused "is the input" --allow-same-input "$d/in.etl" "$d/in.etl" -o "$d/in.etl"
exit 0

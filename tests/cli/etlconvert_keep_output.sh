#!/bin/sh
# An existing output is replaced only when at least one event (--raw: one
# buffer) was read; otherwise it stays as it was, nothing new is made, and
# the exit status (2) and a message say why (issue 10, point 4).
# amsi-tracelogging.etl (airbus-cert/etl-parser, Apache-2.0).
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/amsi-tracelogging.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
echo 'this is not a trace' > "$d/not-an-etl"
gzip -c "$F" | head -c 20 > "$d/cut.etl.gz"
cp "$F" "$d/keep.etl"
echo '{"kept": true}' > "$d/keep.json"
cp "$d/keep.etl" "$d/keep.etl.orig"
cp "$d/keep.json" "$d/keep.json.orig"

kept() {   # output, args...
	o=$1
	shift
	"$X" -q "$@" -o "$d/$o" >/dev/null 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] || fail "[$*] -o $o: exit $rc, expected 2 ($(cat "$d/err"))"
	# Why: nothing could be read, or (a wrapper that leaves nothing to
	# read) the damage that stops the input from opening.
	grep -q -e "^etlconvert: $d/$o: left as it was: no .* could be read" \
	        -e "^etlconvert: $d/cut.etl.gz: truncated gzip stream at compressed offset 20" "$d/err" ||
		fail "[$*] -o $o: stderr: $(cat "$d/err")"
	if [ -e "$d/$o.orig" ]; then
		cmp -s "$d/$o" "$d/$o.orig" || fail "[$*] -o $o: the output changed"
	else
		[ ! -e "$d/$o" ] || fail "[$*] -o $o: an output was made"
	fi
}
for input in not-an-etl cut.etl.gz; do
	kept keep.etl -f etl "$d/$input"
	kept keep.etl --raw "$d/$input"
	kept keep.etl --split-size 1M "$d/$input"
	kept keep.json -f json "$d/$input"
	kept new.xml -f xml "$d/$input"
	kept new.etl "$d/$input"
done
[ "$(ls "$d" | grep -c -e '_000' -e 'tmp' -e 'parts')" = 0 ] || fail "left behind: $(ls -a "$d")"

# Events read but none matching: the (empty) conversion replaces it.
"$X" -q -f json --id 65000 "$F" -o "$d/keep.json" || fail "filtered: exit $?"
cmp -s "$d/keep.json" "$d/keep.json.orig" && fail "filtered: the output was not replaced"
exit 0

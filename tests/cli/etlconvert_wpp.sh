#!/bin/sh
# etlconvert and WPP: the real WPP corpus file (13 MESSAGE records, no TMF
# available) converts to XML with exit 0, every MESSAGE record written with
# its raw payload in a ProcessingErrorData element; --tmf loads a TMF file or
# directory, and a bad TMF is a usage error naming the file and line.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
f=$C/onedrive-cldflt-wpp.etl

"$X" -f xml "$f" > "$d/out.xml" 2>"$d/err" || fail "exit $? ($(cat "$d/err"))"
n=$(grep '2818ef08-6a54-396f-2244-5a6ea4a98cf0' "$d/out.xml" | grep -c '<ProcessingErrorData>')
[ "$n" -eq 13 ] || fail "$n ProcessingErrorData elements for the WPP GUID, expected 13"
n=$(grep '2818ef08-6a54-396f-2244-5a6ea4a98cf0' "$d/out.xml" | grep -c '<EventPayload>[0-9A-F][0-9A-F]*</EventPayload>')
[ "$n" -eq 13 ] || fail "$n WPP events with their payload, expected 13"

# With a TMF that does not define these messages: same result.
"$X" -f xml --tmf testdata/tmf/test.tmf --tmf testdata/tmf "$f" > "$d/out2.xml" 2>"$d/err" ||
	fail "--tmf: exit $? ($(cat "$d/err"))"
cmp -s "$d/out.xml" "$d/out2.xml" || fail "--tmf changed the output"

# A bad TMF: usage error with file:line.
printf '11112222-3333-4444-5555-666677778888 x\n#typev a 1 "x"\n{\nv, ItemBogus -- 10\n}\n' > "$d/bad.tmf"
"$X" -f xml --tmf "$d/bad.tmf" "$f" > /dev/null 2>"$d/err"
rc=$?
[ $rc -eq 1 ] || fail "bad TMF: exit $rc, expected 1"
grep -q "bad.tmf:4:" "$d/err" || fail "bad TMF: stderr: $(cat "$d/err")"
# --tmf with -f etl is refused
"$X" -f etl --tmf testdata/tmf -o "$d/o.etl" "$f" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--tmf with -f etl accepted"
exit 0

#!/bin/sh
# An input that is not an ETL file is called so first, in words a
# newcomer understands, then the technical detail - once, not twice - and
# exits 2 (issue 10, point 9); etlconvert the same, its output untouched.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
printf '# A project\n\nSome words about it, long enough for a buffer header.\n%.0s' 1 2 3 > "$d/README.md"
gzip -c "$d/README.md" > "$d/README.md.gz"

for f in README.md README.md.gz; do
	for mode in "" "-F" "--summary" "--count" "--buffers" "--summary --json"; do
		# shellcheck disable=SC2086
		(cd "$d" && "$E" $mode "$f") >/dev/null 2>"$d/err"
		rc=$?
		[ $rc -eq 2 ] || fail "$f [$mode]: exit $rc, expected 2"
		head -1 "$d/err" | grep -q "^etldump: $f is not an ETL file (no trace buffer header at offset 0): BufferSize" ||
			fail "$f [$mode]: stderr: $(cat "$d/err")"
		[ "$(grep -c BufferSize "$d/err")" = 1 ] || fail "$f [$mode]: said twice: $(cat "$d/err")"
	done
done
echo keep > "$d/out.xml"
(cd "$d" && "$X" -q -f xml README.md -o out.xml) 2>"$d/err"
[ $? -eq 2 ] || fail "etlconvert: exit $?, expected 2"
grep -q "^etlconvert: README.md is not an ETL file (no trace buffer header at offset 0): " "$d/err" ||
	fail "etlconvert: $(cat "$d/err")"
[ "$(cat "$d/out.xml")" = keep ] || fail "etlconvert: the output changed"
exit 0

#!/bin/sh
# A damaged gzip or LZ4 wrapper gets one message and one exit status (2)
# per kind of damage, the same in every mode - time order, file order,
# standard input, --summary, etlconvert - and never "The input is empty"
# for a file that is not (issue 10, point 7).
# clr-gc-circular.etl, amsi-tracelogging.etl (airbus-cert/etl-parser,
# Apache-2.0).
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
command -v lz4 >/dev/null || { echo "SKIP: no lz4"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

same_everywhere() {   # file, expected message
	f=$1
	want=$2
	for mode in "" "-F" "--summary" "-F --count" "--buffers"; do
		# shellcheck disable=SC2086
		"$E" $mode "$f" >/dev/null 2>"$d/err"
		rc=$?
		[ $rc -eq 2 ] || fail "$f [$mode]: exit $rc, expected 2 ($(cat "$d/err"))"
		grep -q "$want" "$d/err" || fail "$f [$mode]: stderr: $(cat "$d/err")"
		grep -q 'input is empty' "$d/err" && fail "$f [$mode]: called empty"
		# shellcheck disable=SC2086
		"$E" $mode - < "$f" >/dev/null 2>"$d/err"
		rc=$?
		[ $rc -eq 2 ] && grep -q "$want" "$d/err" || fail "$f [$mode] on stdin: exit $rc: $(cat "$d/err")"
	done
	"$X" -q -f xml "$f" -o "$d/x.xml" 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "$want" "$d/err" || fail "$f, etlconvert: exit $rc: $(cat "$d/err")"
}

# The issue's case: an LZ4 frame cut after 2157 bytes (nothing of the
# trace decodes), and a longer cut (part of it does).
lz4 -q -c "$C/clr-gc-circular.etl" | head -c 2157 > "$d/t.etl.lz4"
same_everywhere "$d/t.etl.lz4" "truncated LZ4 stream at compressed offset 2157 (the input ends inside an LZ4 frame)"
lz4 -q -c "$C/amsi-tracelogging.etl" > "$d/a.lz4"
head -c $(($(wc -c < "$d/a.lz4") - 100)) "$d/a.lz4" > "$d/t2.etl.lz4"
same_everywhere "$d/t2.etl.lz4" "truncated LZ4 stream at compressed offset $(wc -c < "$d/t2.etl.lz4")"
# gzip: cut short, early and late.
gzip -c "$C/amsi-tracelogging.etl" > "$d/a.gz"
head -c 100 "$d/a.gz" > "$d/t.etl.gz"
same_everywhere "$d/t.etl.gz" "truncated gzip stream at compressed offset 100 (the input ends inside a gzip member)"
head -c $(($(wc -c < "$d/a.gz") - 4)) "$d/a.gz" > "$d/t2.etl.gz"
same_everywhere "$d/t2.etl.gz" "truncated gzip stream at compressed offset $(wc -c < "$d/t2.etl.gz")"
# A bad header (compression method 7) and corrupt data (a checksum that
# does not match).
cp "$d/a.gz" "$d/h.etl.gz"
printf '\007' | dd of="$d/h.etl.gz" bs=1 seek=2 conv=notrunc 2>/dev/null
same_everywhere "$d/h.etl.gz" "bad gzip header at compressed offset [0-9]* (zlib: unknown compression method)"
cp "$d/a.gz" "$d/c.etl.gz"
n=$(wc -c < "$d/c.etl.gz")
printf '\377\377\377\377' | dd of="$d/c.etl.gz" bs=1 seek=$((n - 8)) conv=notrunc 2>/dev/null
same_everywhere "$d/c.etl.gz" "corrupt gzip stream at compressed offset [0-9]* (zlib: incorrect data check)"
exit 0

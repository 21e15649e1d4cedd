#!/bin/sh
# Temporary space is bounded (issue 10, point 6): time order copies a
# compressed or piped input, decompressed, into $TMPDIR, at most
# --spool-limit bytes (default 4G, or the free space of $TMPDIR); a
# stream that expands past it is refused with a clear error (exit 3)
# after that much work; file order (-F) streams it with no copy at all.
# The bombs (a trace followed by 64 MiB of zeros) are made here.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
command -v lz4 >/dev/null || { echo "SKIP: no lz4"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
mkdir "$d/tmp"
{ cat "$C/amsi-tracelogging.etl"; head -c 67108864 /dev/zero; } | gzip -1 > "$d/bomb.etl.gz"
{ cat "$C/amsi-tracelogging.etl"; head -c 67108864 /dev/zero; } | lz4 -q -1 > "$d/bomb.etl.lz4"
"$E" --help | grep -q -- '--spool-limit' || fail "--help does not document --spool-limit"
"$E" --help | grep -q 'default 4G' || fail "--help does not give the default"

# Within a file size limit of 4 MiB for the tool (ulimit -f): a spool that
# kept going would fail with "File too large" instead.
limited() {
	( trap '' XFSZ; ulimit -f 8192 2>/dev/null || exit 99; TMPDIR=$d/tmp exec "$@" ) >"$d/out" 2>"$d/err"
}
for b in bomb.etl.gz bomb.etl.lz4; do
	limited "$E" --spool-limit 1M -c "$d/$b"
	rc=$?
	[ $rc -eq 99 ] && { echo "SKIP: ulimit -f not available"; exit 77; }
	[ $rc -eq 3 ] || fail "$b: exit $rc, expected 3 ($(cat "$d/err"))"
	grep -q "larger than 1048576 bytes, the spool limit; read it in file order (-F)" "$d/err" ||
		fail "$b: stderr: $(cat "$d/err")"
	# Standard input, and etlconvert (which spools standard input first).
	limited sh -c "\"$E\" --spool-limit 1M -c - < \"$d/$b\""
	[ $? -eq 3 ] && grep -q 'the spool limit' "$d/err" || fail "$b on stdin: $(cat "$d/err")"
	limited "$X" -q --spool-limit 1M -f xml "$d/$b" -o "$d/x.xml"
	[ $? -eq 3 ] && grep -q 'the spool limit; raise the limit with --spool-limit' "$d/err" ||
		fail "$b, etlconvert: $(cat "$d/err")"
	[ ! -e "$d/x.xml" ] || fail "$b, etlconvert: an output was made"
	# File order: no copy, the trace read, the zeros end it (as damage:
	# a buffer header of zeros).
	limited "$E" --spool-limit 1K -F -c "$d/$b"
	[ $? -eq 2 ] && [ "$(cat "$d/out")" = 21 ] || fail "$b -F: $(cat "$d/out") $(cat "$d/err")"
	grep -q -e spool -e 'File too large' "$d/err" && fail "$b -F: $(cat "$d/err")"
	[ -z "$(ls "$d/tmp")" ] || fail "$b: left in TMPDIR: $(ls "$d/tmp")"
done
# A limit that fits: read as usual.
TMPDIR=$d/tmp "$E" --spool-limit 100M -c "$d/bomb.etl.gz" > "$d/out" 2>/dev/null
[ $? -eq 2 ] || fail "100M: exit $?, expected 2 (the zeros)"
[ "$(cat "$d/out")" = 21 ] || fail "100M: $(cat "$d/out")"
"$E" --spool-limit 12Q -c "$d/bomb.etl.gz" 2>/dev/null
[ $? -eq 1 ] || fail "a bad --spool-limit is not a usage error"
exit 0

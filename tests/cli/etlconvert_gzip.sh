#!/bin/sh
# An output path ending in .gz or .lz4 is compressed as a whole; etldump
# reads it back transparently with the same listing. gzip/LZ4 inputs are
# read too. Corpus sources: ../shared/corpus/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

for f in amsi-tracelogging eventsource-selfdescribing-compressed wdi-shutdown-perfdiag-kernel; do
	"$E" "$C/$f.etl" > "$d/want"
	"$X" "$C/$f.etl" -o "$d/o.etl.gz" || fail "$f .gz: exit $?"
	gzip -t "$d/o.etl.gz" || fail "$f: not a valid gzip file"
	"$E" "$d/o.etl.gz" > "$d/got" || fail "$f .gz: etldump exit $?"
	cmp -s "$d/want" "$d/got" || fail "$f .gz: listing differs"
	"$X" "$C/$f.etl" -o "$d/o.etl.lz4" || fail "$f .lz4: exit $?"
	"$E" "$d/o.etl.lz4" > "$d/got" || fail "$f .lz4: etldump exit $?"
	cmp -s "$d/want" "$d/got" || fail "$f .lz4: listing differs"
	if command -v lz4 >/dev/null 2>&1; then
		lz4 -t -q "$d/o.etl.lz4" || fail "$f: not a valid LZ4 frame"
	fi
	# The .gz output is the plain output, compressed.
	"$X" "$C/$f.etl" -o "$d/o.etl" || fail "$f: exit $?"
	gzip -dc "$d/o.etl.gz" | cmp -s - "$d/o.etl" || fail "$f: .gz content is not the plain output"
	# A gzip input converted to an LZ4 output.
	"$X" "$d/o.etl.gz" -o "$d/o2.etl.lz4" || fail "$f gz -> lz4: exit $?"
	"$E" "$d/o2.etl.lz4" > "$d/got" || fail "$f gz -> lz4: etldump exit $?"
	cmp -s "$d/want" "$d/got" || fail "$f gz -> lz4: listing differs"
done
exit 0

#!/bin/sh
# etlconvert --raw copies buffers as they are stored: every corpus file
# (uncompressed ones and the three with compressed buffers alike) comes out
# with the SHA-256 of the input, also from standard input, from a gzip
# copy, and into a .gz output. A truncated input is copied as far as it
# goes (exit 2). Corpus files: see ../shared/corpus/INDEX.md for sources.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# File name and compressed_buffers from expected.json.
awk '/^ "[^"]*\.etl": \{/ { f = $1; gsub(/[":]/, "", f) }
     /"compressed_buffers":/ { v = $2; gsub(/,/, "", v); print f, v }' \
	"$C/expected.json" > "$d/list"
[ "$(wc -l < "$d/list")" -ge 18 ] || fail "expected.json lists $(wc -l < "$d/list") files"
plain=0
packed=0
while read -r f cb; do
	"$X" --raw "$C/$f" -o "$d/out.etl" 2>"$d/err" || fail "$f: exit $? ($(cat "$d/err"))"
	[ -s "$d/err" ] && fail "$f: stderr: $(cat "$d/err")"
	a=$(sha256sum < "$C/$f")
	b=$(sha256sum < "$d/out.etl")
	[ "$a" = "$b" ] || fail "$f: raw copy differs (compressed_buffers $cb)"
	if [ "$cb" -eq 0 ]; then plain=$((plain + 1)); else packed=$((packed + 1)); fi
done < "$d/list"
[ $plain -eq 15 ] || fail "$plain uncompressed files, expected 15"
[ $packed -eq 3 ] || fail "$packed files with compressed buffers, expected 3"

# Standard input, a gzip-wrapped input, a .gz output.
f=$C/eventsource-selfdescribing-compressed.etl
"$X" --raw - -o "$d/stdin.etl" < "$f" || fail "stdin: exit $?"
cmp -s "$f" "$d/stdin.etl" || fail "stdin: copy differs"
cat "$f" | "$X" --raw - -o "$d/pipe.etl" || fail "pipe: exit $?"
cmp -s "$f" "$d/pipe.etl" || fail "pipe: copy differs"
gzip -c "$C/amsi-tracelogging.etl" > "$d/in.etl.gz"
"$X" --raw "$d/in.etl.gz" -o "$d/ungz.etl" || fail "gz input: exit $?"
cmp -s "$C/amsi-tracelogging.etl" "$d/ungz.etl" || fail "gz input: copy differs"
"$X" --raw "$C/amsi-tracelogging.etl" -o "$d/out.etl.gz" || fail "gz output: exit $?"
gzip -dc "$d/out.etl.gz" | cmp -s - "$C/amsi-tracelogging.etl" || fail "gz output differs"

# A truncated file: damage reported (exit 2), the bytes present copied,
# even when the cut falls inside the header buffer.
for n in 300 100000; do
	head -c $n "$C/amsi-tracelogging.etl" > "$d/cut.etl"
	"$X" --raw "$d/cut.etl" -o "$d/cut.out.etl" 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] || fail "cut $n: exit $rc, expected 2"
	grep -q "^etlconvert: $d/cut.etl: offset 0x" "$d/err" || fail "cut $n: stderr: $(cat "$d/err")"
	cmp -s "$d/cut.etl" "$d/cut.out.etl" || fail "cut $n: copy differs"
done
exit 0

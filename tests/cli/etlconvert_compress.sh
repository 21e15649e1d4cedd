#!/bin/sh
# --compress stores the buffers compressed and --no-compress uncompressed;
# records, header types and the event listing stay those of the input.
# Default: as the input. Corpus sources: ../shared/corpus/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

num() { sed -n "s/^  \"$1\": \([0-9]*\),\$/\1/p"; }
same_events() {   # input output what
	"$E" --summary --json "$1" | grep -E '^  "(records|header_types|ext_item_types)":' > "$d/a"
	"$E" --summary --json "$2" | grep -E '^  "(records|header_types|ext_item_types)":' > "$d/b"
	[ "$(wc -l < "$d/a")" -eq 3 ] || fail "$3: summary lines missing"
	cmp -s "$d/a" "$d/b" || fail "$3: summary differs: $(diff "$d/a" "$d/b")"
	"$E" "$1" > "$d/a"
	"$E" "$2" > "$d/b" || fail "$3: output unreadable"
	cmp -s "$d/a" "$d/b" || fail "$3: listing differs: $(diff "$d/a" "$d/b" | head -5)"
}

for f in wdi-shutdown-perfdiag-kernel amsi-tracelogging vista-classic-mixed-32 onedrive-cldflt-wpp; do
	"$X" --compress "$C/$f.etl" -o "$d/c.etl" || fail "$f --compress: exit $?"
	cb=$("$E" --summary --json "$d/c.etl" | num compressed_buffers)
	[ "${cb:-0}" -gt 0 ] || fail "$f --compress: compressed_buffers ${cb:-none}"
	"$E" --header "$d/c.etl" | grep -q '^  log_file_mode .*COMPRESSED' || fail "$f: no COMPRESSED bit"
	[ "$(wc -c < "$d/c.etl")" -lt "$(wc -c < "$C/$f.etl")" ] || fail "$f --compress: not smaller"
	same_events "$C/$f.etl" "$d/c.etl" "$f --compress"
	# And back.
	"$X" --no-compress "$d/c.etl" -o "$d/u.etl" || fail "$f round trip: exit $?"
	same_events "$C/$f.etl" "$d/u.etl" "$f --compress then --no-compress"
done

for f in clr-rundown-32bit-compressed eventsource-selfdescribing-compressed perfview-kernel-clr-x64-compressed; do
	"$X" --no-compress "$C/$f.etl" -o "$d/u.etl" || fail "$f --no-compress: exit $?"
	cb=$("$E" --summary --json "$d/u.etl" | num compressed_buffers)
	[ "$cb" = 0 ] || fail "$f --no-compress: compressed_buffers ${cb:-none}"
	"$E" --header "$d/u.etl" | grep -q '^  log_file_mode .*COMPRESSED' && fail "$f: COMPRESSED bit kept"
	same_events "$C/$f.etl" "$d/u.etl" "$f --no-compress"
	# Default: compressed like the input.
	"$X" "$C/$f.etl" -o "$d/k.etl" || fail "$f: exit $?"
	cb=$("$E" --summary --json "$d/k.etl" | num compressed_buffers)
	[ "${cb:-0}" -gt 0 ] || fail "$f default: compressed_buffers ${cb:-none}"
done
exit 0

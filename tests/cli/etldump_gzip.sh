#!/bin/sh
# gzip- and LZ4-compressed inputs are read transparently and give the same
# events as the plain file.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

for f in amsi-tracelogging.etl eventsource-selfdescribing-compressed.etl; do
	plain=$("$E" --count "$C/$f") || fail "$f: exit $?"
	gzip -c "$C/$f" > "$d/t.etl.gz" || fail "gzip failed"
	n=$("$E" --count "$d/t.etl.gz") || fail "$f.gz: exit $?"
	[ "$n" = "$plain" ] || fail "$f.gz: counted $n, plain file $plain"
	n=$("$E" --count --file-order "$d/t.etl.gz") || fail "$f.gz --file-order: exit $?"
	[ "$n" = "$plain" ] || fail "$f.gz --file-order: counted $n, plain file $plain"
	"$E" "$C/$f" > "$d/plain.txt"
	"$E" "$d/t.etl.gz" > "$d/gz.txt"
	cmp -s "$d/plain.txt" "$d/gz.txt" || fail "$f.gz: listing differs from the plain file"
	if command -v lz4 >/dev/null 2>&1; then
		lz4 -q -c "$C/$f" > "$d/t.etl.lz4" || fail "lz4 failed"
		n=$("$E" --count "$d/t.etl.lz4") || fail "$f.lz4: exit $?"
		[ "$n" = "$plain" ] || fail "$f.lz4: counted $n, plain file $plain"
	fi
done

# A damaged gzip wrapper is reported as damage.
gzip -c "$C/amsi-tracelogging.etl" | head -c 3000 > "$d/cut.etl.gz"
"$E" --count "$d/cut.etl.gz" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 2 ] || fail "cut gzip: exit $rc, expected 2 ($(cat "$d/err"))"
exit 0

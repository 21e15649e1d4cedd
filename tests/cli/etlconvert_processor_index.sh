#!/bin/sh
# The processor-number rule is the reader's and the writer's alike, and
# damage in the logfile header is damage (issue 10, point 8): a buffer
# whose processor index is 65535 is skipped and reported by every tool
# (exit 2), etlconvert writes the rest without a word about processor
# counts; an impossible NumberOfProcessors or BufferSize in the header is
# exit 2 naming the field's offset - never a usage error (--split-size)
# nor an error about the output.
# clr-gc-circular.etl, amsi-tracelogging.etl (airbus-cert/etl-parser,
# Apache-2.0); the second buffer of clr-gc-circular is at 0x10000, its
# ClientContext (processor index) at 0x28 of the buffer header.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
patch() {   # file, offset, bytes (printf)
	printf "$3" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc 2>/dev/null
}

cp "$C/clr-gc-circular.etl" "$d/p.etl" && chmod u+w "$d/p.etl"
patch "$d/p.etl" 0x10028 '\377\377'
n=$("$E" -c "$d/p.etl" 2>"$d/err")
[ $? -eq 2 ] || fail "etldump: exit $?, expected 2"
grep -q "offset 0x10000: .*processor=65535" "$d/err" || fail "etldump: $(cat "$d/err")"
for args in "" "-f xml" "--split-size 1M"; do
	rm -f "$d/o.etl" "$d/o_000.etl"
	# shellcheck disable=SC2086
	"$X" -q $args "$d/p.etl" -o "$d/o.etl" 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] || fail "etlconvert [$args]: exit $rc, expected 2 ($(cat "$d/err"))"
	grep -q "offset 0x10000: .*processor=65535" "$d/err" || fail "etlconvert [$args]: $(cat "$d/err")"
	grep -q -e 'processors=' -e 'Number of processors' -e 'event not written' "$d/err" &&
		fail "etlconvert [$args]: $(cat "$d/err")"
done
[ "$("$E" -c "$d/o_000.etl")" = "$n" ] || fail "the split output has not the $n readable records"

# The logfile header (payload at 0x68): NumberOfProcessors (+0x0C) and
# BufferSize (+0x00) no trace can have.
for edit in "0x74 \377\377\377\377 NumberOfProcessors" "0x68 \377\377\377\177 BufferSize"; do
	set -- $edit
	cp "$C/amsi-tracelogging.etl" "$d/h.etl" && chmod u+w "$d/h.etl"
	patch "$d/h.etl" "$1" "$2"
	want="offset $1: damaged logfile header: $3 is"
	"$E" -c "$d/h.etl" >/dev/null 2>"$d/err"
	[ $? -eq 2 ] && grep -q "$want" "$d/err" || fail "etldump, $3: $(cat "$d/err")"
	for args in "-f json" "--split-size 1M" "--compress" ""; do
		rm -f "$d/o.etl"
		# shellcheck disable=SC2086
		"$X" -q $args "$d/h.etl" -o "$d/o.etl" 2>"$d/err"
		rc=$?
		[ $rc -eq 2 ] || fail "etlconvert [$args], $3: exit $rc, expected 2 ($(cat "$d/err"))"
		grep -q "^etlconvert: $d/h.etl: $want" "$d/err" || fail "etlconvert [$args], $3: $(cat "$d/err")"
		grep -q -e "$d/o" -e 'less than two buffers' "$d/err" && fail "etlconvert [$args], $3: $(cat "$d/err")"
	done
	[ "$("$E" -c "$d/o.etl")" = 21 ] || fail "$3: the output has not the 21 records"
done
exit 0

#!/bin/sh
# Damaged inputs replay everything readable: truncated copies of corpus
# files (cut inside the header buffer and inside buffers) and copies with
# bits flipped. Exit 2 when a loss was reported, each with
# the input's name and an offset; never a crash (a status of 128 or more,
# or a sanitizer's report under make check SANITIZE=...); the output reads
# back clean and holds exactly the events etldump reads from the damaged
# input. Corpus sources: ../shared/corpus/INDEX.md.
. "$(dirname "$0")/etlreplay.inc"

# The events etldump reads from a damaged file, in a canonical order.
sorted_events() { events "$1" 2>/dev/null | sort; }

check() {                 # check NAME EXPECT(2|any): replays $d/bad.etl
	"$R" "$d/bad.etl" -o "$d/o.etl" 2> "$d/err"
	rc=$?
	[ $rc -lt 128 ] || fail "$1: crashed (status $rc): $(tail -3 "$d/err")"
	grep -q 'Sanitizer\|runtime error' "$d/err" && fail "$1: sanitizer report: $(cat "$d/err")"
	if [ "$2" = 2 ]; then
		[ $rc -eq 2 ] || fail "$1: exit $rc, expected 2: $(cat "$d/err")"
	else
		[ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "$1: exit $rc: $(cat "$d/err")"
	fi
	if [ $rc -eq 2 ]; then
		grep -q "^etlreplay: $d/bad.etl: offset 0x[0-9a-f]*: " "$d/err" ||
			fail "$1: a loss is not reported with its offset: $(cat "$d/err")"
	fi
	[ -f "$d/o.etl" ] || return 0   # nothing readable: no output
	"$E" --count "$d/o.etl" > /dev/null 2>&1 || fail "$1: the replay does not read back clean"
	sorted_events "$d/bad.etl" > "$d/want"
	sorted_events "$d/o.etl" > "$d/got"
	cmp -s "$d/want" "$d/got" || fail "$1: the replay holds other events than the damaged input"
	rm -f "$d/o.etl"
}

# (Cuts inside buffers: a circular file cut at a buffer's end is whole.)
for f in amsi-tracelogging win7-kernel-process-manifest eventsource-selfdescribing-compressed \
	clr-rundown-32bit-compressed onedrive-cldflt-wpp; do
	src=$C/$f.etl
	size=$(wc -c < "$src")
	for cut in 100 3000 70123 $((size / 2 + 123)) $((size - 777)); do
		[ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$src" > "$d/bad.etl"
		check "$f cut at $cut" 2
	done
	# Bits flipped past the header buffer, seeded: the same every run.
	for seed in 1 2; do
		awk -v seed="$seed" -v size="$size" 'BEGIN {
			srand(seed * 7919);
			for (i = 0; i < 40; i++) printf "%d %d\n", 4096 + int(rand() * (size - 4096)), int(rand() * 8);
		}' > "$d/flips"
		python3 - "$src" "$d/bad.etl" "$d/flips" <<'PY' 2>/dev/null || cp "$src" "$d/bad.etl"
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
for line in open(sys.argv[3]):
    off, bit = map(int, line.split())
    data[off] ^= 1 << bit
open(sys.argv[2], 'wb').write(data)
PY
		check "$f flipped (seed $seed)" any
	done
done
exit 0

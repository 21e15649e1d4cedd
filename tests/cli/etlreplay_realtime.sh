#!/bin/sh
# etlreplay --realtime: the events go through a real-time session to a
# consumer that prints them as etldump does: every event sent is printed,
# in etldump's (time) order, with etldump's filters selecting them.
# --speed F: a paced replay keeps the order, and takes at least (loosely)
# the trace's span divided by F. Corpus sources: ../shared/corpus/INDEX.md.
. "$(dirname "$0")/etlreplay.inc"

for f in powershell-manifest wdi-shutdown-perfdiag-kernel onedrive-cldflt-wpp win7-classic-image-32; do
	events "$C/$f.etl" > "$d/want"
	"$R" --realtime "$C/$f.etl" > "$d/all" 2> "$d/err" || fail "$f: exit $?: $(cat "$d/err")"
	grep -v ' EventTrace/' "$d/all" > "$d/got"
	[ -s "$d/got" ] || fail "$f: nothing printed"
	cmp -s "$d/want" "$d/got" || fail "$f: the events printed in real time differ from etldump's"
	# Events sent = events received: the replay of the same events to a
	# file holds as many (two header-buffer records of its own).
	"$R" "$C/$f.etl" -o "$d/o.etl" || fail "$f -o: exit $?"
	[ $(($("$E" --count "$d/o.etl") - 2)) -eq "$(wc -l < "$d/all")" ] || fail "$f: events received != sent"
done

# Filters.
f=$C/powershell-manifest.etl
events --id 7937 "$f" > "$d/want"
"$R" --realtime --id 7937 "$f" > "$d/got" || fail "--id: exit $?"
[ -s "$d/want" ] || fail "--id selects nothing"
cmp -s "$d/want" "$d/got" || fail "--id: the events printed in real time differ from etldump's"

# Pacing. The trace's span, from its first event to its last.
f=$C/waasmedic-tracelogging.etl
events "$f" > "$d/want"
t0=$(date -d "$(head -1 "$d/want" | cut -c1-28)" +%s.%N)
t1=$(date -d "$(tail -1 "$d/want" | cut -c1-28)" +%s.%N)
span=$(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')
# Paced to take about 0.8 s; at least 0.7 s, however loaded the machine.
speed=$(echo "$span" | awk '{ printf "%.4f", $1 / 0.8 }')
s0=$(date +%s%N)
"$R" --realtime --speed "$speed" "$f" > "$d/all" || fail "--speed: exit $?"
s1=$(date +%s%N)
ms=$(( (s1 - s0) / 1000000 ))
[ "$ms" -ge 700 ] || fail "--speed $speed over ${span}s took ${ms} ms, expected at least 700"
grep -v ' EventTrace/' "$d/all" > "$d/got"
cmp -s "$d/want" "$d/got" || fail "--speed: the events differ from etldump's"
s0=$(date +%s%N)
"$R" --speed "$speed" "$f" -o "$d/o.etl" || fail "--speed -o: exit $?"
s1=$(date +%s%N)
[ $(( (s1 - s0) / 1000000 )) -ge 700 ] || fail "--speed -o took less than 700 ms"
events "$d/o.etl" > "$d/got"
cmp -s "$d/want" "$d/got" || fail "--speed -o: the replay lists otherwise"
exit 0

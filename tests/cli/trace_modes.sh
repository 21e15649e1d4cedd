#!/bin/sh
# The file-mode programs of testdata/programs (sequential, compressed,
# circular, new-file, buffering, real-time) write every write kind of the
# tracing runtime from several threads and verify their output event by
# event with libetl themselves (exit 0 only then). Here: each exits 0,
# prints "events N" last, and etldump agrees with what they verified.
E=${ETLDUMP:-./build/bin/etldump}
fail() { echo "FAIL: $*"; exit 1; }
D=$(dirname "$E")
P="$D/../programs"
[ -x "$P/trace-sequential" ] || fail "programs not built (looked in $P)"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

# run NAME ARGS...: runs the program, sets $n to its "events N".
run() {
	name=$1
	shift
	"$P/$name" "$@" > "$T/$name.out" 2> "$T/$name.err" ||
		fail "$name exit $?: $(cat "$T/$name.err")"
	last=$(tail -n 1 "$T/$name.out")
	case "$last" in
	"events "[0-9]*) n=${last#events } ;;
	*) fail "$name: last line '$last'" ;;
	esac
}
# events FILE: events in FILE besides the EventTrace header records.
events() {
	a=$("$E" --count "$1") || fail "etldump --count $1"
	b=$("$E" --count --provider EventTrace "$1") || fail "etldump --count --provider $1"
	echo $((a - b))
}
value() { sed -n "s/^$2 //p" "$T/$1.out"; }

run trace-sequential "$T/seq.etl"
[ "$n" -eq 12000 ] || fail "sequential wrote $n"
[ "$(events "$T/seq.etl")" -eq "$n" ] || fail "sequential: etldump counts $(events "$T/seq.etl")"

run trace-compressed "$T/comp.etl"
[ "$(events "$T/comp.etl")" -eq "$n" ] || fail "compressed: etldump counts differ"
"$E" --summary --json "$T/comp.etl" | grep -q '"compressed_buffers": [1-9]' || fail "compressed: no compressed buffer"

run trace-circular "$T/circ.etl"
kept=$(value trace-circular kept)
[ "$kept" -gt 0 ] && [ "$kept" -lt "$n" ] || fail "circular kept $kept of $n"
[ "$(events "$T/circ.etl")" -eq "$kept" ] || fail "circular: etldump counts $(events "$T/circ.etl"), kept $kept"
[ "$(wc -c < "$T/circ.etl")" -le 1048576 ] || fail "circular file over 1 MiB"

run trace-newfile "$T/nf_%d.etl"
total=0
for f in "$T"/nf_*.etl; do
	total=$((total + $(events "$f")))
done
[ "$total" -eq "$n" ] || fail "newfile: $total events in $(ls "$T"/nf_*.etl | wc -l) files, expected $n"
[ "$(ls "$T"/nf_*.etl | wc -l)" -ge 2 ] || fail "newfile: no rotation"

run trace-buffering "$T/buf.etl"
[ "$(value trace-buffering flushed)" -eq "$n" ] || fail "buffering: flush wrote $(value trace-buffering flushed)"
[ "$(events "$T/buf.etl")" -eq "$n" ] || fail "buffering: etldump counts differ"

run trace-realtime
[ "$(value trace-realtime received)" -eq "$n" ] || fail "realtime received $(value trace-realtime received) of $n"
exit 0

#!/bin/sh
# etlconvert -j N writes what -j 1 writes, byte for byte: every corpus file
# in every rendered format with -j 2, 3 and 8 (the files INDEX.md gives a
# manifest decoded with it), and with -j 8 several inputs merged, filters,
# --explain, compressed outputs, damaged inputs (the same messages in the
# same order, the same exit status), a write that fails, the progress
# display, -f etl (one thread whatever N is), and a --manifest that can be
# read only once (a FIFO: one thread). Small files are cut into batches of
# a few events (ETLCONVERT_BATCH_EVENTS) so that every worker takes turns,
# and the schemas a merged trace carries (EventMetadata, in-band manifests)
# are learnt across workers. Every thread starts at once
# (ETLCONVERT_LAZY_BYTES=0: small inputs would otherwise start the others
# only when worth it, most often never); each file and format, and the
# runs where schemas are learnt across workers, are also converted with
# the others starting late, a few events into the trace
# (ETLCONVERT_LAZY_EVENTS), after the reader logged schemas for them.
# Corpus: ../shared/corpus/INDEX.md, ../shared/manifests/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
M=${ETL_MANIFESTS:-$C/../manifests}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
[ -d "$M" ] || { echo "SKIP: no manifests at $M"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
ETLCONVERT_LAZY_BYTES=0
export ETLCONVERT_LAZY_BYTES
lazy_bytes=0 lazy_at=         # what same() passes
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# The reference: -j 1 with ARGS into $d/want (stdout), $d/want.err, $wrc.
want() {
	"$X" -q -j 1 "$@" > "$d/want" 2> "$d/want.err"
	wrc=$?
}
# -j N (batches of B events when B is not empty) with the same ARGS gives
# the same stdout, stderr and exit status.
same() {   # N B ARGS...
	n=$1 b=$2
	shift 2
	ETLCONVERT_BATCH_EVENTS=$b ETLCONVERT_LAZY_BYTES=$lazy_bytes ETLCONVERT_LAZY_EVENTS=$lazy_at \
		"$X" -q -j "$n" "$@" > "$d/got" 2> "$d/got.err"
	rc=$?
	[ $rc -eq $wrc ] || fail "-j $n (batch ${b:-default}) $*: exit $rc, -j 1 exited $wrc"
	cmp -s "$d/want" "$d/got" || fail "-j $n (batch ${b:-default}) $*: the output differs"
	cmp -s "$d/want.err" "$d/got.err" || fail "-j $n (batch ${b:-default}) $*: stderr differs:
$(diff "$d/want.err" "$d/got.err" | head -5)"
}
# Every N against -j 1; files under 1 MB in batches of N - 1 events. Then
# -j 3 with the other two threads starting at event 7 (batches of 2
# events: the reader has sent three by then), as inputs under the size
# limit (raised to 1 GiB, so that every input is under it) start them.
every_n() {   # SIZE ARGS...
	small=$1
	shift
	want "$@"
	for n in 2 3 8; do
		b=
		[ "$small" -lt 1048576 ] && b=$((n - 1))
		same $n "$b" "$@"
	done
	lazy_bytes=1073741824 lazy_at=7
	same 3 2 "$@"
	lazy_bytes=0 lazy_at=
}

# ---- every corpus file, every format ----------------------------------------
files=0
for f in "$C"/*.etl; do
	case $(basename "$f") in
	clr-*|perfview-*) man="--manifest $M/dotnet-runtime.ClrEtwAll.man" ;;
	win7-httpservice-*) man="--manifest $M/httpservice.HTTP_Server.man" ;;
	win7-kernel-process-*) man="--manifest $M/windows-system.SystemEvents.man" ;;
	*) man= ;;
	esac
	size=$(wc -c < "$f")
	for fmt in xml json jsonl csv text; do
		# shellcheck disable=SC2086
		every_n "$size" -f $fmt $man "$f"
	done
	files=$((files + 1))
done
[ $files -ge 18 ] || fail "only $files corpus files"

# ---- merged inputs, schemas learnt across workers, filters, --explain ----
S=$C/eventsource-selfdescribing-compressed.etl
T=$C/eventsource-primitive-types.etl
A=$C/amsi-tracelogging.etl
W=$C/wdi-shutdown-perfdiag-kernel.etl
for fmt in xml json jsonl csv text; do
	every_n 0 -f $fmt --allow-same-input "$S" "$T" "$S" "$A" "$S" "$T"
done
every_n 0 -f jsonl --explain --allow-same-input "$S" "$S" "$T" "$T"
every_n 0 -f json --explain --manifest "$M" "$C/clr-gc-circular.etl" "$S" "$C/win7-httpservice-manifest.etl"
# Filters that leave out the EventMetadata records the kept events need
# (DNS-Client and Kernel-File of the PerfView trace: 566 events).
every_n 0 -f jsonl --explain --provider 1c95126e-7eea-49a9-a3fe-a378b03ddb4d \
	--provider edd08927-9cc4-4e65-b970-c2560fb5c289 "$C/perfview-kernel-clr-x64-compressed.etl"
grep -c '"DecodingSource":"EventMetadata"' "$d/want" | grep -q '^566$' ||
	fail "filtered PerfView trace: $(grep -c EventMetadata "$d/want") events decoded from EventMetadata"
# The same with the log of those records bounded to nothing: the reading
# worker waits at every one until every worker has learnt it, rendering
# and learning itself meanwhile.
ETLCONVERT_LOG_BYTES=1
export ETLCONVERT_LOG_BYTES
every_n 0 -f jsonl --explain --provider 1c95126e-7eea-49a9-a3fe-a378b03ddb4d \
	--provider edd08927-9cc4-4e65-b970-c2560fb5c289 "$C/perfview-kernel-clr-x64-compressed.etl"
grep -c '"DecodingSource":"EventMetadata"' "$d/got" | grep -q '^566$' ||
	fail "filtered PerfView trace, log bounded: $(grep -c EventMetadata "$d/got") events decoded from EventMetadata"
# The EventMetadata records themselves kept (their provider's 85 events,
# decoded with the kernel's MOF class): the first two events carry
# schemas too, and the prologue waits at them for the workers.
every_n 0 -f jsonl --explain --provider bbccf6c1-6cd1-48c4-80ff-839482e37671 \
	"$C/perfview-kernel-clr-x64-compressed.etl"
grep -c '"EventName":"EventMetadata"' "$d/got" | grep -q '^85$' ||
	fail "PerfView's EventMetadata records, log bounded: $(grep -c EventMetadata "$d/got") of 85"
unset ETLCONVERT_LOG_BYTES
every_n 0 -f text --provider EventTrace --provider 22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716 \
	--manifest "$M" "$C/win7-kernel-process-manifest.etl"
every_n 0 -f csv --pid 4 --level 4 "$W" "$A"
every_n 0 -f xml --since 2020-02-28T17:15:50.5 --until 2020-02-28T17:15:52 "$W"
every_n 0 -f jsonl --id 8 --keyword 0x80 --manifest "$M" "$C/win7-kernel-process-manifest.etl"

# ---- outputs: files, .gz and .lz4 (whose frames depend on the cuts) -----
for o in out.xml out.jsonl.gz out.text.lz4; do
	fmt=${o#out.}
	fmt=${fmt%%.*}
	"$X" -q -j 1 -f "$fmt" "$W" "$A" -o "$d/1.$o" || fail "-j 1 -o $o: exit $?"
	for b in "" 1 7; do
		ETLCONVERT_BATCH_EVENTS=$b "$X" -q -j 8 -f "$fmt" "$W" "$A" -o "$d/8.$o" ||
			fail "-j 8 -o $o: exit $?"
		cmp -s "$d/1.$o" "$d/8.$o" || fail "-j 8 -o $o (batch ${b:-default}): the file differs"
	done
done

# ---- damaged inputs: the same messages in the same order ------------------
# Records of a copy of win7-kernel-process-manifest.etl (8 KiB buffers, the
# first record at 0x48) given flags that promise extended items (the rest
# of the buffer is lost) or retyped as ERROR records (a warning).
K=$d/damaged.etl
cp "$C/win7-kernel-process-manifest.etl" "$K" && chmod u+w "$K" || exit 1
for n in 3 10 50 51 100 150 170; do
	printf '\001\000\000\000' | dd of="$K" bs=1 seek=$((n * 8192 + 76)) conv=notrunc 2>/dev/null
done
for n in 20 80 130; do
	printf '\015' | dd of="$K" bs=1 seek=$((n * 8192 + 74)) conv=notrunc 2>/dev/null
done
for fmt in xml jsonl text; do
	every_n 0 -f $fmt --manifest "$M" "$K"
	[ $wrc -eq 2 ] || fail "damaged: exit $wrc, expected 2"
	[ "$(wc -l < "$d/want.err")" -eq 10 ] || fail "damaged: $(wc -l < "$d/want.err") messages, expected 10"
done
every_n 0 -f jsonl "$K" "$A" "$K" --allow-same-input
# A gzip input cut short, from standard input: the input's messages at its end.
gzip -c "$C/win7-kernel-process-manifest.etl" | head -c 60000 > "$d/cut.etl.gz"
for n in 2 3 8; do
	want -f text - < "$d/cut.etl.gz"
	[ $wrc -eq 2 ] || fail "cut gzip: exit $wrc, expected 2"
	same $n $((n - 1)) -f text - < "$d/cut.etl.gz"
done

# ---- a write that fails: exit 3, the message, the target untouched -------
mkdir "$d/o"
echo keep > "$d/o/t.xml"
for n in 1 8; do
	( trap '' XFSZ; ulimit -f 450 2>/dev/null || exit 99
	  exec "$X" -q -j $n -f xml "$W" -o "$d/o/t.xml" ) 2> "$d/err.$n"
	rc=$?
	[ $rc -eq 99 ] && break
	[ $rc -eq 3 ] || fail "-j $n write failure: exit $rc ($(cat "$d/err.$n"))"
	[ "$(cat "$d/o/t.xml")" = keep ] || fail "-j $n write failure: target changed"
	[ "$(ls "$d/o")" = t.xml ] || fail "-j $n write failure: left $(ls "$d/o")"
done
[ $rc -eq 99 ] || cmp -s "$d/err.1" "$d/err.8" || fail "write failure: messages differ"

# ---- the progress display (a terminal from script(1), input over 8 MiB) --
if command -v script >/dev/null; then
	cp "$W" "$d/a.etl" && cp "$W" "$d/b.etl" || exit 1
	"$X" -q "$W" "$d/a.etl" "$d/b.etl" -o "$d/big.etl" || fail "making the big input: exit $?"
	for n in 1 2 8; do
		script -qec "'$X' -j $n -f csv '$d/big.etl' >'$d/p.$n.csv'" "$d/log" >/dev/null 2>&1 </dev/null
		grep -v '^Script ' "$d/log" > "$d/tty.$n"      # script's own lines name the command
	done
	grep -q '[0-9]%' "$d/tty.1" || fail "progress: not shown with -j 1"
	for n in 2 8; do
		cmp -s "$d/tty.1" "$d/tty.$n" || fail "progress: -j $n shows another display"
		cmp -s "$d/p.1.csv" "$d/p.$n.csv" || fail "progress: -j $n output differs"
	done
fi

# ---- -f etl: -j is accepted, one thread does the work --------------------
"$X" -j 1 "$W" "$A" -o "$d/1.etl" || fail "-f etl -j 1: exit $?"
"$X" -j 8 "$W" "$A" -o "$d/8.etl" || fail "-f etl -j 8: exit $?"
cmp -s "$d/1.etl" "$d/8.etl" || fail "-f etl: -j 8 differs"
"$X" -j 8 --split-size 1M "$W" -o "$d/s8.etl" || fail "-f etl -j 8 --split-size: exit $?"
"$X" -j 1 --split-size 1M "$W" -o "$d/s1.etl" || fail "-f etl -j 1 --split-size: exit $?"
for p in "$d"/s1_*.etl; do
	cmp -s "$p" "$d/s8_${p##*/s1_}" || fail "--split-size: ${p##*/} differs"
done

# ---- a --manifest that can be read once: a FIFO, one thread -------------
mkfifo "$d/man.fifo" || fail "mkfifo"
cat "$M/windows-system.SystemEvents.man" > "$d/man.fifo" &
"$X" -q -j 8 -f jsonl --manifest "$d/man.fifo" "$C/win7-kernel-process-manifest.etl" > "$d/fifo.jsonl" ||
	fail "FIFO manifest: exit $?"
wait
"$X" -q -j 1 -f jsonl --manifest "$M/windows-system.SystemEvents.man" "$C/win7-kernel-process-manifest.etl" \
	> "$d/file.jsonl" || fail "manifest file: exit $?"
cmp -s "$d/fifo.jsonl" "$d/file.jsonl" || fail "FIFO manifest: the output differs"

# ---- usage errors ---------------------------------------------------------
for bad in 0 257 x 2x ""; do
	"$X" -f xml -j "$bad" "$A" > "$d/out" 2> "$d/err"
	rc=$?
	[ $rc -eq 1 ] || fail "-j '$bad': exit $rc, expected 1"
	grep -q "^etlconvert: invalid -j '$bad': expected a number of threads from 1 to 256" "$d/err" ||
		fail "-j '$bad': $(cat "$d/err")"
	[ -s "$d/out" ] && fail "-j '$bad' wrote output"
done
"$X" -q -f text --jobs=256 "$A" > "$d/j256" || fail "--jobs=256: exit $?"
"$X" -q -f text -j 1 "$A" | cmp -s - "$d/j256" || fail "--jobs=256: the output differs"
exit 0

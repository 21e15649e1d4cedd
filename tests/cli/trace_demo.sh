#!/bin/sh
# trace-demo (testdata/programs/trace-demo.c) writes every write kind of the
# tracing runtime from two threads and prints "events N" last: the file
# must hold exactly N events besides the EventTrace header records, 100 of
# each of the six kinds, and etlconvert must decode every TraceLogging one.
E=${ETLDUMP:-./build/bin/etldump}
fail() { echo "FAIL: $*"; exit 1; }
D=$(dirname "$E")
C="$D/etlconvert"
# Programs are built into BUILD_DIR/programs, beside BUILD_DIR/bin.
P="$D/../programs"
[ -x "$P/trace-demo" ] || fail "trace-demo not built (looked in $P)"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

"$P/trace-demo" "$T/demo.etl" > "$T/out" || fail "trace-demo exit $?"
last=$(tail -n 1 "$T/out")
case "$last" in
"events "[0-9]*) n=${last#events } ;;
*) fail "last line is '$last', not 'events N'" ;;
esac
[ "$n" -eq 600 ] || fail "trace-demo wrote $n events, expected 600"
prov=$(sed -n 's/^provider LibEtl.TraceDemo //p' "$T/out")
[ -n "$prov" ] || fail "no provider line"

# Every record: N events + the logfile header + PartitionInfoExtension.
total=$("$E" --count "$T/demo.etl") || fail "etldump --count exit $?"
hdr=$("$E" --count --provider EventTrace "$T/demo.etl") || fail "etldump --count EventTrace"
[ $((total - hdr)) -eq "$n" ] || fail "file has $total records, $hdr header records; expected $n events"
# The events of the demo's provider, class GUID and message GUID: all of them.
mine=$("$E" --count --provider LibEtl.TraceDemo --provider 6c1f7e2a-41d3-4b8e-9a51-0d3e7712a4c9 \
	--provider 0b5e8f41-2c77-4f09-8d16-5a24e3906b01 "$T/demo.etl")
[ "$mine" -eq "$n" ] || fail "--provider counts $mine, expected $n"
for k in EVENT_HEADER64:300 FULL_HEADER64:100 INSTANCE64:100 MESSAGE:100; do
	c=$("$E" --count --type "${k%:*}" "$T/demo.etl")
	[ "$c" -eq "${k#*:}" ] || fail "${k%:*}: $c events, expected ${k#*:}"
done

"$E" --summary --json "$T/demo.etl" > "$T/sum.json" || fail "summary exit $?"
grep -q '"records": 602' "$T/sum.json" || fail "summary records: $(grep records "$T/sum.json")"
grep -q '"events_lost": 0' "$T/sum.json" || fail "summary lost: $(grep lost "$T/sum.json")"
grep -q '"11": 100' "$T/sum.json" || fail "summary: EVENT_SCHEMA_TL items"
grep -q '"12": 100' "$T/sum.json" || fail "summary: PROV_TRAITS items"
grep -q "\"guid\": \"$prov\", \"name\": null, \"count\": 300" "$T/sum.json" || fail "summary: provider $prov"

"$C" -q -f jsonl "$T/demo.etl" > "$T/all.jsonl" || fail "etlconvert exit $?"
[ "$(wc -l < "$T/all.jsonl")" -eq 602 ] || fail "etlconvert wrote $(wc -l < "$T/all.jsonl") lines"
grep '"EventName":"Step"' "$T/all.jsonl" > "$T/tl.jsonl"
[ "$(wc -l < "$T/tl.jsonl")" -eq 100 ] || fail "$(wc -l < "$T/tl.jsonl") TraceLogging events decoded, expected 100"
grep -q ProcessingErrorData "$T/tl.jsonl" && fail "a TraceLogging event failed to decode"
grep -c '"Provider":{"Name":"LibEtl.TraceDemo"' "$T/tl.jsonl" | grep -qx 100 || fail "provider name"
grep -q '"EventData":{"Thread":1,"Index":49,"Name":"worker-1","Ratio":24.5,' "$T/tl.jsonl" ||
	fail "TraceLogging fields not decoded as written"
grep -q '"Pair":\[1,49\]' "$T/tl.jsonl" || fail "array field"

# With the demo's manifest and TMF, the manifest-style and WPP events decode
# too: only the 200 classic and instance events (their MOF not given) stay
# undecoded, with their payload.
"$C" -q -f jsonl --manifest testdata/programs/trace-demo.man --tmf testdata/programs/trace-demo.tmf \
	"$T/demo.etl" > "$T/dec.jsonl" || fail "etlconvert with manifest and TMF exit $?"
[ "$(grep -c ProcessingErrorData "$T/dec.jsonl")" -eq 200 ] ||
	fail "$(grep -c ProcessingErrorData "$T/dec.jsonl") undecoded events, expected the 200 classic ones"
[ "$(grep -c '"EventName":"WorkDone"' "$T/dec.jsonl")" -eq 100 ] || fail "WorkDone events"
[ "$(grep -c '"EventName":"Handoff"' "$T/dec.jsonl")" -eq 100 ] || fail "Handoff events"
grep -q '"EventData":{"Thread":0,"Iteration":49},"RenderingInfo":{"Culture":"en-US","Message":"Thread 0 finished iteration 49"' \
	"$T/dec.jsonl" || fail "manifest event not decoded as written"
grep '"Message":"Thread 1 hands iteration 7 to a new activity"' "$T/dec.jsonl" |
	grep -q '"RelatedActivityID":"{' || fail "transfer event: message or related activity"
[ "$(grep -c '"Message":"Thread [01] iteration [0-9]*"' "$T/dec.jsonl")" -eq 100 ] || fail "WPP messages"
grep -q '"EventData":{"thread":1,"iteration":49,' "$T/dec.jsonl" || fail "WPP arguments"

# With its MOF as well, every event decodes: the header and the 601 records
# (testdata/programs/trace-demo.mof: class 6c1f7e2a-..., types 10 and 11).
"$C" -q -f jsonl --manifest testdata/programs/trace-demo.man --tmf testdata/programs/trace-demo.tmf \
	--mof testdata/programs/trace-demo.mof "$T/demo.etl" > "$T/mof.jsonl" || fail "etlconvert with MOF exit $?"
[ "$(wc -l < "$T/mof.jsonl")" -eq 602 ] || fail "with MOF: $(wc -l < "$T/mof.jsonl") lines"
grep -q ProcessingErrorData "$T/mof.jsonl" && fail "with MOF: $(grep -c ProcessingErrorData "$T/mof.jsonl") undecoded"
[ "$(grep -c '"Provider":{"Name":"TraceDemo_Step","Guid":"{6c1f7e2a-41d3-4b8e-9a51-0d3e7712a4c9}"}' "$T/mof.jsonl")" -eq 200 ] ||
	fail "classic events: provider"
grep '"Opcode":10,' "$T/mof.jsonl" | grep -q '"EventData":{"Thread":1,"Iteration":49},"RenderingInfo":{"Culture":"en-US","Opcode":"Step"' ||
	fail "classic event not decoded as written"
grep '"Opcode":11,' "$T/mof.jsonl" | grep -q '"EventData":{"Thread":0,"Iteration":49},"RenderingInfo":{"Culture":"en-US","Opcode":"InstanceStep"' ||
	fail "instance event not decoded as written"

# The libetl(3) example program: built from testdata/programs/example.c,
# which must be the program the manual shows.
[ -x "$P/example" ] || fail "example not built"
out=$("$P/example" "$T/ex.etl") || fail "example exit $?"
[ "$out" = "events 6, lost 0" ] || fail "example printed '$out'"
[ "$("$E" --count --provider Example.Provider "$T/ex.etl")" -eq 4 ] || fail "example: provider events"
if [ -f man/libetl.3 ] && [ -f testdata/programs/example.c ]; then
	sed -n '/^A program that traces/,/^\.fi$/p' man/libetl.3 | sed '1,4d;$d' |
		sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e 's/^\\&//' > "$T/man_example.c"
	sed -n '/^#include <stdio.h>/,$p' testdata/programs/example.c > "$T/src_example.c"
	cmp -s "$T/man_example.c" "$T/src_example.c" ||
		fail "man/libetl.3 example differs from testdata/programs/example.c: $(diff "$T/man_example.c" "$T/src_example.c" | head -5)"
fi
exit 0

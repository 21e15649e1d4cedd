#!/bin/sh
# etlconvert -f xml|json|jsonl|csv|text: standard output by default, -o
# FILE (written to a temporary and renamed), .gz / .lz4 outputs, merged
# inputs in time order, filters, the header event, undecodable events kept,
# exit statuses. The output formats themselves are checked byte for byte
# by tests/check_output.c (golden files). Corpus sources:
# ../shared/corpus/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
A=$C/wsl-lxcore-tracelogging.etl       # 2020-07-14, 4 records
B=$C/amsi-tracelogging.etl             # 2020-02-17, 21 records
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

lines() { wc -l < "$1" | tr -d ' '; }

# Standard output is the default; -o - and -o FILE give the same bytes.
for fmt in xml json jsonl csv text; do
	"$X" -f $fmt "$A" > "$d/stdout.$fmt" 2>"$d/err" || fail "$fmt to stdout: exit $? ($(cat "$d/err"))"
	[ -s "$d/err" ] && fail "$fmt: stderr: $(cat "$d/err")"
	"$X" -f $fmt "$A" -o - > "$d/dash.$fmt" || fail "$fmt -o -: exit $?"
	cmp -s "$d/stdout.$fmt" "$d/dash.$fmt" || fail "$fmt: -o - differs from the default"
	"$X" -f $fmt "$A" -o "$d/file.$fmt" > "$d/none" || fail "$fmt -o FILE: exit $?"
	[ -s "$d/none" ] && fail "$fmt -o FILE wrote to stdout"
	cmp -s "$d/stdout.$fmt" "$d/file.$fmt" || fail "$fmt: -o FILE differs from stdout"
	ls "$d" | grep -q '\.tmp-' && fail "$fmt: a temporary was left: $(ls "$d")"
	# Standard input.
	"$X" -f $fmt - < "$A" > "$d/stdin.$fmt" || fail "$fmt from stdin: exit $?"
	cmp -s "$d/stdout.$fmt" "$d/stdin.$fmt" || fail "$fmt: standard input differs"
done

# Every record once (the logfile header as the header event), nothing
# dropped: 4 text lines, 4 jsonl lines, 5 CSV rows (with the column row).
[ "$(lines "$d/stdout.text")" = 4 ] || fail "text: $(lines "$d/stdout.text") lines, expected 4"
[ "$(lines "$d/stdout.jsonl")" = 4 ] || fail "jsonl: $(lines "$d/stdout.jsonl") lines"
[ "$(lines "$d/stdout.csv")" = 5 ] || fail "csv: $(lines "$d/stdout.csv") rows"
head -1 "$d/stdout.csv" | grep -q '^TimeCreated,ProviderName,ProviderGuid,EventID,Version,Level,Task,Opcode,Keywords,ProcessID,ThreadID,ProcessorID,HeaderType,PayloadSize,Properties.$' ||
	fail "csv: column row: $(head -1 "$d/stdout.csv")"
head -1 "$d/stdout.text" | grep -q ' EventTrace/Header .* SessionNameString=lxcore_kernel ' || fail "text: no header event first"
[ "$(grep -c 'SessionNameString' "$d/stdout.text")" = 1 ] || fail "text: the header written twice"
head -c 200 "$d/stdout.json" | grep -q '^{"Header":{"System":{"Provider":{"Name":"EventTrace","Guid":"{68fdd900-4a3e-11d1-84f4-0000f80464e3}"}' ||
	fail "json: does not start with the header event"
head -2 "$d/stdout.xml" | tr -d '\n' | grep -q '^<?xml version="1.0" encoding="UTF-8"?><Events>$' || fail "xml: prologue"
tail -1 "$d/stdout.xml" | grep -q '^</Events>$' || fail "xml: no </Events> at the end"
[ "$(grep -c '^<Event xmlns="http://schemas.microsoft.com/win/2004/08/events/event">' "$d/stdout.xml")" = 4 ] ||
	fail "xml: not 4 events"
# The TraceLogging events and the EventTrace records are decoded.
grep -q '<Data Name="Function">LxpDrvFsTypeMount</Data>' "$d/stdout.xml" || fail "xml: TraceLogging property missing"
grep -q '<Data Name="PartitionType">0</Data>' "$d/stdout.xml" || fail "xml: PartitionInfoExtension not decoded"
# An event without a schema (Microsoft-Windows-PowerShell, whose manifest
# is not given) is kept with its payload in hex and the reason.
S=$C/powershell-manifest.etl
"$X" -f xml "$S" > "$d/nos.xml" || fail "xml of $S: exit $?"
"$X" -f text "$S" > "$d/nos.text" || fail "text of $S: exit $?"
grep -q '<ProcessingErrorData><ErrorCode>11</ErrorCode><DataItemName/><EventPayload>20002000200020002000' "$d/nos.xml" ||
	fail "xml: no ProcessingErrorData"
grep -q 'ProcessingErrorData.*<!-- no schema for this event: provider=a0c1853b-5c40-4b15-8766-3cf1c58f985a, id=7937, version=1' "$d/nos.xml" ||
	fail "xml: no reason comment"
grep -q 'a0c1853b-5c40-4b15-8766-3cf1c58f985a id=7937 .* ErrorCode=11 Reason="no schema for this event: .*" EventPayload=20002000' "$d/nos.text" ||
	fail "text: undecodable event not kept"
# The records a trace merge adds are decoded (SystemConfigEx, FULL_HEADER64,
# in a relogged file): the system paths keep their trailing backslash.
M=$C/eventsource-selfdescribing-compressed.etl
"$X" -f xml "$M" > "$d/merged.xml" || fail "xml of $M: exit $?"
grep -q '<Data Name="SystemWindowsDirectory">C:\\WINDOWS\\</Data>' "$d/merged.xml" ||
	fail "xml: SystemConfigEx SystemPaths not decoded"
grep -q 'ProcessingErrorData' "$d/merged.xml" && fail "xml: $M has an undecoded event"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$d/stdout.xml" || fail "xml: not well-formed"
fi
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$d/stdout.json" || fail "json: invalid"
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$d/stdout.jsonl" || fail "jsonl: invalid"
fi

# .gz and .lz4 outputs are the plain output compressed as a stream.
"$X" -q -f xml "$A" -o "$d/o.xml.gz" || fail ".gz: exit $?"
gzip -t "$d/o.xml.gz" || fail ".gz: not a valid gzip file"
gzip -dc "$d/o.xml.gz" | cmp -s - "$d/stdout.xml" || fail ".gz: content differs"
if command -v zcat >/dev/null 2>&1; then
	zcat "$d/o.xml.gz" | cmp -s - "$d/stdout.xml" || fail ".gz: zcat content differs"
fi
"$X" -f jsonl "$A" -o "$d/o.jsonl.lz4" || fail ".lz4: exit $?"
if command -v lz4 >/dev/null 2>&1; then
	lz4 -dc "$d/o.jsonl.lz4" | cmp -s - "$d/stdout.jsonl" || fail ".lz4: content differs"
fi
head -c 4 "$d/o.jsonl.lz4" | od -An -tx1 | grep -q '04 22 4d 18' || fail ".lz4: no LZ4 frame magic"
ls "$d" | grep -q '\.tmp-' && fail "compressed: a temporary was left"

# Merged inputs: every record of both, in time order (B started earlier),
# the first input's header as the header event first, B's logfile header
# as an ordinary event.
"$X" -f text "$A" "$B" > "$d/m.text" || fail "merge: exit $?"
[ "$(lines "$d/m.text")" = 25 ] || fail "merge: $(lines "$d/m.text") lines, expected 4 + 21"
head -1 "$d/m.text" | grep -q 'SessionNameString=lxcore_kernel' || fail "merge: first line is not A's header"
sed 1d "$d/m.text" | cut -c1-28 | sort -c 2>/dev/null || fail "merge: not in time order"
[ "$(grep -c 'EventTrace/Header ' "$d/m.text")" = 2 ] || fail "merge: not two logfile headers"
"$X" -f json "$A" "$B" -o "$d/m.json" || fail "merge json: exit $?"
if command -v python3 >/dev/null 2>&1; then
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["Events"]))' "$d/m.json")
	[ "$n" = 24 ] || fail "merge json: $n events, expected 24 after the header"
fi

# Filters: the header event stays; other records are filtered.
"$X" -f text --pid 5876 "$A" > "$d/f.text" || fail "--pid: exit $?"
[ "$(lines "$d/f.text")" = 3 ] || fail "--pid: $(lines "$d/f.text") lines, expected header + 2"
head -1 "$d/f.text" | grep -q 'EventTrace/Header' || fail "--pid: no header event"
[ "$(grep -c 'pid=5876 ' "$d/f.text")" = 2 ] || fail "--pid: events"
"$X" -f csv --provider EventTrace "$B" > "$d/f.csv" || fail "--provider: exit $?"
n=$("$E" --count --provider EventTrace "$B")
[ "$(lines "$d/f.csv")" = $((n + 1)) ] || fail "--provider: $(lines "$d/f.csv") rows, expected $n + 1"

# A file without a logfile header: JSON "Header": null, jsonl first line null.
cp "$A" "$d/nohdr.etl" && chmod u+w "$d/nohdr.etl"
printf '\001' | dd of="$d/nohdr.etl" bs=1 seek=78 conv=notrunc 2>/dev/null
"$X" -f json "$d/nohdr.etl" 2>/dev/null | head -1 | grep -q '^{"Header":null,$' || fail "no header: json"
[ "$("$X" -f jsonl "$d/nohdr.etl" 2>/dev/null | head -1)" = null ] || fail "no header: jsonl"

# Damaged input: exit 2, the loss reported, the rest written.
head -c 100000 "$B" > "$d/cut.etl"
"$X" -f jsonl "$d/cut.etl" -o "$d/cut.jsonl" 2>"$d/err"
rc=$?
[ $rc -eq 2 ] || fail "damaged: exit $rc, expected 2"
grep -q "^etlconvert: $d/cut.etl: offset 0x10000: " "$d/err" || fail "damaged: stderr: $(cat "$d/err")"
[ "$(lines "$d/cut.jsonl")" = 13 ] || fail "damaged: $(lines "$d/cut.jsonl") lines, expected 13"

# A missing input: exit 3, an existing output untouched, nothing left.
mkdir "$d/o"
echo keep > "$d/o/t.xml"
"$X" -f xml "$A" "$d/nope.etl" -o "$d/o/t.xml" 2>"$d/err"
rc=$?
[ $rc -eq 3 ] || fail "missing input: exit $rc, expected 3"
grep -q 'nope.etl' "$d/err" || fail "missing input: $(cat "$d/err")"
[ "$(cat "$d/o/t.xml")" = keep ] || fail "missing input: output changed"
[ "$(ls "$d/o")" = t.xml ] || fail "missing input: left $(ls "$d/o")"
# An output directory that does not exist: exit 3.
"$X" -f text "$A" -o /nonexistent-dir/x.txt 2>"$d/err"
rc=$?
[ $rc -eq 3 ] || fail "missing directory: exit $rc, expected 3"
grep -q '^etlconvert: /nonexistent-dir/x.txt: ' "$d/err" || fail "missing directory: $(cat "$d/err")"
# Writes that fail partway (file-size limit, SIGXFSZ ignored): exit 3,
# the output untouched, no temporary left.
( trap '' XFSZ; ulimit -f 100 2>/dev/null || exit 99
  exec "$X" -f xml "$C/wdi-shutdown-perfdiag-kernel.etl" -o "$d/o/t.xml" ) 2>"$d/err"
rc=$?
if [ $rc -ne 99 ]; then
	[ $rc -eq 3 ] || fail "write failure: exit $rc, expected 3 ($(cat "$d/err"))"
	grep -q "^etlconvert: $d/o/t.xml: cannot write" "$d/err" || fail "write failure: $(cat "$d/err")"
	[ "$(cat "$d/o/t.xml")" = keep ] || fail "write failure: output changed"
	[ "$(ls "$d/o")" = t.xml ] || fail "write failure: left $(ls "$d/o")"
fi

# Usage errors: exit 1, nothing written.
usage() {   # pattern, args...
	pat=$1
	shift
	out=$("$X" "$@" 2>"$d/err")
	rc=$?
	[ $rc -eq 1 ] || fail "'$*' exited $rc, expected 1"
	[ -z "$out" ] || fail "'$*' printed on stdout"
	grep -q "^etlconvert: .*$pat" "$d/err" || fail "'$*': stderr: $(cat "$d/err")"
}
usage "no input file" -f xml
usage "--raw goes with -f etl only" -f xml --raw "$A"
usage "--split-size and --split-time go with -f etl only" -f json --split-size 1M "$A"
usage "--compress and --no-compress go with -f etl only" -f csv --compress "$A"
usage "--manifest: .*x.man: No such file" -f xml --manifest "$d/x.man" "$A"
usage "--tmf: .*x.tmf" -f text --tmf "$d/x.tmf" "$A"
usage "--manifest, --tmf and --mof go with" --manifest "$d/x.man" "$A" -o "$d/o.etl"
usage "--manifest, --tmf and --mof go with" --mof "$d/x.mof" "$A" -o "$d/o.etl"
usage "--mof: .*x.mof: No such file" -f json --mof "$d/x.mof" "$A"
printf 'class A : EventTrace {\n  uint32 X\n};\n' > "$d/bad.mof"
usage "--mof: .*bad.mof:3: expected ';' after a property" -f jsonl --mof "$d/bad.mof" "$A"
usage "standard input can be read only once" -f text - - < "$A"
[ -e "$d/o.etl" ] && fail "a usage error wrote the output"
exit 0

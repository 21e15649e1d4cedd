#!/bin/sh
# etlconvert --explain (-f json, jsonl): every event says which decoder
# source decoded it ("DecodingSource"), and a merged trace decodes from the
# EventMetadata it carries: without a manifest, with a manifest (which wins
# where it defines an event), and with a filter that leaves the EventMetadata
# records themselves out. --explain with another format is a usage error;
# without it the output has no such member. Corpus: ../shared/corpus/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
M=${ETL_MANIFESTS:-$C/../manifests}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
P=$C/perfview-kernel-clr-x64-compressed.etl
DNS=1c95126e-7eea-49a9-a3fe-a378b03ddb4d      # Microsoft-Windows-DNS-Client: no manifest
FILE=edd08927-9cc4-4e65-b970-c2560fb5c289     # Microsoft-Windows-Kernel-File: SystemEvents.man

count() { grep -c "\"DecodingSource\":\"$2\"" "$1"; }

# The whole trace without a manifest: the schemas it carries decode 66 394
# events; DotNETRuntimePrivate, which has none, stays undecoded.
"$X" -q -f jsonl --explain "$P" > "$d/all.jsonl" 2>"$d/err" || fail "exit $? ($(cat "$d/err"))"
[ "$(count "$d/all.jsonl" EventMetadata)" = 66394 ] || fail "EventMetadata: $(count "$d/all.jsonl" EventMetadata)"
[ "$(count "$d/all.jsonl" none)" = 1627 ] || fail "none: $(count "$d/all.jsonl" none)"
[ "$(count "$d/all.jsonl" MOF)" = 111330 ] || fail "MOF: $(count "$d/all.jsonl" MOF)"
[ "$(count "$d/all.jsonl" manifest)" = 122 ] || fail "manifest (in-band): $(count "$d/all.jsonl" manifest)"
# The header event has none; every other line has one.
[ "$(grep -vc DecodingSource "$d/all.jsonl")" = 1 ] || fail "lines without DecodingSource"

# Filtered to one provider: its schema records are left out of the output
# but still read.
"$X" -f jsonl --explain --provider $DNS "$P" > "$d/dns.jsonl" || fail "dns: exit $?"
[ "$(count "$d/dns.jsonl" EventMetadata)" = 4 ] || fail "DNS-Client: $(cat "$d/dns.jsonl")"
grep -q '"EventData":{"Interface":"Ethernet","TotalServerCount":4,"Index":1,"DynamicAddress":1,"AddressLength":28,"Address":"\[2001:4898::1050:1050\]:0"},"DecodingSource":"EventMetadata"' "$d/dns.jsonl" ||
	fail "DNS-Client 1001 values"
grep -q '"Name":"EventMetadata"' "$d/dns.jsonl" && fail "the filter let an EventMetadata record through"

# A manifest wins where it defines the event.
"$X" -f json --explain --manifest "$M" --provider $FILE "$P" > "$d/file.json" || fail "file: exit $?"
[ "$(count "$d/file.json" manifest)" -gt 0 ] || fail "Kernel-File with its manifest: no manifest source"
[ "$(count "$d/file.json" EventMetadata)" = 0 ] || fail "Kernel-File: EventMetadata despite the manifest"
"$X" -f json --explain --provider $FILE "$P" > "$d/file2.json" || fail "file2: exit $?"
[ "$(count "$d/file2.json" manifest)" = 0 ] || fail "Kernel-File without a manifest: manifest source"
[ "$(count "$d/file2.json" EventMetadata)" = "$(count "$d/file.json" manifest)" ] ||
	fail "Kernel-File: not every event decoded from EventMetadata"
"$X" -f jsonl --explain --manifest "$M" --provider $DNS "$P" > "$d/dns2.jsonl" || fail "dns2: exit $?"
cmp -s "$d/dns.jsonl" "$d/dns2.jsonl" || fail "DNS-Client: the manifests (which lack it) changed the output"

# Undecoded events say so (and keep their reason).
"$X" -f jsonl --explain "$C/powershell-manifest.etl" > "$d/ps.jsonl" || fail "ps: exit $?"
[ "$(count "$d/ps.jsonl" none)" = 112 ] || fail "PowerShell: $(count "$d/ps.jsonl" none) undecoded"
grep -q '"Reason":"no schema for this event: [^"]*"},"DecodingSource":"none"' "$d/ps.jsonl" || fail "PowerShell: reason"

# Without --explain: no DecodingSource.
"$X" -f jsonl "$C/wsl-lxcore-tracelogging.etl" > "$d/plain.jsonl" || fail "plain: exit $?"
grep -q DecodingSource "$d/plain.jsonl" && fail "DecodingSource without --explain"

# --explain with another format: usage error.
for fmt in xml csv text; do
	"$X" -f $fmt --explain "$P" > /dev/null 2>"$d/err"
	rc=$?
	[ $rc -eq 1 ] || fail "-f $fmt --explain: exit $rc, expected 1"
	grep -q -- "--explain goes with -f json and -f jsonl only, not -f $fmt" "$d/err" || fail "-f $fmt: $(cat "$d/err")"
done
"$X" --explain "$P" -o "$d/x.etl" > /dev/null 2>"$d/err"
[ $? -eq 1 ] || fail "-f etl --explain: not a usage error"
[ -e "$d/x.etl" ] && fail "-f etl --explain wrote an output"
exit 0

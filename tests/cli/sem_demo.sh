#!/bin/sh
# sem-demo (testdata/programs/sem-demo.c) plays boot, user logon,
# standby/resume and shutdown through the SEM with the configuration
# Windows installs: DiagLog.etl and WdiContextLog.etl must hold exactly the
# events of each provider the play implies (etldump --summary --json), be
# read with no error, carry their logger names and the demo's own clock,
# and etlconvert with testdata/manifests/kernel-wdi.man must decode the
# Kernel-WDI status events with their names and the event-32 message.
E=${ETLDUMP:-./build/bin/etldump}
fail() { echo "FAIL: $*"; exit 1; }
D=$(dirname "$E")
C="$D/etlconvert"
P="$D/../programs"
[ -x "$P/sem-demo" ] || fail "sem-demo not built (looked in $P)"
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

"$P/sem-demo" "$T/out" > "$T/log" || fail "sem-demo exit $?: $(cat "$T/log")"
grep -qx "diaglog 17" "$T/log" || fail "diaglog count: $(tail -2 "$T/log")"
grep -qx "context 38" "$T/log" || fail "context count: $(tail -2 "$T/log")"
grep -q "^scenarios started 4, ended 4, status events 8$" "$T/log" || fail "scenario figures"
[ "$(grep -c ' activity {' "$T/log")" -eq 4 ] || fail "four scenarios played"

# provider GUID (lower case) and count, as the summary lists them.
count() { # FILE GUID
	sed -n "s/.*\"guid\": \"$2\", \"name\": [^,]*, \"count\": \([0-9]*\)}.*/\1/p" "$1"
}
expect() { # FILE GUID N WHAT
	got=$(count "$1" "$2")
	[ "${got:-0}" -eq "$3" ] || fail "$4: ${got:-0} events, expected $3"
}

"$E" --summary --json "$T/out/DiagLog.etl" > "$T/d.json" || fail "etldump DiagLog exit $?"
"$E" --summary --json "$T/out/WdiContextLog.etl" > "$T/c.json" || fail "etldump WdiContextLog exit $?"
for f in d c; do
	grep -q '"errors_total": 0' "$T/$f.json" || fail "$f: errors"
	grep -q '"warnings_total": 0' "$T/$f.json" || fail "$f: warnings"
	grep -q '"events_lost": 0,' "$T/$f.json" || fail "$f: events lost"
	grep -q '"start_time": "2024-05-01T08:00:00.0000000Z"' "$T/$f.json" || fail "$f: start time"
done
grep -q '"logger_name": "DiagLog"' "$T/d.json" || fail "DiagLog logger name"
grep -q '"logger_name": "WdiContextLog"' "$T/c.json" || fail "WdiContextLog logger name"
grep -q '"records": 19,' "$T/d.json" || fail "DiagLog records: $(grep records "$T/d.json")"
grep -q '"records": 40,' "$T/c.json" || fail "WdiContextLog records: $(grep records "$T/c.json")"

# DiagLog: Kernel-WDI 4 x 32 and 4 x 33; the start and end events; the
# plain write of Winlogon 5001.
expect "$T/d.json" 2ff3e6b7-cb90-4700-9621-443f389734ed 8 "DiagLog Kernel-WDI"
expect "$T/d.json" 96ac7637-5950-4a30-b8f7-e07e8e5734c1 1 "DiagLog Kernel-BootDiagnostics"
expect "$T/d.json" dbe9b383-7cf3-4331-91cc-a3cb16a3b538 5 "DiagLog Winlogon"
expect "$T/d.json" 331c3b3a-2005-44c2-ac5e-77220c37d6b4 3 "DiagLog Kernel-Power"
expect "$T/d.json" 68fdd900-4a3e-11d1-84f4-0000f80464e3 2 "DiagLog EventTrace"
grep -q '"guid": "2ff3e6b7-cb90-4700-9621-443f389734ed", "name": null, "id": 32, "event": "id=32", "count": 4' \
	"$T/d.json" || fail "DiagLog: four 32"
grep -q '"guid": "2ff3e6b7-cb90-4700-9621-443f389734ed", "name": null, "id": 33, "event": "id=33", "count": 4' \
	"$T/d.json" || fail "DiagLog: four 33"
grep -q '"guid": "dbe9b383-7cf3-4331-91cc-a3cb16a3b538", "name": null, "id": 5001, "event": "id=5001", "count": 2' \
	"$T/d.json" || fail "DiagLog: Winlogon 5001 plain and as a start"

# WdiContextLog: two events per context provider per scenario it runs in.
for pc in 0063715b-eeda-4007-9429-ad526f62696e:6:Services dbe9b383-7cf3-4331-91cc-a3cb16a3b538:6:Winlogon \
	331c3b3a-2005-44c2-ac5e-77220c37d6b4:6:Kernel-Power 5322d61a-9efa-4bc3-a3f9-14be95c144f8:2:Prefetch \
	7efe4ab3-990d-4350-a878-cd8772888199:2:boot-system 9c205a39-1250-487d-abd7-e831c6290539:2:PnP \
	30336ed4-e327-447c-9de0-51b652c86108:2:Shell-Core 41932cab-7e12-40d6-a728-62d30e054593:2:boot-user \
	2e35aaeb-857f-4beb-a418-2e6c0e54d988:2:UMDF 63d1e632-95cc-4443-9312-af927761d52a:2:HAL \
	206f6dea-d3c5-4d10-bc72-989f03c8b84b:2:Wininit ad5c7a10-4e08-45e1-81b5-cb5eb6ec8917:2:shutdown \
	e8316a2d-0d94-4f52-85dd-1e15b66c5891:2:Subsys-Csr 68fdd900-4a3e-11d1-84f4-0000f80464e3:2:EventTrace; do
	g=${pc%%:*}; rest=${pc#*:}
	expect "$T/c.json" "$g" "${rest%%:*}" "WdiContextLog ${rest#*:}"
done
# Unrelated providers, the SEM's own events and the start events: nowhere.
for f in d c; do
	grep -q '6a7e1d52-93b4-4e0c-a1f2-5c3d4b6e7f8' "$T/$f.json" && fail "$f: an unrelated provider's event"
done
grep -q 2ff3e6b7 "$T/c.json" && fail "WdiContextLog: a Kernel-WDI event"
grep -q 96ac7637 "$T/c.json" && fail "WdiContextLog: the boot start event"

# The status events, decoded by the manifest.
"$C" -q -f jsonl --manifest testdata/manifests/kernel-wdi.man "$T/out/DiagLog.etl" > "$T/d.jsonl" ||
	fail "etlconvert exit $?"
grep ProcessingErrorData "$T/d.jsonl" | grep -q 2ff3e6b7 && fail "a status event did not decode"
[ "$(grep -c '"EventName":"SEM_SCENARIO_STARTED"' "$T/d.jsonl")" -eq 4 ] || fail "32 not named"
[ "$(grep -c '"EventName":"SEM_SCENARIO_ENDED"' "$T/d.jsonl")" -eq 4 ] || fail "33 not named"
grep -q '"Message":"The Scenario Event Mapper started a scenario for provider {96ac7637-5950-4a30-b8f7-e07e8e5734c1} (event ID 501) with 5 context providers. The context logger dropped event count was 0."' \
	"$T/d.jsonl" || fail "the boot's event-32 message"
grep '"EventID":32' "$T/d.jsonl" | grep '"EventID":1,' |
	grep -q '"ActionCount":3,"Actions":\[{"ProviderID":"{2e35aaeb-857f-4beb-a418-2e6c0e54d988}","Level":4,"Reserved":"00000000000000","Keyword":"0x1","EnableProperty":0,"NTStatus":"0x0"},{"ProviderID":"{331c3b3a-2005-44c2-ac5e-77220c37d6b4}","Level":4,"Reserved":"00000000000000","Keyword":"0xc"' ||
	fail "standby/resume: the merged context providers in 32"

# The same play gives the same events at the same times: the demo's clock,
# not the machine's. (Which processor's buffer an event lands in is the
# scheduler's: buffer counts may differ.)
"$P/sem-demo" "$T/again" > /dev/null || fail "second run"
same() { grep -v '"file"\|log_file_name\|buffers' "$1"; }
"$E" --summary --json "$T/again/DiagLog.etl" > "$T/d2.json"
same "$T/d.json" > "$T/d1.txt"
same "$T/d2.json" | cmp -s "$T/d1.txt" - || fail "DiagLog differs between runs"
exit 0

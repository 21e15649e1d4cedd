#!/bin/sh
# --summary --json: exactly one JSON object with the documented keys,
# checked against the corpus figures (expected.json). No python/jq needed.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

has() {
	printf '%s\n' "$js" | grep -qF -- "$1" || fail "$f: no '$1' in: $js"
}

# airbus-cert/etl-parser AMSITrace.etl (Apache-2.0)
f=amsi-tracelogging.etl
js=$("$E" --summary --json "$C/$f") || fail "$f: exit $?"
[ "$(printf '%s\n' "$js" | head -1)" = "{" ] || fail "$f: does not start with {"
[ "$(printf '%s\n' "$js" | tail -1)" = "}" ] || fail "$f: does not end with }"
[ "$(printf '%s\n' "$js" | grep -c '^[{}]')" -eq 2 ] || fail "$f: more than one top-level object"
has '"records": 21,'
has '"buffers": 6,'
has '"compressed_buffers": 0,'
has '"header_types": {"SYSTEM64": 2, "EVENT_HEADER64": 19}'
has '"ext_item_types": {"11": 19, "12": 19}'
has '"logger_name": "AMSITraceSession"'
has '"log_file_name": "c:\\work\\AMSITrace.etl"'
has '"pointer_size": 8,'
has '"build": 18362,'
has '"version": "10.0.1.5"'
has '"log_file_mode": 134217729,'
has '"clock_type": 1,'
has '"perf_freq": 10000000,'
has '"number_of_processors": 8,'
has '"events_lost": 3,'
has '"buffers_lost": 0,'
has '"start_time": "2020-02-17T12:48:30.4203138Z"'
has '"end_time": "2020-02-17T12:50:00.0260662Z"'
has '"first_event_time": "2020-02-17T12:48:30.4203138Z"'
has '"last_event_time": "2020-02-17T12:49:50.4024329Z"'
has '"errors": []'
has '{"guid": "8e805eb3-6a8f-4a1e-90fa-a831d94e54a1", "name": null, "count": 19}'
has '{"guid": "68fdd900-4a3e-11d1-84f4-0000f80464e3", "name": "EventTrace", "count": 2}'

# microsoft/perfview net.4.5.2.x64.etl (MIT): compressed, 7 header types
f=perfview-kernel-clr-x64-compressed.etl
js=$("$E" --summary --json "$C/$f") || fail "$f: exit $?"
has '"records": 179474,'
has '"buffers": 360,'
has '"compressed_buffers": 359,'
has '"SYSTEM32": 2'
has '"SYSTEM64": 3189'
has '"PERFINFO64": 100157'
has '"FULL_HEADER32": 27'
has '"FULL_HEADER64": 7956'
has '"EVENT_HEADER32": 33378'
has '"EVENT_HEADER64": 34765'
has '"ext_item_types": {"1": 3, "6": 655}'
has '"version": "6.2.2.0"'
has '"build": 9200,'

# google/syzygy test_data_32_v0.etl (Apache-2.0): 32-bit classic headers
f=vista-classic-mixed-32.etl
js=$("$E" --summary --json "$C/$f") || fail "$f: exit $?"
has '"records": 27,'
has '"header_types": {"SYSTEM32": 1, "FULL_HEADER32": 26}'
has '"pointer_size": 4,'
has '"version": "6.0.1.4"'

# jtmoon79/super-speedy-syslog-searcher CldFlt0 WPP log (MIT)
f=onedrive-cldflt-wpp.etl
js=$("$E" --summary --json "$C/$f") || fail "$f: exit $?"
has '"records": 17,'
has '"MESSAGE": 13'
has '"log_file_mode": 2415919106,'

# The human-readable summary has the same figures.
txt=$("$E" --summary "$C/amsi-tracelogging.etl") || fail "--summary: exit $?"
printf '%s\n' "$txt" | grep -Eq '^records +21$' || fail "--summary: records: $txt"
printf '%s\n' "$txt" | grep -Eq '^  EVENT_HEADER64 +19$' || fail "--summary: header type counts: $txt"
printf '%s\n' "$txt" | grep -Eq '^lost +3 events, 0 buffers' || fail "--summary: lost: $txt"
exit 0

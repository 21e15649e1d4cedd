#!/bin/sh
# Filters on wsl-lxcore-tracelogging.etl (airbus-cert/etl-parser
# lxcore_kernel.etl, Apache-2.0): 2 SYSTEM64 EventTrace records (pid 6112,
# cpu 0, level 0) and 2 EVENT_HEADER64 records of the LxCore provider
# {0cd1c309-0878-4515-83db-749843b3f5c9} (pid 5876, tid 2868, cpus 5 and 3,
# level 2, keyword 0x400000000000), at 12:04:36.9026510 and .9038717, 5.48 s
# after the trace start 2020-07-14T12:04:31.1387363Z.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/wsl-lxcore-tracelogging.etl
fail() { echo "FAIL: $*"; exit 1; }

count() {
	want=$1
	shift
	n=$("$E" --count "$@" "$F")
	rc=$?
	[ $rc -eq 0 ] || fail "$*: exit $rc"
	[ "$n" = "$want" ] || fail "$*: counted '$n', expected $want"
}

count 4
count 2 --provider 0cd1c309-0878-4515-83db-749843b3f5c9
count 2 --provider '{0CD1C309-0878-4515-83DB-749843B3F5C9}'
count 0 --provider 0cd1c309-0878-4515-83db-749843b3f5ca
count 2 --provider EventTrace
count 2 --provider eventtrace
count 4 --provider eventtrace --provider 0cd1c309-0878-4515-83db-749843b3f5c9
count 0 --provider Microsoft.Windows.Subsystem.LxCore.NoSuchName
count 2 --type SYSTEM64
count 2 --type event_header64
count 4 --type SYSTEM64 --type EVENT_HEADER64
count 0 --type PERFINFO64
count 2 --pid 5876
count 2 --pid 6112
count 1 --pid 6112 --opcode 80
count 1 --id 0x50
count 2 --tid 2868
count 1 --tid 2868 --cpu 3
count 1 --cpu 5
count 4 --level 2
count 2 --level 1
count 2 --keyword 0x400000000000
count 2 --keyword 70368744177664
count 0 --keyword 0x1
count 1 --opcode 0 --type SYSTEM64
count 2 --since 5
count 2 --until 5
count 1 --since 5.7641
count 4 --since -1
count 1 --since 2020-07-14T12:04:36.903
count 1 --since 2020-07-14T12:04:36.9026510Z --until 2020-07-14T12:04:36.9026511Z
count 0 --since 2020-07-14T12:04:36.9026511Z --until 2020-07-14T12:04:36.9038717Z
count 4 --since 2020-07-14 --until 2020-07-15
count 0 --since 2021-01-01
# AND of several conditions
count 1 --provider 0cd1c309-0878-4515-83db-749843b3f5c9 --cpu 3 --level 2 --since 5

# Filters apply to the listing and to the summary, but "records" always
# counts every record.
n=$("$E" --type SYSTEM64 "$F" | wc -l)
[ "$n" -eq 2 ] || fail "listing with --type SYSTEM64: $n lines"
js=$("$E" --summary --json --type SYSTEM64 "$F")
printf '%s\n' "$js" | grep -q '"records": 4,' || fail "filtered --json: records is not 4"
printf '%s\n' "$js" | grep -q '"matched_events": 2,' || fail "filtered --json: matched_events is not 2"
printf '%s\n' "$js" | grep -q '"header_types": {"SYSTEM64": 2}' || fail "filtered --json: header_types"
exit 0

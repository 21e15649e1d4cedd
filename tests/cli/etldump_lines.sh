#!/bin/sh
# The default listing: one aligned line per event with time, cpu, pid, tid,
# header type, provider, id/opcode (+hook), level, keywords, payload size
# (airbus-cert/etl-parser lxcore_kernel.etl, Apache-2.0).
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

out=$("$E" "$C/wsl-lxcore-tracelogging.etl") || fail "exit $?"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 4 ] || fail "expected 4 lines: $out"
line() {
	l=$(printf '%s\n' "$out" | sed -n "$1p")
	printf '%s\n' "$l" | grep -Eq "$2" || fail "line $1 does not match '$2': $l"
}
line 1 '^2020-07-14T12:04:31\.1387363Z +cpu=0 +pid=6112 +tid=8064 +SYSTEM64 +EventTrace/Header +op=0 hook=0x0000 +lvl=0 +kw=0x0 +size=360$'
line 2 ' EventTrace/PartitionInfoExtension +op=80 hook=0x0050 '
line 3 '^2020-07-14T12:04:36\.9026510Z +cpu=5 +pid=5876 +tid=2868 +EVENT_HEADER64 +0cd1c309-0878-4515-83db-749843b3f5c9 +id=0 +lvl=2 +kw=0x400000000000 +size=118$'
line 4 '^2020-07-14T12:04:36\.9038717Z +cpu=3 .* size=88$'

# Columns line up: each field starts at the same position on every line.
for key in cpu= pid= tid= lvl= kw= size=; do
	cols=$(printf '%s\n' "$out" | awk -v k="$key" '{ print index($0, k) }' | sort -u | wc -l)
	[ "$cols" -eq 1 ] || fail "column $key is not aligned"
done

# PERFINFO headers carry no process or thread id
# (microsoft/perfview net.4.5.2.x64.etl, MIT).
l=$("$E" --type PERFINFO64 "$C/perfview-kernel-clr-x64-compressed.etl" | head -1)
printf '%s\n' "$l" | grep -Eq ' pid=- +tid=- +PERFINFO64 ' || fail "PERFINFO line: $l"

# Time order: times never decrease (AMSITrace.etl has buffers stored out of
# sequence: 0,4,5,1,2,3).
"$E" "$C/amsi-tracelogging.etl" | cut -c1-28 | sort -c 2>/dev/null || fail "time order is not sorted"
"$E" --file-order "$C/amsi-tracelogging.etl" | cut -c1-28 | sort -c 2>/dev/null && fail "file order looks time-sorted"
a=$("$E" "$C/amsi-tracelogging.etl" | sort | cksum)
b=$("$E" --file-order "$C/amsi-tracelogging.etl" | sort | cksum)
[ "$a" = "$b" ] || fail "time and file order do not hold the same events"

# WPP messages (jtmoon79/super-speedy-syslog-searcher CldFlt0 log, MIT).
n=$("$E" "$C/onedrive-cldflt-wpp.etl" | grep -Ec ' MESSAGE +[0-9a-f-]{36} +id=[0-9]+ ')
[ "$n" -eq 13 ] || fail "$n MESSAGE lines, expected 13"
exit 0

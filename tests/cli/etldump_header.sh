#!/bin/sh
# --header prints every logfile-header field, decoded
# (airbus-cert/etl-parser AMSITrace.etl, Apache-2.0).
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

out=$("$E" --header "$C/amsi-tracelogging.etl") || fail "exit $?"
field() {
	printf '%s\n' "$out" | grep -Eq "^  $1 +$2" || fail "no line '$1 $2' in: $out"
}
field buffer_size '65536 \(0x10000\)'
field version '10\.0\.1\.5 '
field 'provider_version \(build\)' '18362'
field number_of_processors 8
field end_time '2020-02-17T12:50:00\.0260662Z'
field timer_resolution 156250
field log_file_mode '0x08000001 FILE_MODE_SEQUENTIAL\|INDEPENDENT_SESSION'
field buffers_written 6
field pointer_size 8
field events_lost 3
field cpu_speed_mhz 1992
field clock_interrupt_source '9 \(Apic\)'
field perf_counter_source '6 \(ProcessorCounter\)'
field time_zone.bias '-60 min'
field time_zone.standard_name '"@tzres\.dll,-302"'
field time_zone.standard_date 'every year, last Sunday of October at 03:00:00\.000'
field time_zone.daylight_name '"@tzres\.dll,-301"'
field time_zone.daylight_date 'every year, last Sunday of March at 02:00:00\.000'
field time_zone.daylight_bias '-60 min'
field boot_time '2020-02-14T08:33:14\.5000000Z'
field perf_freq '10000000 Hz'
field start_time '2020-02-17T12:48:30\.4203138Z'
field 'clock_type \(reserved_flags\)' '1 \(QPC\)'
field buffers_lost 0
field logger_name '"AMSITraceSession"'
field log_file_name '"c:\\work\\AMSITrace\.etl"'
# --header alone prints no events.
printf '%s\n' "$out" | grep -q 'cpu=' && fail "--header printed events"

# A compressed relogged file (microsoft/perfview, MIT).
out=$("$E" --header "$C/clr-rundown-32bit-compressed.etl") || fail "exit $?"
printf '%s\n' "$out" | grep -q '^logfile header: 32-bit form' || fail "not the 32-bit form: $out"
field log_file_mode '0x04011001 FILE_MODE_SEQUENTIAL\|ADD_HEADER\|RELOG\|COMPRESSED'
field logger_name '"PerfWatsonGCHeapETLSession688"'

# With --count, the header comes first, then the count.
out=$("$E" --header --count "$C/wsl-lxcore-tracelogging.etl") || fail "exit $?"
[ "$(printf '%s\n' "$out" | tail -1)" = 4 ] || fail "--header --count does not end with the count"
printf '%s\n' "$out" | head -1 | grep -q '^logfile header' || fail "--header --count does not start with the header"
exit 0

#!/bin/sh
# Warnings are not damage: the event is still printed, the warning goes to
# stderr, and the exit status stays 0. Copies of lxcore_kernel.etl
# (airbus-cert/etl-parser, Apache-2.0) are patched.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
t=$(mktemp) || exit 1
err=$(mktemp) || exit 1
trap 'rm -f "$t" "$err"' EXIT

# 1. The EVENT_HEADER64 record at 0x2048 retyped as TRACE_HEADER_TYPE_ERROR
#    (0x0D), which the reader returns with ETL_WARN.
cp "$C/wsl-lxcore-tracelogging.etl" "$t" && chmod u+w "$t"
printf '\015' | dd of="$t" bs=1 seek=8266 conv=notrunc 2>/dev/null
out=$("$E" "$t" 2>"$err")
rc=$?
[ $rc -eq 0 ] || fail "ERROR record: exit $rc, expected 0"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 4 ] || fail "ERROR record: expected 4 lines: $out"
printf '%s\n' "$out" | grep -Eq ' ERROR +0{8}-' || fail "the ERROR record is not listed: $out"
grep -q "^etldump: $t: offset 0x2048: warning: " "$err" || fail "no warning on stderr: $(cat "$err")"
js=$("$E" --summary --json "$t" 2>/dev/null)
printf '%s\n' "$js" | grep -q '"warnings_total": 1' || fail "--json warnings_total is not 1"
printf '%s\n' "$js" | grep -q '"errors_total": 0' || fail "--json errors_total is not 0"

# 2. The first record's HookId changed from 0 to 1: no logfile header. The
#    open warns, the events are still read with raw timestamps.
cp "$C/wsl-lxcore-tracelogging.etl" "$t" && chmod u+w "$t"
printf '\001' | dd of="$t" bs=1 seek=78 conv=notrunc 2>/dev/null
out=$("$E" "$t" 2>"$err")
rc=$?
[ $rc -eq 0 ] || fail "no header: exit $rc, expected 0"
grep -q "warning: The first record is not a logfile header" "$err" || fail "no header: stderr: $(cat "$err")"
[ "$(printf '%s\n' "$out" | grep -c '^ts=[0-9]* ')" -eq 4 ] || fail "no header: expected 4 raw-timestamp lines: $out"
"$E" --header "$t" 2>/dev/null | grep -q '^logfile header: none' || fail "no header: --header"
js=$("$E" --summary --json "$t" 2>/dev/null)
printf '%s\n' "$js" | grep -q '"logfile": null,' || fail "no header: logfile is not null"
printf '%s\n' "$js" | grep -q '"first_event_time": null,' || fail "no header: first_event_time is not null"
printf '%s\n' "$js" | grep -q '"records": 4,' || fail "no header: records is not 4"
exit 0

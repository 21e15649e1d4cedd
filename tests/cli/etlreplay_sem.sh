#!/bin/sh
# etlreplay with the SEM (--config, --system-hive, --out-dir, --report;
# doc/sem.md §13): testdata/sample/windows-scenarios.etl replayed through
# the configuration Windows installs writes DiagLog.etl and
# WdiContextLog.etl beside OUT (or into --out-dir), the --report JSON byte
# for byte as testdata/sample/windows-scenarios.report.json (from the .reg
# file and from the hives alike), one table row per instance on stdout;
# OUT still holds every event of the input; --speed changes nothing in
# the report; a file of the SEM that names
# an input is refused before anything is read and leaves the input as it
# was; an unusable configuration and an unwritable directory are clear
# errors that leave nothing behind; and the trace sem-trace writes now
# replays to the same report.
E=${ETLDUMP:-./build/bin/etldump}
D=$(dirname "$E")
R=$D/etlreplay
P=$D/../programs
IN=testdata/sample/windows-scenarios.etl
REPORT=testdata/sample/windows-scenarios.report.json
W=testdata/wdi
fail() { echo "FAIL: $*"; exit 1; }
for f in "$IN" "$REPORT" "$W/windows-default.reg" "$W/windows-default.SYSTEM.hive" "$W/windows-default.SOFTWARE.hive"; do
	[ -f "$f" ] || { echo "SKIP: no $f"; exit 77; }
done
[ -x "$R" ] || fail "etlreplay not built ($R)"
T=$(mktemp -d) || fail "mktemp"
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT

run() {                   # run EXPECTED-STATUS ARGS...: stdout in $T/out, stderr in $T/err
	want=$1
	shift
	"$R" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$T/err")"
}
row() {                   # row TEXT: one table row holds every TEXT
	line=$(grep -F -- "$1" "$T/out") || fail "no row with '$1': $(cat "$T/out")"
	shift
	for t in "$@"; do
		echo "$line" | grep -qF -- "$t" || fail "the row '$line' has no '$t'"
	done
}
summary() {               # summary FILE: etldump --summary --json, no damage
	"$E" --summary --json "$1" > "$T/s.json" || fail "etldump $1: exit $?"
	grep -q '"errors_total": 0' "$T/s.json" || fail "$1: errors"
	grep -q '"events_lost": 0,' "$T/s.json" || fail "$1: events lost"
}

# The replay with the .reg file: files beside OUT, the report, the table.
mkdir "$T/a"
run 0 "$IN" -o "$T/a/out.etl" --config "$W/windows-default.reg" --report "$T/a/report.json"
[ -s "$T/err" ] && fail "stderr: $(cat "$T/err")"
cmp "$T/a/report.json" "$REPORT" || fail "the report differs from $REPORT"
[ "$(ls -A "$T/a" | sort | tr '\n' ' ')" = "DiagLog.etl WdiContextLog.etl out.etl report.json " ] ||
	fail "files left: $(ls -A "$T/a")"
grep -qx 'SEM: 10 scenario instances (7 ended, 1 timed out, 2 open)' "$T/out" || fail "table head: $(head -1 "$T/out")"
grep -q '^SCENARIOS  *ACTIVITY  *START  *END  *DURATION  *CONTEXT EVENTS$' "$T/out" || fail "table headings"
[ "$(wc -l < "$T/out")" -eq 13 ] || fail "table: $(wc -l < "$T/out") lines, expected 13"
row "boot {67144949-5132-4859-8036-A737B43825D8}" "{96AC7637-5950-4A30-B8F7-E07E8E5734C1};501 2024-05-01T08:00:06.0000000Z" \
	"{DBE9B383-7CF3-4331-91CC-A3CB16A3B538};5007 2024-05-01T08:00:24.0000000Z" " 18.000 s " \
	"{0063715B-EEDA-4007-9429-AD526F62696E} 3, {5322D61A-9EFA-4BC3-A3F9-14BE95C144F8} 2,"
row "power transition {533A67EB-9FB5-473D-B884-958CF4B9C4A3}, standby/resume {FFC42108-4920-4ACF-A4FC-8ABDCC68ADA4}" \
	" 10.000 s " "{331C3B3A-2005-44C2-AC5E-77220C37D6B4} 4"
row "secondary logon {9F41811A" "timeout 2024-05-01T08:11:40.0000000Z" " 610.000 s " \
	"{0063715B-EEDA-4007-9429-AD526F62696E} 11,"
row "{00000001-0000-0000-01DA-9B9F622BE480}" "device start {AA526ADC" " 3.000 s " 
row "{00000003-0000-0000-01DA-9B9F635D1180}" "device eject {924F25BC" "2024-05-01T08:13:03.0000000Z   open"
grep -qx "SEM: $T/a/DiagLog.etl 41 events, $T/a/WdiContextLog.etl 55 events, 0 lost" "$T/out" ||
	fail "totals: $(tail -1 "$T/out")"

# The files: DiagLog 41 events (19 start and end events, 22 of Kernel-WDI),
# WdiContextLog 55, their logger names and final names in the headers;
# OUT holds the input's 129 events.
summary "$T/a/DiagLog.etl"
grep -q '"records": 43,' "$T/s.json" || fail "DiagLog records: $(grep records "$T/s.json")"
grep -q '"logger_name": "DiagLog"' "$T/s.json" || fail "DiagLog logger name"
grep -q "\"log_file_name\": \"$T/a/DiagLog.etl\"" "$T/s.json" || fail "DiagLog file name in its header"
grep -q '"guid": "2ff3e6b7-cb90-4700-9621-443f389734ed", "name": null, "count": 22}' "$T/s.json" ||
	fail "DiagLog: 22 status events"
summary "$T/a/WdiContextLog.etl"
grep -q '"records": 57,' "$T/s.json" || fail "WdiContextLog records: $(grep records "$T/s.json")"
grep -q '"logger_name": "WdiContextLog"' "$T/s.json" || fail "WdiContextLog logger name"
grep -q 2ff3e6b7 "$T/s.json" && fail "WdiContextLog: a Kernel-WDI event"
grep -q '6a7e1d52-93b4-4e0c-a1f2-5c3d4b6e7f9' "$T/s.json" && fail "WdiContextLog: an unrelated provider's event"
summary "$T/a/out.etl"
grep -q '"records": 131,' "$T/s.json" || fail "OUT records: $(grep records "$T/s.json")"

# The offline hives, --out-dir: the same report; files in DIR only.
mkdir "$T/b" "$T/b/sem"
run 0 "$IN" -o "$T/b/out.etl" --system-hive "$W/windows-default.SYSTEM.hive" \
	--software-hive "$W/windows-default.SOFTWARE.hive" --out-dir "$T/b/sem" --report "$T/b/r.json"
cmp "$T/b/r.json" "$REPORT" || fail "the report from the hives differs"
[ -f "$T/b/sem/DiagLog.etl" ] && [ -f "$T/b/sem/WdiContextLog.etl" ] || fail "no files in --out-dir"
[ "$(ls -A "$T/b" | sort | tr '\n' ' ')" = "out.etl r.json sem " ] || fail "beside OUT: $(ls -A "$T/b")"
[ "$(ls -A "$T/b/sem" | wc -l)" -eq 2 ] || fail "in --out-dir: $(ls -A "$T/b/sem")"

# Paced (--speed): the SEM hears of time from the events only, so the
# report is the same.
mkdir "$T/g"
run 0 "$IN" -o "$T/g/out.etl" --config "$W/windows-default.reg" --report "$T/g/r.json" --speed 4000
cmp "$T/g/r.json" "$REPORT" || fail "a paced replay gives another report"

# --realtime: no OUT; the SEM's files go to the current directory.
mkdir "$T/c"
TOP=$(pwd)
RA=$(cd "$D" && pwd)/etlreplay
(cd "$T/c" && "$RA" --realtime "$TOP/$IN" --config "$TOP/$W/windows-default.reg" > out.txt 2> err.txt) ||
	fail "--realtime exit $?: $(cat "$T/c/err.txt")"
[ -f "$T/c/DiagLog.etl" ] && [ -f "$T/c/WdiContextLog.etl" ] || fail "--realtime: no files in the current directory"
grep -q '^SEM: 10 scenario instances' "$T/c/out.txt" || fail "--realtime: no table"

# A file of the SEM that is an input: refused before anything is read.
mkdir "$T/d"
cp "$IN" "$T/d/DiagLog.etl"
cksum "$T/d/DiagLog.etl" > "$T/d.sum"
run 1 "$T/d/DiagLog.etl" -o "$T/d/out.etl" --config "$W/windows-default.reg"
grep -q 'is never overwritten' "$T/err" || fail "no refusal: $(cat "$T/err")"
cksum "$T/d/DiagLog.etl" | cmp -s - "$T/d.sum" || fail "the input was changed"
[ "$(ls -A "$T/d")" = "DiagLog.etl" ] || fail "files left: $(ls -A "$T/d")"
run 1 "$IN" -o "$T/d/out.etl" --config "$W/windows-default.reg" --report "$IN"
run 1 "$IN" -o "$T/d/WdiContextLog.etl" --config "$W/windows-default.reg"
grep -q 'both the output and a file of the SEM' "$T/err" || fail "OUT as a file of the SEM: $(cat "$T/err")"
run 1 "$IN" -o "$T/d/out.etl" --config "$W/windows-default.reg" --report "$T/d/DiagLog.etl"

# An unusable configuration: 1; one that cannot be read: 3; an unwritable
# directory: 3. Nothing is left behind.
mkdir "$T/e"
run 1 "$IN" -o "$T/e/out.etl" --config "$IN"
run 3 "$IN" -o "$T/e/out.etl" --config "$T/e/no-such.reg"
grep -q 'no-such.reg' "$T/err" || fail "the missing configuration is not named: $(cat "$T/err")"
mkdir "$T/e/ro"
chmod a-w "$T/e/ro"
if [ ! -w "$T/e/ro" ]; then
	run 3 "$IN" -o "$T/e/out.etl" --config "$W/windows-default.reg" --out-dir "$T/e/ro"
	[ -z "$(ls -A "$T/e/ro")" ] || fail "files left in the unwritable directory"
fi
[ "$(ls -A "$T/e")" = "ro" ] || fail "files left: $(ls -A "$T/e")"

# Diagnostics are warnings: the replay goes on.
run 0 "$IN" -o "$T/e/out.etl" --config "$W/start-name-no-id.reg" --out-dir "$T/e"
grep -q 'warning:' "$T/err" || fail "no warning for a configuration with diagnostics"
grep -qx 'SEM: 0 scenario instances (0 ended, 0 timed out, 0 open)' "$T/out" || fail "no instance expected"

# The trace as sem-trace writes it now replays to the same report.
if [ -x "$P/sem-trace" ]; then
	"$P/sem-trace" "$T/f.etl" > /dev/null || fail "sem-trace exit $?"
	mkdir "$T/f"
	run 0 "$T/f.etl" -o "$T/f/out.etl" --config "$W/windows-default.reg" --report "$T/f/r.json"
	cmp "$T/f/r.json" "$REPORT" || fail "sem-trace's trace gives another report"
fi
exit 0

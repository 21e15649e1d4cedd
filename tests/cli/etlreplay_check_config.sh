#!/bin/sh
# etlreplay --check-config: the text report, the JSON contract (against a
# golden file, for the .reg file and for the offline hives alike), exit
# statuses 0/1/2/3, usage errors, and what is not --check-config being a
# replay (which needs an output).
E=${ETLDUMP:-./build/bin/etldump}
R=$(dirname "$E")/etlreplay
W=testdata/wdi
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp) && err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT

run() {                   # run EXPECTED-STATUS ARGS...: stdout in $out, stderr in $err
	want=$1
	shift
	"$R" "$@" >"$out" 2>"$err"
	rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$err")"
}
has() { grep -qF -- "$1" "$out" || fail "no '$1' in the output of '$2'"; }
says() { grep -qF -- "$1" "$err" || fail "no '$1' on stderr of '$2': $(cat "$err")"; }

# --help, --version
run 0 --help
grep -q '^Usage: etlreplay ' "$out" || fail "--help has no Usage line"
grep -q '^ *etlreplay --check-config' "$out" || fail "--help has no --check-config usage line"
has '--system-hive' --help
run 0 -V
grep -Eq '^etlreplay \(libetl\) [0-9]+\.[0-9]+\.[0-9]+$' "$out" || fail "bad --version: $(cat "$out")"

# Everything but --check-config is a replay, which needs an output (-o or
# --realtime); --json is --check-config's.
for args in "" "trace.etl" "--system-hive $W/windows-default.SYSTEM.hive"; do
	# shellcheck disable=SC2086
	run 1 $args </dev/null
	[ -s "$out" ] && fail "'$args' printed on stdout"
	says 'no output: give -o OUT.etl, or --realtime' "$args"
done
run 1 --json $W/windows-default.reg -o x.etl
[ -s "$out" ] && fail "'--json' printed on stdout"
says '--json goes with --check-config' "--json"

# Usage errors: exit 1, a message and the --help hint, nothing on stdout.
usage() {
	run 1 "$@"
	[ -s "$out" ] && fail "'$*' printed on stdout"
	says "--help" "$*"
}
usage --check-config
usage --check-config $W/merge.reg $W/merge.reg
usage --check-config=$W/merge.reg $W/merge.reg
usage --check-config $W/merge.reg --system-hive $W/windows-default.SYSTEM.hive
usage --check-config --software-hive $W/windows-default.SOFTWARE.hive
usage --check-config --system-hive
usage --check-config --no-such-option $W/merge.reg
says "no-such-option" "--no-such-option"

# The Windows default configuration: clean, exit 0.
run 0 --check-config $W/windows-default.reg
has 'SEM enabled' text
has 'timeout 10 minutes (housekeeping every 60 seconds)' text
has 'start events: 8' text
has '  start event {331C3B3A-2005-44C2-AC5E-77220C37D6B4};1  level 1  keyword 0x1  enable_property 0x0  timeout yes' text
has '    scenarios {533A67EB-9FB5-473D-B884-958CF4B9C4A3} {FFC42108-4920-4ACF-A4FC-8ABDCC68ADA4}' text
has '    context provider {331C3B3A-2005-44C2-AC5E-77220C37D6B4}  level 4  keyword 0xC  enable_property 0x0  capture_state no' text
has 'DiagLog providers: 6' text
has 'diagnostics: 0' text

# The JSON contract, byte for byte, from the .reg file and from the hives.
run 0 --check-config --json $W/windows-default.reg
cmp -s "$out" $W/windows-default.json || fail "--json differs from $W/windows-default.json: $(diff "$out" $W/windows-default.json | head)"
run 0 --check-config=$W/windows-default.reg -j
cmp -s "$out" $W/windows-default.json || fail "--check-config=FILE -j differs"
run 0 --check-config --json --system-hive $W/windows-default.SYSTEM.hive --software-hive $W/windows-default.SOFTWARE.hive
cmp -s "$out" $W/windows-default.json || fail "the hives give other JSON: $(diff "$out" $W/windows-default.json | head)"
[ "$(grep -c '^[{}]' "$out")" -eq 2 ] || fail "not exactly one JSON object"

# A disabled SEM is a valid configuration: exit 0, with the reason.
run 0 --check-config $W/sem-disabled.reg
has 'SEM disabled: SEMEnabled is 0 (HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WDI\Config)' text
run 0 --check-config --json $W/policy-scenario-off.reg
has '"disabled_scenarios": [' json
has '    {"scenario": "{11111111-1111-1111-1111-111111111111}", "by": "policy"}' json

# Diagnostics: exit 2, each with its rule and key path.
run 2 --check-config $W/context-wdi.reg
has 'diagnostics: 1' text
has '  context_provider_wdi: HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WDI\Scenarios\{11111111-1111-1111-1111-111111111111}\Instrumentation\{AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA};1\ContextProviders\{2FF3E6B7-CB90-4700-9621-443F389734ED}' text
run 2 --check-config --json $W/start-id-out-of-range.reg
has '"rule": "start_id_out_of_range"' json
run 2 --check-config $W/malformed-lines.reg
has 'line 6, column 5: string without its closing' text
has 'diagnostics: 17' text

# Unusable inputs: exit 1 with the file and where; unreadable ones: 3.
run 1 --check-config $W/windows-default.json
says "$W/windows-default.json: line 1: not a .reg file" "a JSON file"
run 3 --check-config $W/no-such.reg
says "$W/no-such.reg" "a missing file"
run 1 --check-config --system-hive $W/windows-default.reg
says "not a registry hive" "a .reg file as a hive"
cut=$(mktemp) || exit 1
head -c 6000 $W/windows-default.SYSTEM.hive >"$cut"
run 1 --check-config --system-hive "$cut"
says "$cut: truncated hive: the bins end at offset 0x" "a truncated hive"
rm -f "$cut"
run 1 --check-config --system-hive $W/windows-default.SOFTWARE.hive
says "not a SYSTEM hive" "a SOFTWARE hive as SYSTEM"
run 3 --check-config --system-hive $W/no-such.hive
if [ -w /dev/full ]; then
	"$R" --check-config --json $W/windows-default.reg >/dev/full 2>"$err"
	rc=$?
	[ $rc -eq 3 ] || fail "writing to /dev/full exited $rc"
fi
exit 0

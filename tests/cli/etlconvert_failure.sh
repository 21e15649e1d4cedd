#!/bin/sh
# Output failures exit 3 with the writer's message and leave nothing: no
# output, no temporary, an existing target untouched, and with --split-*
# no numbered file of the failed run. Inputs that cannot be opened exit 3
# before any output is made.
#
# Tests run as root on CI, so permission tricks do not make writes fail.
# Instead the file-size limit (ulimit -f, with SIGXFSZ ignored so that
# write() returns EFBIG) makes the writer fail partway through the file.
# /dev/full is not used: the writer makes its temporary beside the target,
# which for /dev/full would be a file in /dev.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/wdi-shutdown-perfdiag-kernel.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# A directory that does not exist.
"$X" "$C/amsi-tracelogging.etl" -o /nonexistent-dir/x.etl 2>"$d/err"
rc=$?
[ $rc -eq 3 ] || fail "missing directory: exit $rc, expected 3"
grep -q '^etlconvert: /nonexistent-dir/x.etl: Cannot create the output' "$d/err" || fail "missing directory: $(cat "$d/err")"
[ -e /nonexistent-dir ] && fail "missing directory was created"

# An input that does not exist: exit 3, the target untouched.
mkdir "$d/o"
echo keep > "$d/o/t.etl"
"$X" "$C/amsi-tracelogging.etl" "$d/nope.etl" -o "$d/o/t.etl" 2>"$d/err"
rc=$?
[ $rc -eq 3 ] || fail "missing input: exit $rc, expected 3"
grep -q "nope.etl" "$d/err" || fail "missing input: $(cat "$d/err")"
[ "$(cat "$d/o/t.etl")" = keep ] || fail "missing input: target changed"
[ "$(ls "$d/o")" = t.etl ] || fail "missing input: left $(ls "$d/o")"

# Writes fail past 225 KiB or 450 KiB: ulimit -f counts 512-byte blocks in
# dash and 1024-byte ones in bash; 450 blocks suits both cases below (a
# 3 MB output, compressed 700 KiB; split files of 192 KiB and 576 KiB).
limited() {
	( trap '' XFSZ; ulimit -f 450 2>/dev/null || exit 99; exec "$X" "$@" ) 2>"$d/err"
}
for args in "" "--compress" "--raw" "--split-size 1M" "--split-time 10"; do
	# shellcheck disable=SC2086
	limited $args "$F" -o "$d/o/t.etl"
	rc=$?
	[ $rc -eq 99 ] && { echo "ulimit -f not available: size-limit cases skipped"; break; }
	[ $rc -eq 3 ] || fail "[$args] exit $rc, expected 3 ($(cat "$d/err"))"
	grep -q '^etlconvert: .*t.*\.etl: Cannot write' "$d/err" || fail "[$args] stderr: $(cat "$d/err")"
	[ "$(cat "$d/o/t.etl")" = keep ] || fail "[$args] target changed"
	[ "$(ls "$d/o")" = t.etl ] || fail "[$args] left $(ls "$d/o")"
done

# A split that fails in its second file removes the first one too: from
# 17:15:50.5 on, the first second of events takes 192 KiB, the next 576 KiB.
limited --since 2020-02-28T17:15:50.5 --split-time 1 "$F" -o "$d/o/t.etl"
rc=$?
if [ $rc -ne 99 ]; then
	[ $rc -eq 3 ] || fail "second split file: exit $rc, expected 3 ($(cat "$d/err"))"
	grep -q '^etlconvert: .*t_001\.etl: Cannot write' "$d/err" || fail "second split file: $(cat "$d/err")"
	[ "$(ls "$d/o")" = t.etl ] || fail "second split file: left $(ls "$d/o")"
	# Unlimited, the same run makes both files.
	"$X" --since 2020-02-28T17:15:50.5 --split-time 1 "$F" -o "$d/o/t.etl" || fail "split: exit $?"
	[ "$(ls "$d/o" | tr '\n' ' ')" = "t.etl t_000.etl t_001.etl " ] || fail "split: made $(ls "$d/o")"
	[ "$(wc -c < "$d/o/t_000.etl")" -lt 230400 ] || fail "split: first file too large for the test"
fi
exit 0

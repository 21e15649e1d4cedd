#!/bin/sh
# etlreplay with the SEM reads back the same DiagLog.etl whichever
# processor it ran on. The SEM's status events share the time of the
# replayed event they are about; they must read back where they were
# written - a start's after the start event, an end's before the end
# event - and so must not land in another processor's buffers than that
# event (testdata/sample/windows-scenarios.etl holds events captured on
# processor 1). The replay runs pinned (taskset) to each of two processors;
# both DiagLog listings (etldump, less the replaying process's id) must
# be equal, in the exact order the SEM wrote them. Skips on a machine
# where the test can use only one processor, or without taskset.
E=${ETLDUMP:-./build/bin/etldump}
R=$(dirname "$E")/etlreplay
IN=testdata/sample/windows-scenarios.etl
CFG=testdata/wdi/windows-default.reg
fail() { echo "FAIL: $*"; exit 1; }
for f in "$IN" "$CFG"; do
	[ -f "$f" ] || { echo "SKIP: no $f"; exit 77; }
done
[ -x "$R" ] || fail "etlreplay not built ($R)"
command -v taskset >/dev/null 2>&1 || { echo "SKIP: no taskset"; exit 77; }
# The processors this test may run on (taskset -p prints the list).
cpus=$(LC_ALL=C taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r a b; do
	seq "$a" "${b:-$a}"; done | head -2 | tr '\n' ' ')
set -- $cpus
[ $# -eq 2 ] || { echo "SKIP: only one processor to run on ($cpus)"; exit 77; }
for c in "$@"; do
	taskset -c "$c" true 2>/dev/null || { echo "SKIP: taskset cannot pin to processor $c here"; exit 77; }
done
T=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

# Kernel-WDI status events (32 started, 33 ended, 34 timed out, 37 a
# failed action) among the scenario events, in the order written.
want="501 32 5001 32 33 5007 33 5002 1 32 33 2 6001 32 33 48 5003 32 34 37 10001 37 224 216 32 223 32 223 32 33 218 33 224 216 32 33 218 5001 32 33 33 "
# The runs' folders have names of one length: the header records the
# file's path, and its size with it.
n=0
for c in "$@"; do
	n=$((n + 1))
	d=$T/run$n
	mkdir "$d"
	taskset -c "$c" "$R" -q "$IN" -o "$d/out.etl" --config "$CFG" > "$d/log" 2>&1 ||
		fail "replay on processor $c: exit $?: $(cat "$d/log")"
	"$E" "$d/DiagLog.etl" > "$d/list" || fail "etldump DiagLog (processor $c): exit $?"
	sed 's/pid=[0-9]* *tid=[0-9]*//' "$d/list" > "$d/diag"
	got=$(sed -n 's/.* id=\([0-9]*\) .*/\1/p' "$d/diag" | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "DiagLog on processor $c: ids $got, expected $want"
done
cmp -s "$T/run1/diag" "$T/run2/diag" ||
	fail "DiagLog differs between processors $1 and $2: $(diff "$T/run1/diag" "$T/run2/diag" | head -6)"
exit 0

#!/bin/sh
# etlconvert -j N when a worker thread cannot load what the caller's
# thread loaded (a --manifest removed after the caller read it): that
# worker takes no part and the run goes on with the others, writing what
# -j 1 writes, saying what -j 1 says and exiting as -j 1 does. The failure
# is made by an LD_PRELOAD shim (tests/shim/stat_fail_in_threads.c: stat()
# of the manifest fails in every thread but the first), which logs each
# call it fails, so the test knows each worker did try to load. Cases:
# every worker starting at once, workers starting late (a few events into
# the trace), and a reader that waits at every schema record until every
# taking-part worker has learnt it (ETLCONVERT_LOG_BYTES=1): a worker that
# dropped out must not be waited for.
# Corpus: ../shared/corpus/INDEX.md, ../shared/manifests/INDEX.md.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
B=${ETL_BUILD:-$(dirname "$(dirname "$E")")}
C=${ETL_CORPUS:-../shared/corpus}
M=${ETL_MANIFESTS:-$C/../manifests}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
[ -d "$M" ] || { echo "SKIP: no manifests at $M"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
SHIM=$(cd "$B" 2>/dev/null && pwd)/tests/shim/stat_fail_in_threads.so
[ -f "$SHIM" ] || fail "no shim at $B/tests/shim/stat_fail_in_threads.so (make test-build builds it)"
command -v timeout > /dev/null || { echo "SKIP: no timeout(1)"; exit 77; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
# The shim comes before a sanitizer's runtime in the list of libraries.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS
limit=120     # seconds a run may take (each takes under a second, a few under ASan)

# One case: -j N with the environment given (VAR=value ...) after the
# shim, against -j 1 without it; FAILS workers must have failed to load.
case_of() {   # NAME N FAILS MANIFEST ARGS...
	name=$1 n=$2 fails=$3 man=$4
	shift 4
	"$X" -q -j 1 --manifest "$man" "$@" > "$d/want" 2> "$d/want.err"
	wrc=$?
	[ $wrc -eq 0 ] || fail "$name: -j 1 exited $wrc: $(head -3 "$d/want.err")"
	[ -s "$d/want" ] || fail "$name: -j 1 wrote nothing"
	rm -f "$d/log"
	env LD_PRELOAD="$SHIM" STAT_FAIL_SUFFIX="/${man##*/}" STAT_FAIL_LOG="$d/log" $envs \
		timeout "$limit" "$X" -q -j "$n" --manifest "$man" "$@" > "$d/got" 2> "$d/got.err"
	rc=$?
	[ $rc -ne 124 ] || fail "$name: -j $n did not finish in $limit s (waiting for a worker that dropped out?)"
	[ -f "$d/log" ] || fail "$name: no worker tried to load the manifest (the shim failed nothing; exit $rc):
$(head -3 "$d/got.err")"
	got=$(wc -l < "$d/log")
	[ "$got" -eq "$fails" ] || fail "$name: $got failed loads, expected $fails"
	[ $rc -eq $wrc ] || fail "$name: -j $n exited $rc, -j 1 exited $wrc: $(head -3 "$d/got.err")"
	cmp -s "$d/want" "$d/got" || fail "$name: -j $n: the output differs from -j 1's"
	cmp -s "$d/want.err" "$d/got.err" || fail "$name: -j $n: stderr differs from -j 1's:
$(diff "$d/want.err" "$d/got.err" | head -5)"
}

K=$C/win7-kernel-process-manifest.etl
P=$C/perfview-kernel-clr-x64-compressed.etl
SYS=$M/windows-system.SystemEvents.man
CLR=$M/dotnet-runtime.ClrEtwAll.man

# Every worker at once, batches of 3 events (the caller alone renders).
envs="ETLCONVERT_LAZY_BYTES=0 ETLCONVERT_BATCH_EVENTS=3"
case_of "at once, -j 2" 2 1 "$SYS" -f jsonl "$K"
case_of "at once, -j 8" 8 7 "$SYS" -f xml "$K"
# Workers 1 and 2 starting at event 7, when the reader has sent batches.
envs="ETLCONVERT_LAZY_BYTES=1073741824 ETLCONVERT_LAZY_EVENTS=7 ETLCONVERT_BATCH_EVENTS=2"
case_of "late, -j 3" 3 2 "$SYS" -f csv "$K"
# The PerfView trace's DNS-Client and Kernel-File events (566 of them,
# decoded from EventMetadata records the filter leaves out), the log of
# those records bounded to nothing: the reader waits at each until the
# workers taking part have learnt it.
envs="ETLCONVERT_LAZY_BYTES=0 ETLCONVERT_LOG_BYTES=1 ETLCONVERT_BATCH_EVENTS=5"
set -- -f jsonl --explain --provider 1c95126e-7eea-49a9-a3fe-a378b03ddb4d \
	--provider edd08927-9cc4-4e65-b970-c2560fb5c289 "$P"
case_of "schema log bounded, at once, -j 4" 4 3 "$CLR" "$@"
n=$(grep -c '"DecodingSource":"EventMetadata"' "$d/got")
[ "$n" -eq 566 ] || fail "schema log bounded: $n events decoded from EventMetadata, expected 566"
envs="ETLCONVERT_LAZY_BYTES=1073741824 ETLCONVERT_LAZY_EVENTS=7 ETLCONVERT_LOG_BYTES=1 ETLCONVERT_BATCH_EVENTS=5"
case_of "schema log bounded, late, -j 3" 3 2 "$CLR" "$@"
exit 0

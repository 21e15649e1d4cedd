#!/bin/sh
# Runs every test of the project and ends with one line
# "tests: N passed, M failed, K skipped". Usage: tests/run.sh BUILD_DIR
#   - each Check program BUILD_DIR/tests/check_* (its suites count their tests),
#   - each CLI test tests/cli/*.sh (one test each; run with ETLDUMP set to
#     BUILD_DIR/bin/etldump: the other tools sit beside it, the test programs
#     in BUILD_DIR/programs),
#   - each library test tests/abi/*.sh (what libetl presents to programs that
#     use it: exported symbols, headers, the installed library; run with
#     ETL_BUILD set to BUILD_DIR),
#   - each fuzz harness replaying its corpus fuzz/corpus/NAME/.
#
# Skipped tests are never counted as passed. A test skips when its input is
# missing (the corpus, $ETL_CORPUS, default ../shared/corpus) or the machine
# lacks what it needs:
#   - a Check test prints a line "SKIP: <test>: <reason>" (tests/testutil.h,
#     tu_skip()) and returns; each such line moves one test from passed to
#     skipped;
#   - a script exits 77 (the Automake convention), after printing its reason.
# The skipped tests are listed before the last line.
O=${1:-build}
BIN=$O/bin
passed=0
failed=0
skipped=0
failures=""
skips=""
nl='
'

for t in "$O"/tests/check_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -E '^[0-9]+%: Checks' | sed "s|^|$name: |"
	echo "$out" | grep -E ':[EF]:' | head -20
	n=$(echo "$out" | sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' | tail -1)
	s=$(echo "$out" | grep -c '^SKIP: ')
	if [ -n "$n" ]; then
		set -- $n
		bad=$(($2 + $3))
		passed=$((passed + $1 - bad - s))
		failed=$((failed + bad))
		skipped=$((skipped + s))
		[ "$s" -gt 0 ] && skips="$skips$(echo "$out" | sed -n "s|^SKIP: |  $name: |p")$nl"
		[ "$bad" -gt 0 ] && failures="$failures $name"
	fi
	if [ $rc -ne 0 ] && { [ -z "$n" ] || [ "$bad" -eq 0 ]; }; then
		echo "$out" | tail -20
		failed=$((failed + 1))
		failures="$failures $name(exit $rc)"
	fi
done

# One script: passes (exit 0), skips (exit 77, the reason on its last
# line) or fails (anything else).
run_script() {
	out=$(sh "$1" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
		skips="$skips  $1: $(echo "$out" | tail -1 | sed 's/^SKIP: //')$nl"
	else
		echo "FAIL $1"
		echo "$out" | tail -20
		failed=$((failed + 1))
		failures="$failures $1"
	fi
}

ETLDUMP=$(pwd)/$BIN/etldump
ETL_BUILD=$O
export ETLDUMP ETL_BUILD
for t in tests/cli/*.sh tests/abi/*.sh; do
	[ -f "$t" ] || continue
	run_script "$t"
done

for r in "$O"/fuzz/*_replay; do
	[ -x "$r" ] || continue
	name=$(basename "$r" _replay)
	dir=fuzz/corpus/$name
	[ -d "$dir" ] || continue
	if out=$("$r" "$dir" 2>&1); then
		echo "fuzz replay $name: $out"
		passed=$((passed + 1))
	else
		echo "FAIL fuzz replay $name"
		echo "$out" | tail -20
		failed=$((failed + 1))
		failures="$failures fuzz:$name"
	fi
done

[ -n "$skips" ] && printf 'skipped:\n%s' "$skips"
[ -n "$failures" ] && echo "failing:$failures"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

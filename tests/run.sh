#!/bin/sh
# Runs every test of the project and ends with one line
# "tests: N passed, M failed". Usage: tests/run.sh BUILD_DIR
#   - each Check program BUILD_DIR/tests/check_* (its suites count their tests),
#   - each CLI test tests/cli/*.sh (one test each; run with ETLDUMP set to
#     BUILD_DIR/bin/etldump: the other tools sit beside it, the test programs
#     in BUILD_DIR/programs),
#   - each fuzz harness replaying its corpus fuzz/corpus/NAME/.
O=${1:-build}
BIN=$O/bin
passed=0
failed=0
failures=""

for t in "$O"/tests/check_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -E '^[0-9]+%: Checks' | sed "s|^|$(basename "$t"): |"
	echo "$out" | grep -E ':[EF]:' | head -20
	n=$(echo "$out" | sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' | tail -1)
	if [ -n "$n" ]; then
		set -- $n
		bad=$(($2 + $3))
		passed=$((passed + $1 - bad))
		failed=$((failed + bad))
		[ "$bad" -gt 0 ] && failures="$failures $(basename "$t")"
	fi
	if [ $rc -ne 0 ] && { [ -z "$n" ] || [ "$bad" -eq 0 ]; }; then
		echo "$out" | tail -20
		failed=$((failed + 1))
		failures="$failures $(basename "$t")(exit $rc)"
	fi
done

ETLDUMP=$(pwd)/$BIN/etldump
export ETLDUMP
for t in tests/cli/*.sh; do
	[ -f "$t" ] || continue
	if out=$(sh "$t" 2>&1); then
		passed=$((passed + 1))
	else
		echo "FAIL $t"
		echo "$out" | tail -20
		failed=$((failed + 1))
		failures="$failures $t"
	fi
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

[ -n "$failures" ] && echo "failing:$failures"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

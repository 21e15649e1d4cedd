#!/bin/sh
# --split-size / --split-time never leave a mixed set (issue 10, point 5):
# a run that makes fewer parts than an earlier one removes the earlier
# run's parts past its own - those and nothing else -, a failed run
# leaves the earlier set as it was, and an input that is a part of the
# pattern is refused before anything is read.
# wdi-shutdown-perfdiag-kernel.etl (airbus-cert/etl-parser, Apache-2.0):
# 3 MB, 64 KiB buffers, 17078 records, 3 in the header buffer.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/wdi-shutdown-perfdiag-kernel.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
mkdir "$d/o"
parts() { (cd "$d/o" && LC_ALL=C ls -a | grep -v '^\.\.*$' | tr '\n' ' '); }

"$X" -q --split-size 512K "$F" -o "$d/o/t.etl" || fail "first run: exit $?"
n1=$(ls "$d/o" | wc -l)
[ "$n1" -gt 4 ] || fail "first run: $n1 parts"
# Files that look alike but are not the pattern's stay.
touch "$d/o/t_01.etl" "$d/o/t_000.etl.bak" "$d/o/u_005.etl" "$d/o/t_0005.etl"
mkdir "$d/o/t_900.etl"
"$X" -q --split-size 2M "$F" -o "$d/o/t.etl" || fail "second run: exit $?"
[ "$(parts)" = "t_000.etl t_000.etl.bak t_0005.etl t_001.etl t_01.etl t_900.etl u_005.etl " ] ||
	fail "second run left: $(parts)"
# The set is the second run's: its records add up (3 header records in
# each part after the first).
total=0
for f in "$d"/o/t_00[01].etl; do
	total=$((total + $("$E" -c "$f")))
done
[ "$total" = $((17078 + 3)) ] || fail "second run: $total records in the parts"

# --split-time, fewer parts again.
"$X" -q --split-time 1000 "$F" -o "$d/o/t.etl" || fail "third run: exit $?"
[ "$(parts)" = "t_000.etl t_000.etl.bak t_0005.etl t_01.etl t_900.etl u_005.etl " ] ||
	fail "third run left: $(parts)"

# A part of the pattern as an input: refused, nothing changes.
cp "$d/o/t_000.etl" "$d/keep"
"$X" -q --split-size 512K "$d/o/t_000.etl" -o "$d/o/t.etl" 2>"$d/err"
[ $? -eq 1 ] || fail "part as input: exit $?, expected 1"
grep -q "is the input" "$d/err" || fail "part as input: $(cat "$d/err")"
cmp -s "$d/keep" "$d/o/t_000.etl" || fail "part as input: it changed"

# A run that fails (an input that cannot be opened) keeps the earlier set.
"$X" -q --split-size 512K "$F" "$d/missing.etl" -o "$d/o/t.etl" 2>/dev/null
[ $? -eq 3 ] || fail "failed run: exit $?"
cmp -s "$d/keep" "$d/o/t_000.etl" || fail "failed run: the earlier part changed"
[ "$(parts)" = "t_000.etl t_000.etl.bak t_0005.etl t_01.etl t_900.etl u_005.etl " ] ||
	fail "failed run left: $(parts)"
exit 0

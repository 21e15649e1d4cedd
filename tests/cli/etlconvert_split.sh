#!/bin/sh
# --split-size / --split-time write numbered files OUT_000.etl, ... (the
# number before the extension). Each file is a complete trace with the
# input's header-buffer records, so the record counts add up to the
# input's plus the header records repeated in every file after the first;
# the listings, header records apart, concatenate to the input's.
# wdi-shutdown-perfdiag-kernel.etl (airbus-cert/etl-parser, Apache-2.0):
# 3 MB, 64 KiB buffers, 2 processors, 17078 records, 3 in the header buffer.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
F=$C/wdi-shutdown-perfdiag-kernel.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

records() { "$E" --summary --json "$1" | sed -n 's/^  "records": \([0-9]*\),$/\1/p'; }
"$E" "$F" | sed 1,3d > "$d/want"

check_pieces() {   # what, files...
	what=$1
	shift
	total=0
	: > "$d/got"
	for p in "$@"; do
		n=$(records "$p")
		[ -n "$n" ] || fail "$what: $p unreadable"
		total=$((total + n))
		"$E" "$p" > "$d/l" || fail "$what: $p: etldump exit $?"
		sed -n 1,3p "$d/l" | grep -c 'EventTrace/' | grep -q '^3$' || fail "$what: $p lacks the header records"
		sed 1,3d "$d/l" >> "$d/got"
	done
	[ $total -eq $((17078 + 3 * ($# - 1))) ] || fail "$what: $# files, $total records"
	cmp -s "$d/want" "$d/got" || fail "$what: listings do not add up to the input's"
}

mkdir "$d/s"
"$X" --split-size 1M "$F" -o "$d/s/out.etl" || fail "--split-size: exit $?"
set -- "$d"/s/*
[ $# -eq 4 ] || fail "--split-size 1M: $# files: $(ls "$d/s")"
[ "$1" = "$d/s/out_000.etl" ] && [ "$4" = "$d/s/out_003.etl" ] || fail "names: $*"
for p in "$@"; do
	[ "$(wc -c < "$p")" -le 1048576 ] || fail "$p is larger than 1M"
done
check_pieces "--split-size 1M" "$@"

# Compressed buffers; .gz output (number before .etl.gz).
rm -f "$d"/s/*
"$X" --split-size 200K --compress "$F" -o "$d/s/out.etl.gz" || fail "--compress split: exit $?"
set -- "$d"/s/*
[ $# -ge 3 ] || fail "--split-size 200K --compress: $# files"
[ "$1" = "$d/s/out_000.etl.gz" ] || fail "gz names: $*"
check_pieces "--split-size 200K --compress .gz" "$@"

# By time: a file spans less than 1 s from its first event.
rm -f "$d"/s/*
"$X" --split-time 1 "$F" -o "$d/s/t" || fail "--split-time: exit $?"
set -- "$d"/s/*
[ $# -eq 5 ] || fail "--split-time 1: $# files: $(ls "$d/s")"
[ "$1" = "$d/s/t_000" ] || fail "names without an extension: $*"
check_pieces "--split-time 1" "$@"
for p in "$@"; do
	"$E" "$p" | sed 1,3d | cut -c12-27 | sed -n '1p;$p' | tr ':\n' '  ' > "$d/l"
	awk '{ exit !(($4 * 3600 + $5 * 60 + $6) - ($1 * 3600 + $2 * 60 + $3) < 1) }' "$d/l" ||
		fail "--split-time 1: $p spans 1 s or more: $(cat "$d/l")"
done

# Too small a size is a usage error, and writes nothing.
rm -f "$d"/s/*
"$X" --split-size 100K "$F" -o "$d/s/out.etl" 2>"$d/err"
rc=$?
[ $rc -eq 1 ] || fail "--split-size 100K: exit $rc, expected 1"
grep -q 'less than two buffers' "$d/err" || fail "--split-size 100K: $(cat "$d/err")"
[ -z "$(ls "$d/s")" ] || fail "--split-size 100K left files"
exit 0

#!/bin/sh
# etlreplay never modifies an input and leaves either its whole output or
# nothing: an output that is an input (by any name) is refused before
# anything is read (exit 1), so is a --new-file pattern one of whose files
# would replace an input (nothing is moved into place); an unwritable
# output place is a clear error (exit 3); a replay that fails leaves an
# existing output as it was and no temporary; an output replaced keeps
# the mode of the file it replaces; usage errors exit 1 with nothing
# written. Corpus sources: ../shared/corpus/INDEX.md.
. "$(dirname "$0")/etlreplay.inc"
cp "$C/amsi-tracelogging.etl" "$d/in.etl"
sum=$(cksum < "$d/in.etl")
same() { [ "$(cksum < "$d/in.etl")" = "$sum" ] || fail "$1: the input was modified"; }

run() {                   # run EXPECTED-STATUS ARGS...: stderr in $d/err
	want=$1
	shift
	"$R" "$@" > "$d/out" 2> "$d/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$d/err")"
}

# The output is an input: by its name, another name, a link.
run 1 "$d/in.etl" -o "$d/in.etl"
grep -q "the output '$d/in.etl' is the input" "$d/err" || fail "no same-input message: $(cat "$d/err")"
same "-o in.etl"
run 1 "$d/in.etl" -o "$d/../$(basename "$d")/in.etl"
same "-o other name"
ln -s in.etl "$d/link.etl"
run 1 "$d/in.etl" -o "$d/link.etl"
same "-o link"
run 1 "$d/in.etl" "$d/in.etl" -o "$d/o.etl"
grep -q 'is given twice' "$d/err" || fail "an input named twice is not refused: $(cat "$d/err")"
# A --new-file pattern naming the input: refused, nothing moved into place.
cp "$d/in.etl" "$d/p_2.etl"
run 1 --new-file 1M "$d/p_2.etl" "$C/perfview-kernel-clr-x64-compressed.etl" -o "$d/p_%d.etl"
grep -q "the output '$d/p_2.etl' is the input" "$d/err" || fail "no same-input message: $(cat "$d/err")"
cmp -s "$d/in.etl" "$d/p_2.etl" || fail "--new-file replaced its input"
[ -e "$d/p_1.etl" ] || [ -e "$d/p_3.etl" ] && fail "--new-file moved files into place after a refusal"
rm -f "$d/p_2.etl"

# An unwritable place: exit 3, a message naming the output.
mkdir "$d/ro"
chmod a-w "$d/ro"
if [ ! -w "$d/ro" ]; then
	run 3 "$d/in.etl" -o "$d/ro/o.etl"
	grep -q "$d/ro/o.etl: cannot create a temporary directory beside it" "$d/err" ||
		fail "unclear message: $(cat "$d/err")"
fi
run 3 "$d/in.etl" -o "$d/no/such/dir/o.etl"
if [ -w /dev/full ]; then
	run 3 "$d/in.etl" -o /dev/full
	grep -q '/dev/full: cannot write' "$d/err" || fail "unclear message for /dev/full: $(cat "$d/err")"
fi

# A replay that fails (an input that cannot be opened) leaves an existing
# output as it was, and no temporary.
echo "keep me" > "$d/o.etl"
run 3 "$d/in.etl" "$d/missing.etl" -o "$d/o.etl"
[ "$(cat "$d/o.etl")" = "keep me" ] || fail "a failed replay changed the existing output"
# Nothing readable: the output is not made.
head -c 100 "$d/in.etl" > "$d/short.etl"
run 2 "$d/short.etl" -o "$d/o.etl"
[ "$(cat "$d/o.etl")" = "keep me" ] || fail "a replay of nothing changed the existing output"
ls -a "$d" | grep -q '^\.etlreplay-' && fail "a private directory was left"

# A replaced output keeps its mode; a new one is readable.
chmod 640 "$d/o.etl"
run 0 "$d/in.etl" -o "$d/o.etl"
[ "$(stat -c %a "$d/o.etl")" = 640 ] || fail "mode of the replaced output: $(stat -c %a "$d/o.etl")"
"$E" --count "$d/o.etl" > /dev/null || fail "the output does not read back"
same "replay"

# Usage errors: exit 1, nothing written.
rm -f "$d/o.etl"
run 1 "$d/in.etl"
run 1 --realtime "$d/in.etl" -o "$d/o.etl"
run 1 --compress --circular 4M "$d/in.etl" -o "$d/o.etl"
run 1 --circular 4M --new-file 4M "$d/in.etl" -o "$d/o_%d.etl"
run 1 --new-file 4M "$d/in.etl" -o "$d/o.etl"
run 1 --new-file 4M "$d/in.etl" -o "$d/o_%d_%s.etl"
run 1 --circular 0 "$d/in.etl" -o "$d/o.etl"
run 1 --speed 0 "$d/in.etl" -o "$d/o.etl"
run 1 --speed fast "$d/in.etl" -o "$d/o.etl"
run 1 --realtime --compress "$d/in.etl"
run 1 --json "$d/in.etl" -o "$d/o.etl"
run 1 --software-hive x "$d/in.etl" -o "$d/o.etl"
run 1 --report r.json "$d/in.etl" -o "$d/o.etl"
[ -e "$d/o.etl" ] && fail "a usage error wrote the output"
run 0 --help
grep -q '^Exit status: 0 success' "$d/out" || fail "--help has no exit statuses"
exit 0

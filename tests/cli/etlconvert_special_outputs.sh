#!/bin/sh
# Outputs that are not regular files are written through, never replaced:
# a FIFO, /dev/stdout on a pipe, /dev/null opened by its path; a symbolic
# link is followed and the file it leads to replaced (atomically, its mode
# kept), the link kept; a dangling one makes its target (issue 10, point
# 2). Everything happens in a private temporary directory but /dev/null,
# which is only written (no test makes or removes a device node), and
# only after the FIFO case has shown the tool writes through.
# amsi-tracelogging.etl (airbus-cert/etl-parser, Apache-2.0): 21 records.
E=${ETLDUMP:-./build/bin/etldump}
X=$(dirname "$E")/etlconvert
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
command -v mkfifo >/dev/null && command -v timeout >/dev/null || { echo "SKIP: no mkfifo/timeout"; exit 77; }
F=$C/amsi-tracelogging.etl
fail() { echo "FAIL: $*"; exit 1; }
d=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"' EXIT

# A FIFO: the reader gets the trace, the FIFO stays a FIFO.
for fmt in etl xml; do
	rm -f "$d/fifo" "$d/got"
	mkfifo "$d/fifo" || fail "mkfifo"
	timeout 30 cat "$d/fifo" > "$d/got" &
	pid=$!
	timeout 30 "$X" -q -f $fmt "$F" -o "$d/fifo" 2>"$d/err" || fail "fifo, -f $fmt: exit $? ($(cat "$d/err"))"
	[ -p "$d/fifo" ] || fail "fifo, -f $fmt: the FIFO was replaced"
	wait "$pid" || fail "fifo, -f $fmt: the reader got nothing"
	pid=
	if [ $fmt = etl ]; then
		[ "$("$E" -c "$d/got")" = 21 ] || fail "fifo: $("$E" -c "$d/got") records through it"
	else
		[ "$(grep -c '<Event ' "$d/got")" = 21 ] || fail "fifo: the XML has not 21 events"
	fi
done
[ "$(ls "$d" | tr '\n' ' ')" = "err fifo got " ] || fail "left behind: $(ls "$d")"

# A symbolic link (to another directory): its target is replaced, the
# link stays, the target keeps its mode, no temporary is left.
mkdir "$d/sub"
echo old > "$d/sub/real.etl"
chmod 640 "$d/sub/real.etl"
ln -s sub/real.etl "$d/link.etl"
"$X" -q "$F" -o "$d/link.etl" || fail "link: exit $?"
[ -L "$d/link.etl" ] || fail "link: the link was replaced"
[ "$("$E" -c "$d/sub/real.etl")" = 21 ] || fail "link: the target is not the trace"
[ "$(stat -c %a "$d/sub/real.etl")" = 640 ] || fail "link: mode $(stat -c %a "$d/sub/real.etl")"
"$X" -q -f xml "$F" -o "$d/link.etl" || fail "link, xml: exit $?"
[ -L "$d/link.etl" ] && grep -q '<Event ' "$d/sub/real.etl" || fail "link, xml: not written through"
# A dangling link makes its target.
ln -s sub/new.json "$d/dangling.json"
"$X" -q -f json "$F" -o "$d/dangling.json" || fail "dangling: exit $?"
[ -L "$d/dangling.json" ] && [ -f "$d/sub/new.json" ] || fail "dangling: $(ls -l "$d" "$d/sub")"
[ "$(ls "$d/sub" | tr '\n' ' ')" = "new.json real.etl " ] || fail "left behind: $(ls "$d/sub")"

# /dev/stdout on a pipe: written through, in every format.
n=$("$X" -q "$F" -o /dev/stdout | "$E" -c -) || fail "/dev/stdout: exit $?"
[ "$n" = 21 ] || fail "/dev/stdout: $n records through the pipe"
"$X" -q -f jsonl "$F" -o /dev/stdout | grep -c . | grep -qx 21 || fail "/dev/stdout, jsonl"

# /dev/null by its path: still a character device afterwards.
[ -c /dev/null ] || { echo "SKIP: /dev/null is not a character device here"; exit 77; }
for args in "-f etl" "-f xml" "-f json" "--raw" "--compress"; do
	# shellcheck disable=SC2086
	"$X" -q $args "$F" -o /dev/null 2>"$d/err" || fail "/dev/null [$args]: exit $? ($(cat "$d/err"))"
	[ -c /dev/null ] || fail "/dev/null [$args]: no longer a device"
done
ls /dev/null.tmp-* >/dev/null 2>&1 && fail "a temporary was left in /dev"
exit 0

#!/bin/sh
# etlreplay's file modes and its inputs and outputs of every kind: a plain
# replay lists as its input does; --compress; --circular SIZE keeps the
# newest events within SIZE; --new-file SIZE makes numbered files of at
# most SIZE holding every event; gzip/LZ4 and standard input read, .gz/.lz4
# and standard output written; the header records the final name;
# etldump's filters select what is replayed.
# Corpus sources: ../shared/corpus/INDEX.md.
. "$(dirname "$0")/etlreplay.inc"
big=$C/perfview-kernel-clr-x64-compressed.etl

for f in amsi-tracelogging onedrive-cldflt-wpp vista-classic-mixed-32; do
	events "$C/$f.etl" > "$d/want"
	"$R" "$C/$f.etl" -o "$d/o.etl" || fail "$f: exit $?"
	events "$d/o.etl" > "$d/got"
	cmp -s "$d/want" "$d/got" || fail "$f: the replay lists otherwise"
	"$E" --header "$d/o.etl" | grep -q "log_file_name *\"$d/o.etl\"" || fail "$f: LogFileName is not the output"
	"$R" --compress "$C/$f.etl" -o "$d/c.etl" || fail "$f --compress: exit $?"
	"$E" --header "$d/c.etl" | grep -q 'log_file_mode .*COMPRESSED' || fail "$f: --compress made no compressed file"
	events "$d/c.etl" > "$d/got"
	cmp -s "$d/want" "$d/got" || fail "$f --compress: the replay lists otherwise"
	# Compressed inputs and outputs, standard input and output.
	gzip -c "$C/$f.etl" > "$d/in.etl.gz"
	"$R" "$d/in.etl.gz" -o "$d/o.etl.lz4" || fail "$f gz -> lz4: exit $?"
	events "$d/o.etl.lz4" > "$d/got"
	cmp -s "$d/want" "$d/got" || fail "$f gz -> lz4: the replay lists otherwise"
	"$R" - -o - < "$d/in.etl.gz" > "$d/stdout.etl" || fail "$f stdin -> stdout: exit $?"
	events "$d/stdout.etl" > "$d/got"
	cmp -s "$d/want" "$d/got" || fail "$f stdin -> stdout: the replay lists otherwise"
	"$R" "$C/$f.etl" -o "$d/o.etl.gz" || fail "$f -> gz: exit $?"
	gzip -dc "$d/o.etl.gz" > "$d/plain.etl" || fail "$f: not a valid gzip file"
	events "$d/plain.etl" > "$d/got"
	cmp -s "$d/want" "$d/got" || fail "$f -> gz: the replay lists otherwise"
done

# The events of the largest file: N = the plain replay's count less its
# two header-buffer records (logfile header, PartitionInfoExtension).
"$R" "$big" -o "$d/all.etl" || fail "plain: exit $?"
n=$(($("$E" --count "$d/all.etl") - 2))
last=$(events "$d/all.etl" | tail -1)

# --circular 4M: one file of 4 MiB holding the newest events, the last one
# included.
"$R" --circular 4M "$big" -o "$d/circ.etl" || fail "--circular: exit $?"
[ "$(wc -c < "$d/circ.etl")" -le 4194304 ] || fail "--circular: file over 4 MiB"
"$E" --header "$d/circ.etl" | grep -q 'log_file_mode .*CIRCULAR' || fail "--circular: mode is not circular"
k=$(($("$E" --count "$d/circ.etl") - 2))
[ "$k" -gt 1000 ] && [ "$k" -lt "$n" ] || fail "--circular: $k events of $n"
[ "$(events "$d/circ.etl" | tail -1)" = "$last" ] || fail "--circular: the newest event is not kept"

# --new-file 8M: files 1, 2, ... of at most 8 MiB, every event once.
"$R" --new-file 8M "$big" -o "$d/part_%d.etl" || fail "--new-file: exit $?"
total=0
files=0
for p in "$d"/part_*.etl; do
	[ "$(wc -c < "$p")" -le 8388608 ] || fail "--new-file: $p over 8 MiB"
	total=$((total + $("$E" --count "$p") - 2))
	files=$((files + 1))
done
[ "$files" -ge 3 ] || fail "--new-file: $files files"
[ -f "$d/part_1.etl" ] && [ -f "$d/part_$files.etl" ] || fail "--new-file: files not numbered from 1"
[ "$total" -eq "$n" ] || fail "--new-file: $total events in the files, $n replayed"
# (Each file in time order: a processor's buffer may reach a file after
# later events of another, so the lines are compared as a set.)
for p in "$d"/part_*.etl; do "$E" "$p"; done | grep -v ' EventTrace/' | sort > "$d/got"
events "$d/all.etl" | sort > "$d/want"
cmp -s "$d/want" "$d/got" || fail "--new-file: the files list other events than one file"

# Filters select what is replayed, as etldump's do.
"$R" --provider 68fdd900-4a3e-11d1-84f4-0000f80464e3 --type SYSTEM64 "$big" -o "$d/f.etl" || fail "filter: exit $?"
"$E" --provider 68fdd900-4a3e-11d1-84f4-0000f80464e3 --type SYSTEM64 "$big" | grep -v 'EventTrace/Header ' > "$d/want"
"$E" --type SYSTEM64 "$d/f.etl" | grep -v 'EventTrace/Header \|PartitionInfoExtension' > "$d/got"
[ -s "$d/want" ] || fail "filter: nothing selected"
cmp -s "$d/want" "$d/got" || fail "filter: the replay lists otherwise"

# No temporary left beside the outputs.
ls -a "$d" | grep -q '^\.etlreplay-' && fail "a private directory was left"
exit 0

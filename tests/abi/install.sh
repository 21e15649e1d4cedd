#!/bin/sh
# The installed library is usable as documented: after `make install`
# into a temporary prefix, a program built with nothing but
# `pkg-config --cflags --libs libetl` (#include <etl.h>) compiles, links
# against the shared library and reads a corpus file, printing its event
# count, which must be the count expected.json gives; the same program
# linked statically with `pkg-config --static` (libetl.a and the private
# dependencies the .pc file names) prints the same.
# The install, compile and link steps run without the corpus; the reading
# step skips (exit 77) when the corpus ($ETL_CORPUS) is absent.
# Run from the top of the tree; ETL_BUILD is the build folder (build);
# in a sanitizer build ETL_SANITIZE is make's SANITIZE and ETL_SAN_FLAGS
# its compiler flags, added to the program's compile and link, since the
# library then needs the sanitizer runtime.
O=${ETL_BUILD:-build}
C=${ETL_CORPUS:-../shared/corpus}
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
fail() { echo "FAIL: $*"; exit 1; }
command -v "$PKG_CONFIG" > /dev/null 2>&1 || fail "$PKG_CONFIG not found"
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
p=$d/prefix

# A make of its own (not the jobs of a make check that runs this test),
# with the build's compiler and sanitizer: everything is built already.
MAKEFLAGS= MFLAGS= ${MAKE:-make} --no-print-directory O="$O" CC="$CC" \
	${ETL_SANITIZE:+SANITIZE="$ETL_SANITIZE"} PREFIX="$p" install > "$d/log" 2>&1 ||
	{ tail -20 "$d/log"; fail "make install PREFIX=$p: exit $?"; }
[ -f "$p/lib/libetl.so.0" ] || fail "no $p/lib/libetl.so.0 after make install"

PKG_CONFIG_PATH=$p/lib/pkgconfig
export PKG_CONFIG_PATH
"$PKG_CONFIG" --exists libetl || fail "pkg-config does not find libetl in $PKG_CONFIG_PATH"
cflags=$("$PKG_CONFIG" --cflags libetl) || fail "pkg-config --cflags libetl"
libs=$("$PKG_CONFIG" --libs libetl) || fail "pkg-config --libs libetl"
slibs=$("$PKG_CONFIG" --static --libs libetl) || fail "pkg-config --static --libs libetl"

cat > "$d/count.c" <<'PROG'
#include <etl.h>
#include <stdio.h>

/* Prints the number of events of argv[1], or the library version. */
int main(int argc, char **argv)
{
	const struct etl_event *ev;
	unsigned long n = 0;
	int st;
	if (argc < 2) {
		printf("%s\n", etl_version_string());
		return 0;
	}
	etl_reader *r = etl_reader_new();
	if (!r || etl_reader_open_file(r, argv[1]) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], r ? etl_reader_errmsg(r) : "out of memory");
		return 1;
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL)
		if (st == ETL_OK)
			n++;
	etl_reader_free(r);
	if (st == ETL_FATAL)
		return 1;
	printf("%lu\n", n);
	return 0;
}
PROG
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $ETL_SAN_FLAGS $cflags -o "$d/count" "$d/count.c" $libs > "$d/err" 2>&1 ||
	{ cat "$d/err"; fail "compile and link with pkg-config --cflags --libs libetl"; }
# The static link: libetl.a in place of -letl, with the private libraries.
slibs=$(echo "$slibs" | sed 's/-letl\b/-l:libetl.a/')
# shellcheck disable=SC2086
$CC -std=c11 $ETL_SAN_FLAGS $cflags -o "$d/count-static" "$d/count.c" $slibs > "$d/err" 2>&1 ||
	{ cat "$d/err"; fail "static link with pkg-config --static --libs libetl ($slibs)"; }

# The shared program needs the installed libetl.so.0, the static one none.
LD_LIBRARY_PATH=$p/lib
export LD_LIBRARY_PATH
need=$(ldd "$d/count" | grep 'libetl\.so')
case $need in
*"$p/lib/libetl.so.0"*) ;;
*) fail "the program does not load $p/lib/libetl.so.0: $need" ;;
esac
ldd "$d/count-static" | grep -q 'libetl\.so' && fail "the static program still needs libetl.so"
v=$("$d/count") || fail "the program does not run"
[ "$v" = "$(sed -n 's/^VERSION := //p' Makefile)" ] || fail "etl_version_string() is '$v'"

f=amsi-tracelogging.etl
[ -f "$C/expected.json" ] || { echo "SKIP: corpus $C absent: built and linked, no file read"; exit 77; }
want=$(awk -v f="\"$f\":" '$1 == f { on = 1 } on && $1 == "\"events\":" { sub(",", "", $2); print $2; exit }' "$C/expected.json")
[ -n "$want" ] || fail "expected.json has no event count for $f"
n=$("$d/count" "$C/$f") || fail "shared: reading $f failed"
[ "$n" = "$want" ] || fail "shared: $f has $n events, expected.json says $want"
n=$("$d/count-static" "$C/$f") || fail "static: reading $f failed"
[ "$n" = "$want" ] || fail "static: $f has $n events, expected.json says $want"
echo "install: pkg-config builds a shared and a static program that read $f ($n events)"

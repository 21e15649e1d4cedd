#!/bin/sh
# The shared library exports exactly the public API: every dynamic symbol
# of libetl.so is a function some public header (include/*.h) declares
# with ETL_API, none is an internal etl__ name, and every ETL_API
# declaration is exported (a header never promises what the library lacks).
# Run from the top of the tree; ETL_BUILD is the build folder (build).
O=${ETL_BUILD:-build}
so=$O/lib/libetl.so
NM=${NM:-nm}
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$so" ] || fail "$so missing (make lib first)"
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# Exported: defined dynamic symbols, names only.
"$NM" -D --defined-only "$so" > "$d/nm" || fail "$NM -D $so failed"
awk 'NF >= 3 { print $3 }' "$d/nm" | sed 's/@.*//' | sort -u > "$d/exported"
[ -s "$d/exported" ] || fail "$so exports nothing"

# Declared: the name before the "(" of every ETL_API declaration, read
# from the headers with comments and preprocessor lines removed and lines
# joined, so that declarations over several lines count.
cat include/*.h | awk '
	{
		line = $0; out = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (!i) { line = ""; break }
				line = substr(line, i + 2); incomment = 0; continue
			}
			i = index(line, "/*"); j = index(line, "//")
			if (j && (!i || j < i)) { out = out substr(line, 1, j - 1); break }
			if (i) { out = out substr(line, 1, i - 1) " "; line = substr(line, i + 2); incomment = 1; continue }
			out = out line; line = ""
		}
		if (cont || out ~ /^[ \t]*#/) { cont = (out ~ /\\$/); next }
		print out
	}' | tr '\n' ' ' | grep -o 'ETL_API[^;{}()]*(' |
	sed -e 's/[[:space:]]*($//' -e 's/.*[^A-Za-z0-9_]//' | sort -u > "$d/declared"
[ -s "$d/declared" ] || fail "no ETL_API declaration found in include/*.h"

bad=0
internal=$(grep '^etl__' "$d/exported")
if [ -n "$internal" ]; then
	echo "FAIL: $so exports internal names:" $internal
	bad=1
fi
undeclared=$(comm -23 "$d/exported" "$d/declared")
if [ -n "$undeclared" ]; then
	echo "FAIL: $so exports names no public header declares:" $undeclared
	bad=1
fi
missing=$(comm -13 "$d/exported" "$d/declared")
if [ -n "$missing" ]; then
	echo "FAIL: declared with ETL_API but not exported:" $missing
	bad=1
fi
[ $bad -eq 0 ] || exit 1
echo "abi: $(wc -l < "$d/exported") exported functions, each declared in include/"

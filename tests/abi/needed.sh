#!/bin/sh
# Neither libetl.so nor any tool links libxml2: lib/decode/xml_lib.c loads
# it with dlopen() on the first manifest, so that processes that load no
# manifest do not pay for its start-up (ICU, libstdc++, liblzma). No
# DT_NEEDED entry of $O/lib/libetl.so and $O/bin/* names libxml2.
# Run from the top of the tree; ETL_BUILD is the build folder (build).
O=${ETL_BUILD:-build}
READELF=${READELF:-readelf}
fail() { echo "FAIL: $*"; exit 1; }
command -v "$READELF" > /dev/null 2>&1 || { echo "SKIP: $READELF not found"; exit 77; }
n=0
for f in "$O/lib/libetl.so" "$O"/bin/*; do
	[ -f "$f" ] || fail "$f missing (make first)"
	needed=$("$READELF" -d "$f") || fail "$READELF -d $f failed"
	echo "$needed" | grep -q 'NEEDED.*\[libxml2\.' && fail "$f links libxml2 (needs: $(echo "$needed" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '))"
	n=$((n + 1))
done
echo "needed: $n files, none links libxml2"

#!/bin/sh
# Every public header compiles alone, as C11 and as C++17, without a
# warning: a program may include any one of them first, from C or C++.
# Each header gets a translation unit that includes just it, compiled with
# $CC (cc) -std=c11 and $CXX (g++, else c++, clang++) -std=c++17, both
# -Wall -Wextra -Werror -fsyntax-only. Run from the top of the tree.
fail() { echo "FAIL: $*"; exit 1; }
CC=${CC:-cc}
if [ -z "$CXX" ]; then
	for c in g++ c++ clang++; do
		command -v "$c" > /dev/null 2>&1 && { CXX=$c; break; }
	done
fi
[ -n "$CXX" ] || { echo "SKIP: no C++ compiler (g++, c++, clang++)"; exit 77; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

n=0
bad=0
for h in include/*.h; do
	b=$(basename "$h")
	printf '#include "%s"\n' "$b" > "$d/tu.c"
	cp "$d/tu.c" "$d/tu.cpp"
	if ! $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only -Iinclude "$d/tu.c" > "$d/err" 2>&1; then
		echo "FAIL: $b as C11 ($CC):"
		head -20 "$d/err"
		bad=1
	fi
	if ! $CXX -std=c++17 -Wall -Wextra -Werror -fsyntax-only -Iinclude "$d/tu.cpp" > "$d/err" 2>&1; then
		echo "FAIL: $b as C++17 ($CXX):"
		head -20 "$d/err"
		bad=1
	fi
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no header in include/"
[ $bad -eq 0 ] || exit 1
echo "headers: $n public headers compile alone as C11 ($CC) and C++17 ($CXX)"

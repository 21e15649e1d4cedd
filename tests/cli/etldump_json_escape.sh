#!/bin/sh
# Strings in --summary --json are JSON-escaped: control characters as
# \u00XX, quotes and backslashes escaped, a lone UTF-16 surrogate as U+FFFD.
# The logger name of a copy of AMSITrace.etl (airbus-cert/etl-parser,
# Apache-2.0) is patched: UTF-16LE "AMSIT" at 0x180 becomes
# U+0001 '"' '\' U+D800 TAB.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
t=$(mktemp) || exit 1
trap 'rm -f "$t"' EXIT

cp "$C/amsi-tracelogging.etl" "$t" && chmod u+w "$t"
printf '\001\000"\000\\\000\000\330\t\000' | dd of="$t" bs=1 seek=384 conv=notrunc 2>/dev/null
js=$("$E" --summary --json "$t") || fail "exit $?"
l=$(printf '%s\n' "$js" | grep '"logger_name"')
exp=$(printf '    "logger_name": "\\u0001\\"\\\\\357\277\275\\u0009raceSession",')
[ "$l" = "$exp" ] || fail "got '$l', expected '$exp'"
# No raw control character anywhere in the JSON.
printf '%s\n' "$js" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037]')" && fail "raw control character in JSON"
printf '%s\n' "$js" | grep -q '"log_file_name": "c:\\\\work\\\\AMSITrace.etl"' || fail "backslashes not escaped"
# The text header shows the control characters safely.
"$E" --header "$t" | grep -q 'logger_name  *"\\x01"\\' || fail "--header does not escape control characters"
exit 0

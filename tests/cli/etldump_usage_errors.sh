#!/bin/sh
# Usage errors exit 1 with a message and a hint to --help on stderr, and
# print nothing on stdout.
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
F=$C/wsl-lxcore-tracelogging.etl
fail() { echo "FAIL: $*"; exit 1; }
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

expect_usage() {
	out=$("$E" "$@" 2>"$err")
	rc=$?
	[ $rc -eq 1 ] || fail "'$*' exited $rc, expected 1"
	[ -z "$out" ] || fail "'$*' printed on stdout: $out"
	grep -q -- "--help" "$err" || fail "'$*': no hint to --help on stderr: $(cat "$err")"
}

expect_usage --no-such-option "$F"
grep -q "no-such-option" "$err" || fail "the message does not name the unknown option"
expect_usage -Z "$F"
expect_usage --id "$F"                 # the file is taken as the argument
expect_usage --id 70000 "$F"
expect_usage --id abc "$F"
expect_usage --level x "$F"
expect_usage --keyword 0xZZ "$F"
expect_usage --type NOT_A_TYPE "$F"
grep -q "NOT_A_TYPE" "$err" || fail "the message does not name the bad type"
expect_usage --since yesterday "$F"
expect_usage --json "$F"
expect_usage --count --summary "$F"
expect_usage --buffers --summary "$F"
expect_usage --hex --count "$F"
expect_usage --summary --json --header "$F"
expect_usage --provider
exit 0

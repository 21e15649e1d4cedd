#!/bin/sh
# --count on corpus files prints the number of records measured
# independently (corpus expected.json "events").
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

check() {
	n=$("$E" --count "$C/$1")
	rc=$?
	[ $rc -eq 0 ] || fail "$1: exit $rc"
	[ "$n" = "$2" ] || fail "$1: --count printed '$n', expected $2"
	n=$("$E" --count --file-order "$C/$1")
	[ "$n" = "$2" ] || fail "$1: --count --file-order printed '$n', expected $2"
}
check wsl-lxcore-tracelogging.etl 4
check amsi-tracelogging.etl 21
check clr-rundown-32bit-compressed.etl 2
check eventsource-selfdescribing-compressed.etl 23
check onedrive-cldflt-wpp.etl 17
check vista-classic-mixed-32.etl 27
check win7-httpservice-manifest.etl 2042
check wdi-shutdown-perfdiag-kernel.etl 17078
check perfview-kernel-clr-x64-compressed.etl 179474

# The default listing has one line per event.
n=$("$E" "$C/windowsupdate-tracelogging.etl" | wc -l)
[ "$n" -eq 82 ] || fail "windowsupdate: $n lines, expected 82"
exit 0

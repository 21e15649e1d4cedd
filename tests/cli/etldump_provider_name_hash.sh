#!/bin/sh
# --provider NAME also matches the GUID EventSource and TraceLogging derive
# from a provider's name (decoding.md §7), without decoding anything:
# hw3d-single-tracelogging.etl holds one event of "Atum-Hw3d"
# {2c759654-e0cc-5e69-a99d-480ab2fa0c64}, eventsource-selfdescribing-
# compressed.etl one of "MySource" {a61ea624-4944-55fc-c2a8-37838829438d}
# (expected.json tracelogging_provider_names).
E=${ETLDUMP:-./build/bin/etldump}
C=${ETL_CORPUS:-../shared/corpus}
[ -f "$C/expected.json" ] || { echo "SKIP: no corpus at $C"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
n=$("$E" --provider Atum-Hw3d --count "$C/hw3d-single-tracelogging.etl") || fail "exit $?"
[ "$n" = 1 ] || fail "Atum-Hw3d: $n events, expected 1"
n=$("$E" --provider mysource --count "$C/eventsource-selfdescribing-compressed.etl") || fail "exit $?"
[ "$n" = 1 ] || fail "mysource (any case): $n events, expected 1"
n=$("$E" --provider NoSuchSource --count "$C/eventsource-selfdescribing-compressed.etl") || fail "exit $?"
[ "$n" = 0 ] || fail "NoSuchSource: $n events, expected 0"
exit 0

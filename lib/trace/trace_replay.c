/*
 * lib/trace/trace_replay.c - the replay write path of the tracing runtime
 * (etl_replay_write(), etl_trace.h "Replaying captured events"): a
 * captured event re-emitted through the sessions that enable its
 * provider, with its original header type and fields.
 *
 * Not written yet: every call reports the event lost.
 */
#define ETL_BUILDING_LIB 1
#include "etl_trace.h"

int etl_replay_write(const struct etl_event *ev)
{
	(void)ev;
	return ETL_FAILED;
}

/*
 * trace-realtime - libetl tracing runtime test program: real-time delivery: every event reaches the callback, checked there.
 * Every write kind from several threads (trace_program.h); the output is
 * read back with libetl and compared event by event with what was
 * written. Prints "events N" (events written) last; exit 0 when every
 * check held, 1 usage, 2 mismatch or failure.
 */
#include "trace_program.h"

static etl_decoder *rt_dec;
static long rt_count;
static int rt_bad;

/* On the session's logger thread, one call at a time. */
static void on_event(void *ctx, const struct etl_event *ev)
{
	int c = tp_check(ev, rt_dec);
	if (c < 0)
		rt_bad++;
	else if (c == 0)
		(*(long *)ctx)++;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: trace-realtime\n");
		return 1;
	}
	rt_dec = etl_decoder_new();
	if (!rt_dec)
		return 2;
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.blocking = 1;
	sp.file_mode = ETL_FILE_REALTIME;
	sp.realtime_cb = on_event;
	sp.realtime_ctx = &rt_count;
	etl_session *s = tp_start("TraceRealtime", &sp);
	uint64_t n = tp_run(3, 500);
	tp_stop(s, "trace-realtime", n);
	etl_decoder_free(rt_dec);
	if (rt_bad || rt_count != (long)n || tp_check_suffix(1)) {
		fprintf(stderr, "trace-realtime: %ld received, %d bad\n", rt_count, rt_bad);
		return 2;
	}
	printf("received %ld\nevents %llu\n", rt_count, (unsigned long long)n);
	return 0;
}

/*
 * trace-buffering - libetl tracing runtime test program: in-memory buffering: the ring is written by flush and by stop.
 * Every write kind from several threads (trace_program.h); the output is
 * read back with libetl and compared event by event with what was
 * written. Prints "events N" (events written) last; exit 0 when every
 * check held, 1 usage, 2 mismatch or failure.
 */
#include "trace_program.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace-buffering OUT.etl\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;
	sp.file_mode = ETL_FILE_BUFFERING;
	sp.max_buffers = 64;
	etl_session *s = tp_start("TraceBuffering", &sp);
	uint64_t n = tp_run(2, 300);
	if (etl_session_flush(s) != ETL_OK) {
		fprintf(stderr, "trace-buffering: flush: %s\n", etl_session_errmsg(s));
		return 2;
	}
	long got = tp_verify_file(argv[1], NULL);
	if (got != (long)n || tp_check_suffix(1))
		return 2;
	printf("flushed %ld\n", got);
	tp_stop(s, "trace-buffering", n);
	tp_reset_seen();
	got = tp_verify_file(argv[1], NULL);
	if (got != (long)n || tp_check_suffix(1))
		return 2;
	printf("verified %ld\nevents %llu\n", got, (unsigned long long)n);
	return 0;
}

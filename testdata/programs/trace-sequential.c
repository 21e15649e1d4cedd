/*
 * trace-sequential - libetl tracing runtime test program: sequential file, 4 threads, read back event by event.
 * Every write kind from several threads (trace_program.h); the output is
 * read back with libetl and compared event by event with what was
 * written. Prints "events N" (events written) last; exit 0 when every
 * check held, 1 usage, 2 mismatch or failure.
 */
#include "trace_program.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace-sequential OUT.etl\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;
	etl_session *s = tp_start("TraceSequential", &sp);
	uint64_t n = tp_run(4, 500);
	tp_stop(s, "trace-sequential", n);
	long got = tp_verify_file(argv[1], NULL);
	if (got != (long)n || tp_check_suffix(1))
		return 2;
	printf("verified %ld\nevents %llu\n", got, (unsigned long long)n);
	return 0;
}

/*
 * trace-compressed - libetl tracing runtime test program: sequential file with compressed buffers.
 * Every write kind from several threads (trace_program.h); the output is
 * read back with libetl and compared event by event with what was
 * written. Prints "events N" (events written) last; exit 0 when every
 * check held, 1 usage, 2 mismatch or failure.
 */
#include "trace_program.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace-compressed OUT.etl\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;
	sp.compressed = 1;
	etl_session *s = tp_start("TraceCompressed", &sp);
	uint64_t n = tp_run(2, 2000);
	tp_stop(s, "trace-compressed", n);
	uint64_t cb = 0;
	long got = tp_verify_file(argv[1], &cb);
	if (got != (long)n || tp_check_suffix(1))
		return 2;
	if (cb == 0) {
		fprintf(stderr, "trace-compressed: no compressed buffer in the file\n");
		return 2;
	}
	printf("compressed_buffers %llu\nverified %ld\nevents %llu\n", (unsigned long long)cb, got,
	       (unsigned long long)n);
	return 0;
}

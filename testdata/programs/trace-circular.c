/*
 * trace-circular - libetl tracing runtime test program: circular file of 1 MiB written with ~10 MB of events: wraps, keeps the newest.
 * Every write kind from several threads (trace_program.h); the output is
 * read back with libetl and compared event by event with what was
 * written. Prints "events N" (events written) last; exit 0 when every
 * check held, 1 usage, 2 mismatch or failure.
 */
#include "trace_program.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace-circular OUT.etl\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;
	sp.file_mode = ETL_FILE_CIRCULAR;
	sp.max_file_size_mb = 1;
	etl_session *s = tp_start("TraceCircular", &sp);
	uint64_t n = tp_run(2, 5000);
	tp_stop(s, "trace-circular", n);
	long got = tp_verify_file(argv[1], NULL);
	if (got <= 0 || got >= (long)n || tp_check_suffix(0))
		return 2;
	FILE *f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0)
		return 2;
	long size = ftell(f);
	fclose(f);
	if (size > 1024L * 1024L) {
		fprintf(stderr, "trace-circular: file of %ld bytes over 1 MiB\n", size);
		return 2;
	}
	printf("file_size %ld\nkept %ld\nevents %llu\n", size, got, (unsigned long long)n);
	return 0;
}

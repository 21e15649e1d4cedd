/*
 * trace-newfile - libetl tracing runtime test program: new-file rotation at 1 MiB: every event in exactly one file.
 * Every write kind from several threads (trace_program.h); the output is
 * read back with libetl and compared event by event with what was
 * written. Prints "events N" (events written) last; exit 0 when every
 * check held, 1 usage, 2 mismatch or failure.
 */
#include "trace_program.h"

int main(int argc, char **argv)
{
	if (argc != 2 || !strstr(argv[1], "%d")) {
		fprintf(stderr, "usage: trace-newfile PATTERN (with one %%d, e.g. out_%%d.etl)\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;
	sp.file_mode = ETL_FILE_NEWFILE;
	sp.max_file_size_mb = 1;
	etl_session *s = tp_start("TraceNewFile", &sp);
	uint64_t n = tp_run(2, 5000);
	uint64_t files = tp_stop(s, "trace-newfile", n);
	if (files < 2) {
		fprintf(stderr, "trace-newfile: %llu files, expected rotation\n", (unsigned long long)files);
		return 2;
	}
	long total = 0;
	for (uint64_t i = 1; i <= files; i++) {
		char path[4096];
		snprintf(path, sizeof path, argv[1], (int)i);
		long got = tp_verify_file(path, NULL);
		if (got < 0)
			return 2;
		printf("file %s %ld\n", path, got);
		total += got;
	}
	if (total != (long)n || tp_check_suffix(1))
		return 2;
	printf("verified %ld\nevents %llu\n", total, (unsigned long long)n);
	return 0;
}

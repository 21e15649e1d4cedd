/*
 * example.c - the tracing-runtime example of libetl(3), kept here so that
 * it is compiled (and run by tests/cli/trace_example.sh) with the library.
 * Usage: example OUT.etl
 */
#include <stdio.h>
#include <etl.h>
#include <etl_trace.h>
#include <etl_tracelogging.h>

static etl_provider prov;

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: example OUT.etl\n");
		return 1;
	}

	/* Controller: a session writing a sequential file. */
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;                        /* wait for buffers, lose nothing */
	etl_session *s = etl_session_new();
	if (!s || etl_session_start(s, "Example", &sp) != ETL_OK) {
		fprintf(stderr, "example: %s\n", s ? etl_session_errmsg(s) : "no memory");
		return 2;
	}

	/* Provider: named, so its GUID is the EventSource hash of the name. */
	etl_provider_register_name(&prov, "Example.Provider", NULL, NULL);
	struct etl_guid guid = etl_provider_guid(&prov);
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.level = 5;                           /* verbose and more severe */
	ep.match_any = 0x3;
	ep.properties = ETL_ENABLE_PROCESS_START_KEY;
	etl_session_enable(s, &guid, &ep);

	/* A manifest-style event under a new activity. */
	struct etl_guid act = etl_activity_new();
	etl_activity_set(&act, NULL);
	static const struct etl_event_descriptor started = { .id = 1, .level = 4, .keyword = 0x1 };
	uint32_t code = 42;
	ETL_WRITE(&prov, &started, ETL_DATA(&code, sizeof code));

	/* A self-describing TraceLogging event. */
	for (uint32_t i = 0; i < 3; i++)
		ETL_TL_WRITE(&prov, "Progress", ETL_TL_LEVEL(4), ETL_TL_KEYWORD(0x2),
		             ETL_TL_U32("Step", i), ETL_TL_STR8("Stage", i < 2 ? "working" : "done"),
		             ETL_TL_GUID("Activity", &act));

	/* A classic event and a WPP-style message. */
	static const struct etl_guid cls = { 0x11223344, 0x5566, 0x7788,
	                                     { 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00 } };
	struct etl_data d = ETL_DATA(&code, sizeof code);
	etl_write_classic(&prov, &cls, 1, 4, 0, 1, &d);
	etl_write_message(&prov, 4, 0x1, &cls, 10, 1, &d);
	etl_activity_set(NULL, NULL);

	/* Stop: flushes every buffer and finalises the file. */
	int rc = etl_session_stop(s);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	printf("events %llu, lost %llu\n", (unsigned long long)st.events_written,
	       (unsigned long long)st.events_lost);
	etl_session_free(s);
	etl_provider_unregister(&prov);
	return rc == ETL_OK ? 0 : 2;
}

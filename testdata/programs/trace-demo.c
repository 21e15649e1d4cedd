/*
 * trace-demo OUT.etl - writes a trace with every write kind of libetl's
 * tracing runtime from two threads: manifest-style events (etl_write),
 * transfers with a related activity (etl_write_transfer), TraceLogging
 * events (ETL_TL_WRITE), classic events (etl_write_classic), instance
 * events (etl_write_instance) and WPP-style messages (etl_write_message),
 * with every enable property (SID, TS id, stack trace, event key, process
 * start key) on the session.
 *
 * Prints one line per kind with its count, then "events N" as its last
 * line: N is the number of events written, equal to the session's
 * events_written (the program fails if any event was lost).
 * Exit status: 0 success, 1 usage, 2 runtime failure.
 *
 * trace-demo.man (the manifest of its manifest-style events) and
 * trace-demo.tmf (the TMF of its messages) beside this file let etlconvert
 * decode them: etlconvert --manifest trace-demo.man --tmf trace-demo.tmf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "etl_trace.h"
#include "etl_tracelogging.h"

#define THREADS 2
#define ITERATIONS 50
#define KINDS 6

static etl_provider prov;          /* "LibEtl.TraceDemo", hashed GUID */
static const struct etl_guid CLASS_GUID =
	{ 0x6c1f7e2a, 0x41d3, 0x4b8e, { 0x9a, 0x51, 0x0d, 0x3e, 0x77, 0x12, 0xa4, 0xc9 } };
static const struct etl_guid MESSAGE_GUID =
	{ 0x0b5e8f41, 0x2c77, 0x4f09, { 0x8d, 0x16, 0x5a, 0x24, 0xe3, 0x90, 0x6b, 0x01 } };

static const struct etl_event_descriptor EV_WORK = {
	.id = 1, .version = 0, .channel = 0, .level = 4, .opcode = 0, .task = 1, .keyword = 0x1
};
static const struct etl_event_descriptor EV_HANDOFF = {
	.id = 2, .version = 0, .channel = 0, .level = 4, .opcode = 0, .task = 2, .keyword = 0x1
};

static int failures[THREADS];

static void *writer(void *arg)
{
	int t = (int)(size_t)arg;
	for (uint32_t i = 0; i < ITERATIONS; i++) {
		uint32_t v[2] = { (uint32_t)t, i };
		struct etl_data d = ETL_DATA(v, sizeof v);
		struct etl_guid act = etl_activity_new(), prev;
		char name[32];

		etl_activity_set(&act, &prev);
		if (etl_write(&prov, &EV_WORK, 1, &d) != ETL_OK)
			failures[t]++;
		struct etl_guid next = etl_activity_new();
		if (etl_write_transfer(&prov, &EV_HANDOFF, &next, &act, 1, &d) != ETL_OK)
			failures[t]++;
		snprintf(name, sizeof name, "worker-%d", t);
		ETL_TL_WRITE(&prov, "Step", ETL_TL_LEVEL(4), ETL_TL_KEYWORD(0x2),
		             ETL_TL_I32("Thread", t), ETL_TL_U32("Index", i),
		             ETL_TL_STR8("Name", name), ETL_TL_DOUBLE("Ratio", i / 2.0),
		             ETL_TL_GUID("Activity", &act), ETL_TL_BOOL32("Even", i % 2 == 0),
		             ETL_TL_U32_ARRAY("Pair", v, 2));
		if (etl_write_classic(&prov, &CLASS_GUID, 10, 4, 1, 1, &d) != ETL_OK)
			failures[t]++;
		if (etl_write_instance(&prov, &CLASS_GUID, 11, 4, 1, i + 1, (uint32_t)t, &CLASS_GUID,
		                       1, &d) != ETL_OK)
			failures[t]++;
		if (etl_write_message(&prov, 4, 0x4, &MESSAGE_GUID, 10, 1, &d) != ETL_OK)
			failures[t]++;
		etl_activity_set(&prev, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: trace-demo OUT.etl\n");
		return 1;
	}
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = argv[1];
	sp.blocking = 1;
	etl_session *s = etl_session_new();
	if (!s || etl_session_start(s, "TraceDemo", &sp) != ETL_OK) {
		fprintf(stderr, "trace-demo: %s\n", s ? etl_session_errmsg(s) : "out of memory");
		return 2;
	}
	if (etl_provider_register_name(&prov, "LibEtl.TraceDemo", NULL, NULL) != ETL_OK) {
		fprintf(stderr, "trace-demo: cannot register the provider\n");
		return 2;
	}
	struct etl_guid g = etl_provider_guid(&prov);
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.properties = ETL_ENABLE_SID | ETL_ENABLE_TS_ID | ETL_ENABLE_STACK_TRACE |
	                ETL_ENABLE_EVENT_KEY | ETL_ENABLE_PROCESS_START_KEY;
	if (etl_session_enable(s, &g, &ep) != ETL_OK) {
		fprintf(stderr, "trace-demo: %s\n", etl_session_errmsg(s));
		return 2;
	}

	pthread_t th[THREADS];
	for (size_t t = 0; t < THREADS; t++)
		if (pthread_create(&th[t], NULL, writer, (void *)t) != 0) {
			fprintf(stderr, "trace-demo: cannot start a thread\n");
			return 2;
		}
	for (size_t t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);

	int rc = etl_session_stop(s);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	etl_session_free(s);
	etl_provider_unregister(&prov);

	unsigned per_kind = THREADS * ITERATIONS;
	int failed = failures[0] + failures[1];
	if (rc != ETL_OK || failed || st.events_lost ||
	    st.events_written != (uint64_t)per_kind * KINDS) {
		fprintf(stderr, "trace-demo: stop %d, %d writes failed, %llu written, %llu lost\n",
		        rc, failed, (unsigned long long)st.events_written,
		        (unsigned long long)st.events_lost);
		return 2;
	}
	char gtext[ETL_GUID_STRLEN];
	printf("provider LibEtl.TraceDemo %s\n", etl_guid_format(&g, gtext));
	printf("manifest %u\ntransfer %u\ntracelogging %u\nclassic %u\ninstance %u\nmessage %u\n",
	       per_kind, per_kind, per_kind, per_kind, per_kind, per_kind);
	printf("buffers %llu\n", (unsigned long long)st.buffers_written);
	printf("events %llu\n", (unsigned long long)st.events_written);
	return 0;
}

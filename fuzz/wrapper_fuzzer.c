/*
 * wrapper_fuzzer.c - a gzip or LZ4 wrapper around a trace says what is
 * wrong with it the same way whichever way it is read: from memory in time
 * order (spooled) and in file order (streamed), and from a pipe in file
 * order (streamed through read(2) pieces) and in time order (spooled).
 *
 * For each way the harness records the verdict a tool would give about
 * the wrapper: the reader failed to open (its reason and message), or it
 * opened and the walk reported wrapper damage (ETL_E_DECOMPRESS: the
 * message up to its decompressed offset) or none; plus the records read
 * before the damage. The verdicts must be equal: one message and one exit
 * status per kind of damage, in every mode (see lib/io/source.c).
 *
 * Inputs that are not a gzip or LZ4 stream are wrapped first (the first
 * byte chooses gzip or LZ4), so mutations of a plain trace also test the
 * wrappers. The spool limit is 8 MiB: a bomb costs little.
 */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <lz4frame.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "etl.h"
#include "etl_io.h"
#include "fuzz.h"

#define MAX_IN (60u * 1024u)   /* fits a pipe's buffer: no writer thread */

struct verdict {
	int opened;                /* 0: the open failed                      */
	int code;                  /* the open's reason, or 0                 */
	char msg[256];             /* the open's message, or the wrapper's    */
};

/* The wrapper message of a damage report, without the decompressed
 * offset the walk adds (": offset=0x..."), which depends on how far each
 * order walked when it met the end. */
static void keep_wrapper(struct verdict *v, const char *msg)
{
	const char *cut = strstr(msg, ": offset=0x");
	size_t n = cut ? (size_t)(cut - msg) : strlen(msg);
	if (v->msg[0] || !strstr(msg, " at compressed offset "))
		return;                    /* the first one; the wrapper's only
	                              (compressed .etl buffers have their own) */
	if (n >= sizeof v->msg)
		n = sizeof v->msg - 1;
	memcpy(v->msg, msg, n);
	v->msg[n] = 0;
}

static struct verdict read_one(const uint8_t *data, size_t size, int order, int pipe_in)
{
	struct verdict v;
	int fds[2] = { -1, -1 };
	memset(&v, 0, sizeof v);
	etl_reader *r = etl_reader_new();
	FUZZ_ASSERT(r != NULL);
	etl_reader_set_order(r, order);
	int st;
	if (pipe_in) {
		FUZZ_ASSERT(pipe(fds) == 0);
		fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
		FUZZ_ASSERT(write(fds[1], data, size) == (ssize_t)size);
		close(fds[1]);
		st = etl_reader_open_fd(r, fds[0]);
	} else {
		st = etl_reader_open_memory(r, data, size);
	}
	if (st == ETL_FATAL) {
		v.code = etl_reader_errcode(r);
		snprintf(v.msg, sizeof v.msg, "%s", etl_reader_errmsg(r));
	} else {
		const struct etl_event *ev;
		v.opened = 1;
		while ((st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL)
			if (st == ETL_FAILED && etl_reader_errcode(r) == ETL_E_DECOMPRESS)
				keep_wrapper(&v, etl_reader_errmsg(r));
		if (st == ETL_FATAL) {
			/* Only a wrapper can fail a read from memory or a pipe. */
			v.code = etl_reader_errcode(r);
			keep_wrapper(&v, etl_reader_errmsg(r));
		}
	}
	etl_reader_free(r);
	if (fds[0] >= 0)
		close(fds[0]);
	return v;
}

static int is_wrapped(const uint8_t *p, size_t n)
{
	return (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) ||
	       (n >= 4 && p[0] == 0x04 && p[1] == 0x22 && p[2] == 0x4d && p[3] == 0x18);
}

/* data[1..] compressed with gzip (data[0] even) or LZ4 into out. */
static size_t wrap(const uint8_t *data, size_t size, uint8_t *out, size_t cap)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		size_t n = LZ4F_compressFrame(out, cap, data + 1, size - 1, NULL);
		return LZ4F_isError(n) ? 0 : n;
	}
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)(uintptr_t)(data + 1);
	zs.avail_in = (uInt)(size - 1);
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	int zr = deflate(&zs, Z_FINISH);
	size_t n = zr == Z_STREAM_END ? cap - zs.avail_out : 0;
	deflateEnd(&zs);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[2 * MAX_IN];
	if (size > MAX_IN)
		return 0;
	etl_set_spool_limit(8u << 20);
	if (!is_wrapped(data, size)) {
		size = wrap(data, size, buf, sizeof buf);
		if (!size || size > MAX_IN)
			return 0;
		data = buf;
	}
	struct verdict v[4];
	v[0] = read_one(data, size, ETL_ORDER_TIME, 0);
	v[1] = read_one(data, size, ETL_ORDER_FILE, 0);
	v[2] = read_one(data, size, ETL_ORDER_FILE, 1);
	v[3] = read_one(data, size, ETL_ORDER_TIME, 1);
	for (int i = 1; i < 4; i++) {
		if (v[i].opened != v[0].opened || v[i].code != v[0].code || strcmp(v[i].msg, v[0].msg)) {
			fprintf(stderr, "mode 0: opened=%d code=%d msg=%s\nmode %d: opened=%d code=%d msg=%s\n",
			        v[0].opened, v[0].code, v[0].msg, i, v[i].opened, v[i].code, v[i].msg);
			FUZZ_ASSERT(!"the same wrapper gives the same verdict in every mode");
		}
	}
	/* Never "empty" for a wrapper that is there. */
	FUZZ_ASSERT(v[0].opened || !strstr(v[0].msg, "The input is empty"));
	return 0;
}

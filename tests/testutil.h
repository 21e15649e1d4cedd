/*
 * testutil.h - helpers shared by the Check programs in tests/: the corpus
 * directory, loading files, building records, buffers and whole synthetic
 * .etl files byte by byte, and running a reader over an input while
 * collecting what it returned.
 *
 * Everything here aborts (via Check's ck_assert) on out-of-memory or I/O
 * trouble, so tests never have to check these helpers' results.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include "etl.h"

/* TU_CHECK(cond, fmt, ...) / TU_REQUIRE(cond): like ck_assert_msg() /
 * ck_assert(), but silent while the condition holds. Check records every
 * passing assertion (a write(2) each), which is far too slow in loops over
 * hundreds of thousands of records; use these there. */
#define TU_CHECK(cond, ...) \
	do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)
#define TU_REQUIRE(cond) \
	do { if (!(cond)) ck_abort_msg("Assertion '%s' failed", #cond); } while (0)

/* TU_ASAN: defined (1) in AddressSanitizer builds, which gcc announces
 * with __SANITIZE_ADDRESS__ and clang through __has_feature. Tests use it
 * where the sanitizer changes what they measure (its quarantine keeps
 * freed memory resident) or where they ask it to poison memory. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif

/* ---- corpus and files ------------------------------------------------ */

/*! tu_corpus_dir() : $ETL_CORPUS, or "../shared/corpus" (relative to the
 *  repository root, where make runs the tests). Static storage. */
const char *tu_corpus_dir(void);

/*! tu_corpus_path() : "<corpus dir>/<name>", newly allocated. */
char *tu_corpus_path(const char *name);

/*! tu_corpus_present() : 1 when the corpus is there (its expected.json is
 *  readable), else 0. A corpus that is there but lacks a file a test reads
 *  makes that test fail, not skip. Usable outside a test (no ck_assert). */
int tu_corpus_present(void);

/*! tu_skip() : reports that the running test is skipped, as the line
 *  "SKIP: <test>: <reason>" on standard output, which tests/run.sh counts
 *  (the test then counts as skipped, never as passed). test is the test
 *  function's name (__func__; a trailing "_fn" is dropped). The caller
 *  returns right after. */
void tu_skip(const char *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* TU_NEED_CORPUS(): first statement of a test that reads the corpus:
 * without it, the test is skipped (tu_skip()) and returns. */
#define TU_NEED_CORPUS()                                                  \
	do {                                                              \
		if (!tu_corpus_present()) {                               \
			tu_skip(__func__, "no corpus at %s", tu_corpus_dir()); \
			return;                                           \
		}                                                         \
	} while (0)

/*! tu_corpus_list() : the names of the corpus's .etl files, sorted, in a
 *  NULL-terminated array (free with tu_corpus_list_free()); *n their
 *  number, 0 without a corpus. Usable outside a test (no ck_assert). */
char **tu_corpus_list(size_t *n);
void tu_corpus_list_free(char **names);

/*! tu_join_path() : "dir/name", newly allocated. */
char *tu_join_path(const char *dir, const char *name);

/*! tu_remove_tree() : removes dir and everything under it (rm -rf); says
 *  so on stderr when it cannot. Usable outside a test (no ck_assert). */
void tu_remove_tree(const char *dir);

/*! tu_tool_path() : the path of the command-line tool name ("etlreplay")
 *  of the build the running test program belongs to (its ../bin),
 *  newly allocated. */
char *tu_tool_path(const char *name);

/*! tu_run_tool() : runs argv (argv[0] a path, NULL-terminated) with its
 *  standard output to out_path and its standard error to err_path (NULL:
 *  /dev/null) and standard input from /dev/null. @return : its exit
 *  status, or -1 - signal when a signal ended it. */
int tu_run_tool(char *const argv[], const char *out_path, const char *err_path);

/*! tu_run_tool_rss() : tu_run_tool(), and *maxrss_kib (when not NULL) the
 *  tool's peak resident set (wait4()'s ru_maxrss, KiB on Linux). Linux
 *  counts the forked child's memory before exec too, so the figure is at
 *  least the caller's resident set at the fork: compare differences. */
int tu_run_tool_rss(char *const argv[], const char *out_path, const char *err_path, long *maxrss_kib);

/*! tu_load_file() : the whole file in a malloc'd block (one spare NUL byte
 *  after the end, so text can be parsed in place). *len = file size. */
uint8_t *tu_load_file(const char *path, size_t *len);

/*! tu_write_file() : writes n bytes to path (created / truncated). */
void tu_write_file(const char *path, const void *p, size_t n);

/*! tu_golden_check() : compares n bytes at p with the golden file gpath
 *  byte for byte (what names the output in failure messages). With
 *  ETL_UPDATE_GOLDEN set (and not "0") it rewrites gpath instead, as
 *  tests/check_output.c does for its golden files. */
void tu_golden_check(const char *gpath, const void *p, size_t n, const char *what);

/* ---- growable byte vector ------------------------------------------- */

struct tu_bytes {
	uint8_t *p;
	size_t len;
	size_t cap;
};

void tu_bytes_init(struct tu_bytes *b);
void tu_bytes_free(struct tu_bytes *b);
void tu_bytes_reserve(struct tu_bytes *b, size_t extra);
/* Appends (little-endian for the integers). */
void tu_put8(struct tu_bytes *b, uint8_t v);
void tu_put16(struct tu_bytes *b, uint16_t v);
void tu_put32(struct tu_bytes *b, uint32_t v);
void tu_put64(struct tu_bytes *b, uint64_t v);
void tu_putguid(struct tu_bytes *b, const struct etl_guid *g);
void tu_putbytes(struct tu_bytes *b, const void *p, size_t n);
/* Appends printf-formatted text (at most 511 bytes), without its NUL. */
void tu_putf(struct tu_bytes *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tu_putfill(struct tu_bytes *b, uint8_t v, size_t n);
/* Appends s as UTF-16LE, with the terminating NUL unit. */
void tu_pututf16z(struct tu_bytes *b, const char *ascii);
/* Pads with byte v until len is a multiple of 8. */
void tu_align8(struct tu_bytes *b, uint8_t v);
/* Overwrites at off (which must already exist). */
void tu_set16(struct tu_bytes *b, size_t off, uint16_t v);
void tu_set32(struct tu_bytes *b, size_t off, uint32_t v);
void tu_set64(struct tu_bytes *b, size_t off, uint64_t v);

/* Little-endian reads from raw bytes. */
uint16_t tu_le16(const uint8_t *p);
uint32_t tu_le32(const uint8_t *p);
uint64_t tu_le64(const uint8_t *p);

/* A GUID from its text form; aborts the test if s is not one. */
struct etl_guid tu_guid(const char *s);

/* ---- records ---------------------------------------------------------- */

/* Every builder below appends exactly one record (not padded) to out and
 * returns the record's offset in out. Sizes are filled in automatically. */

/* SYSTEM_TRACE_HEADER (htype 0x01 / 0x02) or compact (0x03 / 0x04; no
 * Kernel/UserTime). hw holds the PEBS index (if version_word & 0x8000)
 * followed by the PMC counters (count from version_word bits 8-10). */
size_t tu_rec_system(struct tu_bytes *out, uint8_t htype, uint16_t version_word,
                     uint16_t hook_id, uint32_t tid, uint32_t pid, int64_t ts,
                     uint32_t ktime, uint32_t utime, const uint64_t *hw,
                     const void *payload, size_t n);

/* PERFINFO_TRACE_HEADER (htype 0x10 / 0x11). hw as above. */
size_t tu_rec_perfinfo(struct tu_bytes *out, uint8_t htype, uint16_t version_word,
                       uint16_t hook_id, int64_t ts, const uint64_t *hw,
                       const void *payload, size_t n);

/* EVENT_HEADER (htype 0x12 / 0x13) with no extended items; id is the
 * descriptor Id, everything else simple defaults. */
size_t tu_rec_event(struct tu_bytes *out, uint8_t htype, const struct etl_guid *provider,
                    uint16_t id, uint32_t tid, uint32_t pid, int64_t ts,
                    const void *payload, size_t n);

/* Options of the SYSTEM64 logfile-header record (TRACE_LOGFILE_HEADER64,
 * doc/format.md §2.2). tu_lf_defaults() gives a plausible Win10 file. */
struct tu_lf {
	uint8_t  ptr_size;          /* 8: SYSTEM64 + 0x118 form; 4: SYSTEM32 + 0x110 */
	uint32_t buffer_size;
	uint8_t  version[4];
	uint32_t build;
	uint32_t nproc;
	int64_t  end_time;
	uint32_t timer_resolution;
	uint32_t max_file_size;
	uint32_t log_file_mode;
	uint32_t buffers_written;
	uint32_t start_buffers;
	uint32_t pointer_size;
	uint32_t events_lost;
	uint32_t cpu_mhz;
	uint64_t logger_name_field;
	uint64_t log_file_name_field;
	int32_t  tz_bias;
	const char *tz_std_name;
	int32_t  tz_std_bias;
	const char *tz_dst_name;
	int32_t  tz_dst_bias;
	int64_t  boot_time;
	int64_t  perf_freq;
	int64_t  start_time;
	uint32_t clock_type;        /* ReservedFlags */
	uint32_t buffers_lost;
	const char *logger_name;
	const char *log_file_name;
	int64_t  header_ts;         /* the header record's own timestamp T0 */
};
void tu_lf_defaults(struct tu_lf *lf);
/* Appends the logfile-header record (SYSTEM32/64, HookId 0, version 2). */
size_t tu_rec_logfile(struct tu_bytes *out, const struct tu_lf *lf);

/* ---- buffers ------------------------------------------------------- */

/* One WMI_BUFFER_HEADER and its records (doc/format.md §1.2). Fields left
 * at their tu_buffer_init() value get sensible defaults at emit time. */
struct tu_buffer {
	uint32_t buffer_size;   /* BufferSize                                  */
	int64_t  sequence;
	int64_t  timestamp;
	uint16_t client_proc;   /* raw u16 at 0x28                             */
	uint16_t logger_id;
	uint16_t flags;         /* BufferFlag, default 0x20 (PROC_INDEX)       */
	uint16_t type;          /* BufferType, default 0                      */
	uint32_t state;         /* default 3                                  */
	int64_t  saved_offset;  /* -1: 0x48 + records                         */
	int64_t  offset;        /* -1: same as SavedOffset                    */
	int64_t  current_offset;/* -1: same as SavedOffset                    */
	uint8_t  fill;          /* byte after the records, default 0xFF       */
	struct tu_bytes recs;   /* the records, each padded to 8 bytes         */
};

void tu_buffer_init(struct tu_buffer *b, uint32_t buffer_size, uint16_t proc, int64_t seq);
void tu_buffer_free(struct tu_buffer *b);
/* Appends a record (n bytes), then pad bytes (pad) to an 8-byte boundary.
 * Returns the record's offset inside the buffer (0x48 + ...). */
uint32_t tu_buffer_add(struct tu_buffer *b, const void *rec, size_t n, uint8_t pad);
/* Appends the 0x48-byte header, records and fill up to BufferSize to file.
 * Returns the buffer's offset in file. */
size_t tu_buffer_emit(struct tu_bytes *file, const struct tu_buffer *b);

/* A synthetic file: the header buffer (BufferType 4, sequence 0, flags
 * 0x21, processor 0) holding the logfile-header record, appended to file.
 * header_buffer_size 0 means lf->buffer_size. Returns the file offset just
 * after the header buffer. */
size_t tu_file_header(struct tu_bytes *file, const struct tu_lf *lf,
                      uint32_t header_buffer_size);

/* ---- running a reader -------------------------------------------------- */

/* What a reader returned for one event (a copy; the event itself is only
 * borrowed). */
struct tu_ev {
	uint64_t file_offset;
	uint64_t buffer_offset;
	uint32_t offset_in_buffer;
	uint32_t size;
	int64_t  timestamp;
	int64_t  utc;
	uint16_t present;
	uint16_t processor;
	uint16_t header_flags;
	uint16_t hook_id;
	uint16_t id;
	uint8_t  kind;
	int8_t   status;            /* ETL_OK or ETL_WARN */
};

/* One ETL_FAILED result. */
struct tu_fail {
	int code;
	uint64_t off;
	size_t after;               /* events returned before it */
};

struct tu_run {
	int open_rc;                /* result of the open call               */
	int end_rc;                 /* ETL_END, ETL_FATAL, or 99 if the call
	                               limit was hit                          */
	size_t calls;               /* etl_reader_next() calls made           */
	struct tu_ev *ev;
	size_t n, cap;
	struct tu_fail *fail;
	size_t nfail, failcap;
	size_t nwarn;
	struct etl_reader_stats stats;
	struct etl_logfile lf;      /* copy; the name pointers are dropped    */
};

#define TU_LIMIT_HIT 99

/* Runs etl_reader_next() to the end (or max_calls, 0 = no limit) over
 * data / path in the given order and records everything. */
void tu_run_memory(struct tu_run *run, const void *data, size_t n, int order,
                   size_t max_calls);
void tu_run_file(struct tu_run *run, const char *path, int order, size_t max_calls);
void tu_run_fd(struct tu_run *run, int fd, int order, size_t max_calls);
void tu_run_free(struct tu_run *run);

/* Index of the first event at (buffer_offset, offset_in_buffer), or -1. */
long tu_run_find(const struct tu_run *run, uint64_t buffer_offset, uint32_t in_buffer);
/* Index of the first failure with this code, or -1. */
long tu_run_find_fail(const struct tu_run *run, int code);

/* Sorts a copy of the (buffer_offset, offset_in_buffer) identities of the
 * events; *n = count. Free with free(). */
uint64_t *tu_run_keys(const struct tu_run *run, size_t *n);
/* The identity used by tu_run_keys(): buffer offset << 26 | in-buffer. */
uint64_t tu_ev_key(uint64_t buffer_offset, uint32_t in_buffer);

/* Deterministic PRNG (xorshift64*). */
uint64_t tu_rand(uint64_t *state);

/* Hex dump of n bytes at p (labelled with base offsets) to stderr. */
void tu_hexdump(const char *title, const uint8_t *p, size_t n, uint64_t base);

/* ---- comparing events ------------------------------------------------ */

/*! tu_ev_diff() : the name of the first field in which a and b differ, or
 *  NULL. full = 0 compares only what a writer's caller sets (synthetic
 *  events); full = 1 every field the reader fills, except logger_id and
 *  the positions (offsets, record pointer). Payload and extended items
 *  are compared byte for byte. */
const char *tu_ev_diff(const struct etl_event *a, const struct etl_event *b, int full);

/* ---- escaping ----------------------------------------------------- */

/*! tu_escape_sweep() : calls check(s, n) on the strings an escaper's block
 *  loop is tried with: every length 0..max_len of a plain string ('x'),
 *  then of the same with each byte of specials at every position, and with
 *  each UTF-8 sequence of seqs at every position (cut by the end where it
 *  does not fit). max_len < 80. */
void tu_escape_sweep(const unsigned char *specials, size_t n_specials, const char *const *seqs,
                     size_t n_seqs, size_t max_len, void (*check)(const char *s, size_t n));

#endif /* TESTUTIL_H */

/*
 * lib/sem/reg_text.c - the bytes of a .reg file to UTF-8 text, and the
 * header line (doc/sem.md §2.2).
 *
 * `reg export` and regedit write "Windows Registry Editor Version 5.00"
 * files in UTF-16LE with a byte-order mark; "REGEDIT4" files, and 5.00
 * files people write by hand, are 8-bit text. Every encoding is turned
 * into one UTF-8 text here, so the line parser (reg_parse.c) sees one
 * alphabet. Damage in the encoding is fatal: a file whose characters
 * cannot be trusted cannot be trusted to name keys either.
 *
 * 8-bit text is read as UTF-8 where it is valid UTF-8, and byte by byte
 * as Latin-1 elsewhere (a choice: the ANSI code page of the machine that
 * wrote a REGEDIT4 file is unknown; every name the SEM reads is ASCII).
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "etl_errors.h"
#include "lib/common/cursor.h"
#include "lib/read/logfile.h"
#include "lib/render/render.h"
#include "lib/sem/sem_internal.h"

static const char HEADER_V5[] = "Windows Registry Editor Version 5.00";
static const char HEADER_V4[] = "REGEDIT4";

/* Where decoding is, for messages. */
struct pos {
	uint32_t line, col;
};

static void advance(struct pos *p, uint32_t cp)
{
	if (cp == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
}

/* Checks UTF-16LE text character by character (so a complaint can say
 * where), then converts it with the reader's converter. */
static int decode_utf16(struct etl_cur *c, const char *name, char **out, size_t *outlen,
                        struct etl_sem_error *err)
{
	struct pos at = { 1, 1 };
	const uint8_t *start = etl_cur_ptr(c);
	size_t n = etl_cur_left(c);
	while (etl_cur_left(c) >= 2) {
		uint32_t u = etl_cur_u16(c);
		if (u == 0) {
			etl__sem_err(err, ETL_E_BAD_VALUE, at.line, at.col, -1,
			             "%s: line %u, column %u: NUL character in the text", name, at.line, at.col);
			return -1;
		}
		int high = u >= 0xD800 && u <= 0xDBFF;
		uint32_t lo = high && etl_cur_left(c) >= 2 ? etl_le16(etl_cur_ptr(c)) : 0;
		if ((high && (lo < 0xDC00 || lo > 0xDFFF)) || (u >= 0xDC00 && u <= 0xDFFF)) {
			etl__sem_err(err, ETL_E_BAD_VALUE, at.line, at.col, -1,
			             "%s: line %u, column %u: not UTF-16: %s surrogate 0x%04X without its pair", name,
			             at.line, at.col, high ? "high" : "low", (unsigned)u);
			return -1;
		}
		if (high)
			etl_cur_skip(c, 2);
		advance(&at, u);
	}
	if (etl_cur_left(c)) {
		etl__sem_err(err, ETL_E_BAD_VALUE, at.line, at.col, -1,
		             "%s: line %u: not UTF-16: the file ends in the middle of a character (odd size)",
		             name, at.line);
		return -1;
	}
	*out = etl__utf16_to_utf8(start, n, NULL);      /* no NUL inside: all of it */
	if (!*out) {
		etl__sem_err(err, ETL_E_NOMEM, 0, 0, -1, "%s: out of memory", name);
		return -1;
	}
	*outlen = strlen(*out);
	return 0;
}

/* 8-bit text: UTF-8 where valid, Latin-1 elsewhere (a byte becomes at most
 * two), NUL refused. */
static int decode_8bit(struct etl_cur *c, const char *name, char **outp, size_t *outlen,
                       struct etl_sem_error *err)
{
	struct pos at = { 1, 1 };
	size_t cap;
	if (!etl_ckd_mul_size(&cap, etl_cur_left(c), 2) || !etl_ckd_add_size(&cap, cap, 1) || !(*outp = malloc(cap))) {
		etl__sem_err(err, ETL_E_NOMEM, 0, 0, -1, "%s: out of memory", name);
		return -1;
	}
	char *out = *outp;
	size_t o = 0;
	while (etl_cur_left(c)) {
		const uint8_t *p = etl_cur_ptr(c);
		if (p[0] == 0) {
			etl__sem_err(err, ETL_E_BAD_VALUE, at.line, at.col, -1,
			             "%s: line %u, column %u: NUL byte in 8-bit text%s", name, at.line, at.col,
			             at.line == 1 && at.col == 2 ? " (UTF-16 without a byte-order mark?)" : "");
			return -1;
		}
		size_t n = etl__utf8_len(p, etl_cur_left(c));
		if (n) {
			memcpy(out + o, p, n);
			o += n;
		} else {
			n = 1;                         /* Latin-1: U+0080..U+00FF */
			out[o++] = (char)(0xC0 | (p[0] >> 6));
			out[o++] = (char)(0x80 | (p[0] & 0x3F));
		}
		advance(&at, p[0]);            /* only '\n' matters: ASCII */
		etl_cur_skip(c, n);
	}
	out[o] = 0;
	*outlen = o;
	return 0;
}

/* Writes at most max bytes of s into buf, control characters as '?'. */
static const char *shown(const char *s, size_t n, char *buf, size_t max)
{
	size_t i = 0;
	for (; i < n && i < max; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) ? '?' : s[i];
	buf[i] = 0;
	return buf;
}

static int check_header(const char *text, size_t len, const char *name, size_t *body,
                        enum etl__reg_version *ver, struct etl_sem_error *err)
{
	const char *nl = memchr(text, '\n', len);
	size_t end = nl ? (size_t)(nl - text) : len;
	*body = nl ? end + 1 : len;
	while (end && (text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	if (end == sizeof HEADER_V5 - 1 && memcmp(text, HEADER_V5, end) == 0) {
		*ver = ETL_REG_V5;
		return 0;
	}
	if (end == sizeof HEADER_V4 - 1 && memcmp(text, HEADER_V4, end) == 0) {
		*ver = ETL_REG_V4;
		return 0;
	}
	char buf[61];
	etl__sem_err(err, ETL_E_BAD_MAGIC, 1, 1, -1,
	             "%s: line 1: not a .reg file: the first line is \"%s%s\", not \"%s\" or \"%s\"", name,
	             shown(text, end, buf, 60), end > 60 ? "..." : "", HEADER_V5, HEADER_V4);
	return -1;
}

int etl__reg_text(const uint8_t *data, size_t size, const char *name, char **text, size_t *len,
                  size_t *body, enum etl__reg_version *ver, struct etl_sem_error *err)
{
	*text = NULL;
	if (size > ETL_SEM_REG_MAX_BYTES) {
		etl__sem_err(err, ETL_E_LIMIT, 0, 0, -1,
		             "%s: %zu bytes: larger than the %u bytes a .reg file may have (export only the WDI keys, "
		             "or read the hives)", name, size, ETL_SEM_REG_MAX_BYTES);
		return -1;
	}
	struct etl_cur c;
	etl_cur_init(&c, data, size);
	int utf16 = 0;
	if (size >= 2 && data[0] == 0xFF && data[1] == 0xFE) {
		utf16 = 1;
		etl_cur_skip(&c, 2);
	} else if (size >= 2 && data[0] == 0xFE && data[1] == 0xFF) {
		etl__sem_err(err, ETL_E_BAD_VALUE, 1, 1, -1,
		             "%s: UTF-16 big-endian text; .reg files are UTF-16 little-endian or 8-bit", name);
		return -1;
	} else if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
		etl_cur_skip(&c, 3);
	}
	char *out = NULL;
	size_t n = 0;
	int rc = utf16 ? decode_utf16(&c, name, &out, &n, err) : decode_8bit(&c, name, &out, &n, err);
	if (rc == 0)
		rc = check_header(out, n, name, body, ver, err);
	if (rc != 0) {
		free(out);
		return -1;
	}
	*text = out;
	*len = n;
	return 0;
}

/*
 * check_values.c - the text of every kind of value in every output format,
 * against one table: the project's rule (doc/decoding.md §6.2).
 *
 * Each row is one property (kind, in-type, out-type, value) at an extreme
 * of its type - minimum, maximum, -1, 0, and the edges of JSON's exact
 * integers, NaN, infinities, subnormals, empty and escaped text - rendered
 * alone through etl_output in xml, json, jsonl, csv and text, and the
 * value's text cut out of each output and compared byte for byte.
 *
 * A row gives the plain text T once: XML shows T, CSV's Properties field
 * "v=T", text "v=T", JSON T as a number (num) or "T" as a string; rows
 * whose text needs escaping spell every format out.
 *
 * JSON numbers: integers from -(2^53 - 1) to 2^53 - 1 and finite floats;
 * every other integer (64-bit values beyond) is a string of its decimal
 * digits, as are hex values, NaN and the infinities.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl.h"
#include "etl_decode.h"
#include "etl_output.h"
#include "testutil.h"

enum { STR = 0, NUM = 1 };          /* how JSON writes T */

struct row {
	const char *what;
	int kind;
	uint16_t in, out;
	uint64_t u;                     /* integers, BOOL, FILETIME (v.i bits) */
	double f;
	const char *s;                  /* STRING / BINARY / SID bytes         */
	size_t n;
	const char *t;                  /* the plain text                      */
	int json;                       /* STR or NUM                          */
	/* overrides where the text needs escaping (NULL: derived from t) */
	const char *xml, *js, *csv, *txt;
};

#define I(what, in, out, v, t, j) { what, ETL_VAL_INT, in, out, (uint64_t)(int64_t)(v), 0, NULL, 0, t, j, NULL, NULL, NULL, NULL }
#define U(what, in, out, v, t, j) { what, ETL_VAL_UINT, in, out, (uint64_t)(v), 0, NULL, 0, t, j, NULL, NULL, NULL, NULL }
#define B(what, in, out, v, t) { what, ETL_VAL_BOOL, in, out, (uint64_t)(v), 0, NULL, 0, t, NUM, NULL, NULL, NULL, NULL }
#define F(what, in, v, t, j) { what, ETL_VAL_FLOAT, in, 0, 0, v, NULL, 0, t, j, NULL, NULL, NULL, NULL }
#define T(what, v, t) { what, ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)(int64_t)(v), 0, NULL, 0, t, STR, NULL, NULL, NULL, NULL }
#define BIN(what, kind, in, out, s, n, t) { what, kind, in, out, 0, 0, s, n, t, STR, NULL, NULL, NULL, NULL }

static const struct row rows[] = {
	/* signed and unsigned 8-64 bits: decimal */
	I("int8 min", ETL_IN_INT8, 0, INT8_MIN, "-128", NUM),
	I("int8 max", ETL_IN_INT8, 0, INT8_MAX, "127", NUM),
	I("int8 -1", ETL_IN_INT8, 0, -1, "-1", NUM),
	I("int8 0", ETL_IN_INT8, 0, 0, "0", NUM),
	U("uint8 max", ETL_IN_UINT8, 0, UINT8_MAX, "255", NUM),
	U("uint8 0", ETL_IN_UINT8, 0, 0, "0", NUM),
	I("int16 min", ETL_IN_INT16, 0, INT16_MIN, "-32768", NUM),
	I("int16 max", ETL_IN_INT16, 0, INT16_MAX, "32767", NUM),
	I("int16 -1", ETL_IN_INT16, 0, -1, "-1", NUM),
	I("int16 0", ETL_IN_INT16, 0, 0, "0", NUM),
	U("uint16 max", ETL_IN_UINT16, 0, UINT16_MAX, "65535", NUM),
	U("uint16 0", ETL_IN_UINT16, 0, 0, "0", NUM),
	I("int32 min", ETL_IN_INT32, 0, INT32_MIN, "-2147483648", NUM),
	I("int32 max", ETL_IN_INT32, 0, INT32_MAX, "2147483647", NUM),
	I("int32 -1", ETL_IN_INT32, 0, -1, "-1", NUM),
	I("int32 0", ETL_IN_INT32, 0, 0, "0", NUM),
	U("uint32 max", ETL_IN_UINT32, 0, UINT32_MAX, "4294967295", NUM),
	U("uint32 0", ETL_IN_UINT32, 0, 0, "0", NUM),
	I("int64 min", ETL_IN_INT64, 0, INT64_MIN, "-9223372036854775808", STR),
	I("int64 max", ETL_IN_INT64, 0, INT64_MAX, "9223372036854775807", STR),
	I("int64 -1", ETL_IN_INT64, 0, -1, "-1", NUM),
	I("int64 0", ETL_IN_INT64, 0, 0, "0", NUM),
	I("int64 -204", ETL_IN_INT64, 0, -204, "-204", NUM),
	I("int64 -(2^53-1)", ETL_IN_INT64, 0, -9007199254740991LL, "-9007199254740991", NUM),
	I("int64 -2^53", ETL_IN_INT64, 0, -9007199254740992LL, "-9007199254740992", STR),
	I("int64 2^53-1", ETL_IN_INT64, 0, 9007199254740991LL, "9007199254740991", NUM),
	I("int64 2^53", ETL_IN_INT64, 0, 9007199254740992LL, "9007199254740992", STR),
	U("uint64 max", ETL_IN_UINT64, 0, UINT64_MAX, "18446744073709551615", STR),
	U("uint64 0", ETL_IN_UINT64, 0, 0, "0", NUM),
	U("uint64 2^53-1", ETL_IN_UINT64, 0, 9007199254740991ULL, "9007199254740991", NUM),
	U("uint64 2^53", ETL_IN_UINT64, 0, 9007199254740992ULL, "9007199254740992", STR),
	/* the PID/TID/ErrorCode-like decimal out-types change nothing */
	U("uint32 PID", ETL_IN_UINT32, ETL_OUT_PID, 4294967295u, "4294967295", NUM),
	I("int32 long", ETL_IN_INT32, ETL_OUT_INT, -1, "-1", NUM),

	/* hex: 0x, lower case, no padding, negative values as the two's
	 * complement of the in-type's width; always a JSON string */
	U("hexint32 max", ETL_IN_HEXINT32, ETL_OUT_HEXINT32, UINT32_MAX, "0xffffffff", STR),
	U("hexint32 0", ETL_IN_HEXINT32, ETL_OUT_HEXINT32, 0, "0x0", STR),
	U("hexint64 max", ETL_IN_HEXINT64, ETL_OUT_HEXINT64, UINT64_MAX, "0xffffffffffffffff", STR),
	U("hexint64 0", ETL_IN_HEXINT64, 0, 0, "0x0", STR),
	I("int8 hex -1", ETL_IN_INT8, ETL_OUT_HEXINT8, -1, "0xff", STR),
	I("int8 hex min", ETL_IN_INT8, ETL_OUT_HEXINT8, INT8_MIN, "0x80", STR),
	U("uint8 hex max", ETL_IN_UINT8, ETL_OUT_HEXINT8, UINT8_MAX, "0xff", STR),
	I("int16 hex min", ETL_IN_INT16, ETL_OUT_HEXINT16, INT16_MIN, "0x8000", STR),
	U("uint16 hex max", ETL_IN_UINT16, ETL_OUT_HEXINT16, UINT16_MAX, "0xffff", STR),
	I("int32 hex -1", ETL_IN_INT32, ETL_OUT_HEXINT32, -1, "0xffffffff", STR),
	I("int64 hex min", ETL_IN_INT64, ETL_OUT_HEXINT64, INT64_MIN, "0x8000000000000000", STR),
	I("int32 HRESULT", ETL_IN_INT32, ETL_OUT_HRESULT, (int32_t)0x80004005, "0x80004005", STR),
	U("uint32 NTSTATUS", ETL_IN_UINT32, ETL_OUT_NTSTATUS, 0xC0000005u, "0xc0000005", STR),
	U("uint32 Win32Error", ETL_IN_UINT32, ETL_OUT_WIN32ERROR, 5, "0x5", STR),
	/* pointers by width: the value as read (4 or 8 bytes), in hex */
	U("pointer 32-bit max", ETL_IN_POINTER, ETL_OUT_HEXINT32, UINT32_MAX, "0xffffffff", STR),
	U("pointer 64-bit max", ETL_IN_POINTER, ETL_OUT_HEXINT64, UINT64_MAX, "0xffffffffffffffff", STR),
	U("pointer 0", ETL_IN_POINTER, 0, 0, "0x0", STR),

	/* booleans */
	B("bool32 true", ETL_IN_BOOLEAN, 0, 1, "true"),
	B("bool32 false", ETL_IN_BOOLEAN, 0, 0, "false"),
	U("uint8 as Boolean 255", ETL_IN_UINT8, ETL_OUT_BOOLEAN, 255, "true", NUM),
	U("uint8 as Boolean 0", ETL_IN_UINT8, ETL_OUT_BOOLEAN, 0, "false", NUM),

	/* characters: 8-bit as Windows-1252, 16-bit as UCS-2, in UTF-8 */
	U("char8 A", ETL_IN_UINT8, ETL_OUT_STRING, 'A', "A", STR),
	U("char8 0x80", ETL_IN_UINT8, ETL_OUT_STRING, 0x80, "\xE2\x82\xAC", STR),
	I("char8 -1", ETL_IN_INT8, ETL_OUT_STRING, -1, "\xC3\xBF", STR),
	/* U+FFFF is no XML character: XML and CSV (cleaned alike) show U+FFFD */
	{ "char16 max", ETL_VAL_UINT, ETL_IN_UINT16, ETL_OUT_STRING, 0xFFFF, 0, NULL, 0, "\xEF\xBF\xBF", STR,
	  "\xEF\xBF\xBD", NULL, "v=\xEF\xBF\xBD", NULL },
	U("char16 euro", ETL_IN_UINT16, ETL_OUT_STRING, 0x20AC, "\xE2\x82\xAC", STR),
	U("char16 surrogate", ETL_IN_UINT16, ETL_OUT_STRING, 0xD800, "\xEF\xBF\xBD", STR),
	{ "char8 0", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_STRING, 0, 0, NULL, 0, NULL, STR,
	  "\xE2\x90\x80", "\"\\u0000\"", "\"v=\"\"\\x00\"\"\"", "v=\"\\x00\"" },
	{ "char8 quote", ETL_VAL_UINT, ETL_IN_UINT8, ETL_OUT_STRING, '"', 0, NULL, 0, NULL, STR,
	  "&quot;", "\"\\\"\"", "\"v=\"\"\\\"\"\"\"\"", "v=\"\\\"\"" },

	/* floats: the shortest text that reads back; NaN and the infinities
	 * as words (JSON strings) */
	F("float 0", ETL_IN_FLOAT, 0.0, "0", NUM),
	F("float -0", ETL_IN_FLOAT, -0.0, "-0", NUM),
	F("float 1.5", ETL_IN_FLOAT, 1.5, "1.5", NUM),
	F("float -1", ETL_IN_FLOAT, -1.0, "-1", NUM),
	F("float max", ETL_IN_FLOAT, FLT_MAX, "3.4028235e+38", NUM),
	F("float min normal", ETL_IN_FLOAT, FLT_MIN, "1.1754944e-38", NUM),
	F("float min subnormal", ETL_IN_FLOAT, 1.40129846e-45, "1e-45", NUM),
	F("float 0.1", ETL_IN_FLOAT, (double)0.1f, "0.1", NUM),
	F("float NaN", ETL_IN_FLOAT, NAN, "NaN", STR),
	F("float +inf", ETL_IN_FLOAT, INFINITY, "Infinity", STR),
	F("float -inf", ETL_IN_FLOAT, -INFINITY, "-Infinity", STR),
	F("double max", ETL_IN_DOUBLE, DBL_MAX, "1.7976931348623157e+308", NUM),
	F("double -max", ETL_IN_DOUBLE, -DBL_MAX, "-1.7976931348623157e+308", NUM),
	F("double min normal", ETL_IN_DOUBLE, DBL_MIN, "2.2250738585072014e-308", NUM),
	F("double min subnormal", ETL_IN_DOUBLE, 4.9406564584124654e-324, "5e-324", NUM),
	F("double 0.1", ETL_IN_DOUBLE, 0.1, "0.1", NUM),
	F("double 0", ETL_IN_DOUBLE, 0.0, "0", NUM),
	F("double -1", ETL_IN_DOUBLE, -1.0, "-1", NUM),
	F("double 2^53+2", ETL_IN_DOUBLE, 9007199254740994.0, "9007199254740994", NUM),
	F("double NaN", ETL_IN_DOUBLE, NAN, "NaN", STR),
	F("double +inf", ETL_IN_DOUBLE, INFINITY, "Infinity", STR),
	F("double -inf", ETL_IN_DOUBLE, -INFINITY, "-Infinity", STR),

	/* FILETIME (and SYSTEMTIME, decoded to one): UTC, 7 digits */
	T("filetime 0", 0, "1601-01-01T00:00:00.0000000Z"),
	T("filetime 1", 1, "1601-01-01T00:00:00.0000001Z"),
	T("filetime 2020", 132264173104203138LL, "2020-02-17T12:48:30.4203138Z"),
	T("filetime max", INT64_MAX, "30828-09-14T02:48:05.4775807Z"),
	/* from 2^63 on no date (FileTimeToSystemTime refuses them; -1 often
	 * stands for "never"): the unsigned number as stored */
	T("filetime 2^64-1", -1, "18446744073709551615"),
	T("filetime 2^63", INT64_MIN, "9223372036854775808"),

	/* GUID, SID, binary */
	{ "guid", ETL_VAL_GUID, ETL_IN_GUID, 0, 0, 0, NULL, 0, "{01234567-89ab-cdef-0123-456789abcdef}", STR,
	  NULL, NULL, NULL, NULL },
	BIN("sid S-1-5-18", ETL_VAL_SID, ETL_IN_SID, 0, "\x01\x01\x00\x00\x00\x00\x00\x05\x12\x00\x00\x00", 12,
	    "S-1-5-18"),
	BIN("sid max sub-authority", ETL_VAL_SID, ETL_IN_SID, 0,
	    "\x01\x02\x00\x00\x00\x00\x00\x05\xFF\xFF\xFF\xFF\x00\x00\x00\x00", 16, "S-1-5-4294967295-0"),
	BIN("sid 48-bit authority", ETL_VAL_SID, ETL_IN_SID, 0, "\x01\x00\xFF\xFF\xFF\xFF\xFF\xFF", 8,
	    "S-1-0xffffffffffff"),
	BIN("sid malformed", ETL_VAL_SID, ETL_IN_SID, 0, "\x01\x05\x00", 3, "010500"),
	BIN("binary", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_HEXBINARY, "\x00\xFF\x10", 3, "00FF10"),
	/* empty: nothing in XML and JSON, "" in name=value lists */
	{ "binary empty", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_HEXBINARY, 0, 0, "", 0, "", STR, NULL, NULL,
	  "\"v=\"\"\"\"\"", "v=\"\"" },
	BIN("counted binary", ETL_VAL_BINARY, ETL_IN_COUNTEDBINARY, 0, "\xAB", 1, "AB"),
	BIN("ipv4", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_IPV4, "\xFF\xFF\xFF\xFF", 4, "255.255.255.255"),
	U("ipv4 uint32", ETL_IN_UINT32, ETL_OUT_IPV4, 0x0100007Fu, "127.0.0.1", STR),
	BIN("ipv6", ETL_VAL_BINARY, ETL_IN_BINARY, ETL_OUT_IPV6,
	    "\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01", 16, "2001:db8::1"),
	U("port max", ETL_IN_UINT16, ETL_OUT_PORT, 0xFFFF, "65535", NUM),
	U("port 80", ETL_IN_UINT16, ETL_OUT_PORT, 0x5000, "80", NUM),

	/* strings, counted and terminated: as decoded; each format escapes */
	BIN("string", ETL_VAL_STRING, ETL_IN_UNICODESTRING, 0, "plain", 5, "plain"),
	BIN("counted string", ETL_VAL_STRING, ETL_IN_COUNTEDSTRING, 0, "x", 1, "x"),
	BIN("ansi string", ETL_VAL_STRING, ETL_IN_ANSISTRING, 0, "\xC3\xA9t\xC3\xA9", 5, "\xC3\xA9t\xC3\xA9"),
	BIN("counted ansi string", ETL_VAL_STRING, ETL_IN_COUNTEDANSISTRING, 0, "y", 1, "y"),
	{ "string empty", ETL_VAL_STRING, ETL_IN_UNICODESTRING, 0, 0, 0, "", 0, NULL, STR, "", "\"\"", "\"v=\"\"\"\"\"",
	  "v=\"\"" },
	{ "string specials", ETL_VAL_STRING, ETL_IN_UNICODESTRING, 0, 0, 0, "a\"b<&>;= \\", 10, NULL, STR,
	  "a&quot;b&lt;&amp;&gt;;= \\", "\"a\\\"b<&>;= \\\\\"", "\"v=\"\"a\\\"\"b<&>;= \\\\\"\"\"",
	  "v=\"a\\\"b<&>;= \\\\\"" },
	{ "string controls", ETL_VAL_STRING, ETL_IN_UNICODESTRING, 0, 0, 0, "\t\n\x01\x7F", 4, NULL, STR,
	  "\t\n\xE2\x90\x81\x7F", "\"\\t\\n\\u0001\x7F\"", "\"v=\"\"\\t\\n\\x01\\x7f\"\"\"", "v=\"\\t\\n\\x01\\x7f\"" },
	{ "string invalid UTF-8", ETL_VAL_STRING, ETL_IN_ANSISTRING, 0, 0, 0, "a\xFF", 2, NULL, STR,
	  "a\xEF\xBF\xBD", "\"a\\ufffd\"", "\"v=\"\"a\\xff\"\"\"", "v=\"a\\xff\"" },
};

#define N_ROWS (sizeof rows / sizeof rows[0])

struct mem {
	struct tu_bytes b;
};

static int mem_write(void *ctx, const void *p, size_t n)
{
	tu_putbytes(&((struct mem *)ctx)->b, p, n);
	return 0;
}

/* The whole output of format fmt for one event holding only r's value as
 * property "v"; NUL-terminated, free it. */
static char *render(const struct row *r, const char *fmt)
{
	static const struct etl_guid g = { 0x01234567, 0x89ab, 0xcdef, { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } };
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.ptr_size = 8;
	struct etl_prop p;
	memset(&p, 0, sizeof p);
	p.name = "v";
	p.kind = r->kind;
	p.in_type = r->in;
	p.out_type = r->out;
	p.parent = ETL_PROP_NO_PARENT;
	switch (r->kind) {
	case ETL_VAL_FLOAT: p.v.f = r->f; break;
	case ETL_VAL_GUID: p.v.guid = g; break;
	case ETL_VAL_STRING: p.v.str.s = r->s; p.v.str.len = r->n; break;
	case ETL_VAL_BINARY: case ETL_VAL_SID: p.v.bin.p = (const uint8_t *)r->s; p.v.bin.len = r->n; break;
	default: p.v.u = r->u; break;
	}
	struct etl_decoded d;
	memset(&d, 0, sizeof d);
	d.source = ETL_DECODE_MANIFEST;
	d.props = &p;
	d.n_props = 1;
	d.status = ETL_OK;
	struct mem m;
	tu_bytes_init(&m.b);
	etl_output *o = etl_output_new(fmt, mem_write, &m);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(etl_output_begin(o, NULL), ETL_OK);
	ck_assert_int_eq(etl_output_event(o, &ev, &d), ETL_OK);
	ck_assert_int_eq(etl_output_end(o), ETL_OK);
	etl_output_free(o);
	tu_put8(&m.b, 0);
	return (char *)m.b.p;
}

/* The value's text cut out of a format's output. */
static char *cut(const char *out, const char *fmt, const char *what)
{
	const char *a, *z;
	if (strcmp(fmt, "xml") == 0) {
		if (strstr(out, "<Data Name=\"v\"/>"))
			return strdup("");
		a = strstr(out, "<Data Name=\"v\">");
		ck_assert_msg(a != NULL, "%s: xml: no Data: %s", what, out);
		a += strlen("<Data Name=\"v\">");
		z = strstr(a, "</Data>");
	} else if (strcmp(fmt, "json") == 0 || strcmp(fmt, "jsonl") == 0) {
		a = strstr(out, "\"EventData\":{\"v\":");
		ck_assert_msg(a != NULL, "%s: %s: no EventData: %s", what, fmt, out);
		a += strlen("\"EventData\":{\"v\":");
		z = strstr(a, "}}\n");
	} else if (strcmp(fmt, "csv") == 0) {
		a = strstr(out, "EVENT_HEADER64,0,");
		ck_assert_msg(a != NULL, "%s: csv: no row: %s", what, out);
		a += strlen("EVENT_HEADER64,0,");
		z = strstr(a, "\r\n");                /* RFC 4180 line ends */
	} else {
		a = strstr(out, "size=0  ");
		ck_assert_msg(a != NULL, "%s: text: no line: %s", what, out);
		a += strlen("size=0  ");
		z = strrchr(a, '\n');
	}
	ck_assert_msg(z != NULL && z >= a, "%s: %s: value not closed: %s", what, fmt, out);
	return strndup(a, (size_t)(z - a));
}

/* What row r's value must read as in fmt. */
static char *expected(const struct row *r, const char *fmt)
{
	char buf[512];
	int xml = strcmp(fmt, "xml") == 0, json = strncmp(fmt, "json", 4) == 0, csv = strcmp(fmt, "csv") == 0;
	const char *over = xml ? r->xml : json ? r->js : csv ? r->csv : r->txt;
	if (over)
		return strdup(over);
	if (xml)
		snprintf(buf, sizeof buf, "%s", r->t);
	else if (json)
		snprintf(buf, sizeof buf, r->json == NUM ? "%s" : "\"%s\"", r->t);
	else
		snprintf(buf, sizeof buf, "v=%s", r->t);
	return strdup(buf);
}

START_TEST(test_value)
{
	static const char *const formats[] = { "xml", "json", "jsonl", "csv", "text" };
	const struct row *r = &rows[_i];
	for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		char *out = render(r, formats[f]);
		char *got = cut(out, formats[f], r->what);
		char *want = expected(r, formats[f]);
		ck_assert_msg(strcmp(got, want) == 0, "%s in %s: got [%s], want [%s]", r->what, formats[f], got, want);
		free(want);
		free(got);
		free(out);
	}
}
END_TEST

/* A 64-bit signed integer is an INT64 of every decoder that reads one:
 * -204 from a manifest (win:Int64), a TMF (ItemLongLong) and a MOF class
 * (sint64), as ETL_VAL_INT, written -204; and a manifest SYSTEMTIME is a
 * date, as TraceLogging's is. */
START_TEST(test_decoders_agree)
{
	char dir[] = "/tmp/check_values.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char man[64], tmf[64], mof[64];
	snprintf(man, sizeof man, "%s/v.man", dir);
	snprintf(tmf, sizeof tmf, "%s/v.tmf", dir);
	snprintf(mof, sizeof mof, "%s/v.mof", dir);
	static const char man_text[] =
		"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">"
		"<instrumentation><events><provider name=\"V\" guid=\"{11111111-0000-0000-0000-000000000001}\">"
		"<templates><template tid=\"t\"><data name=\"v\" inType=\"win:Int64\"/>"
		"<data name=\"st\" inType=\"win:SYSTEMTIME\"/></template></templates>"
		"<events><event value=\"1\" version=\"0\" template=\"t\"/></events>"
		"</provider></events></instrumentation></instrumentationManifest>";
	static const char tmf_text[] =
		"11111111-0000-0000-0000-000000000002 comp // SRC=v.c\n"
		"#typev v_c1 10 \"%0%10!I64d!\" // LEVEL=1\n{\nv, ItemLongLong -- 10\n}\n";
	static const char mof_text[] =
		"[Guid(\"{11111111-0000-0000-0000-000000000003}\"), EventType(1)]\n"
		"class V : EventTrace { [WmiDataId(1)] sint64 v; };\n";
	tu_write_file(man, man_text, sizeof man_text - 1);
	tu_write_file(tmf, tmf_text, sizeof tmf_text - 1);
	tu_write_file(mof, mof_text, sizeof mof_text - 1);
	etl_decoder *d = etl_decoder_new();
	ck_assert_msg(etl_decoder_add_manifest(d, man) == ETL_OK, "%s", etl_decoder_errmsg(d));
	ck_assert_msg(etl_decoder_add_tmf(d, tmf) == ETL_OK, "%s", etl_decoder_errmsg(d));
	ck_assert_msg(etl_decoder_add_mof(d, mof) == ETL_OK, "%s", etl_decoder_errmsg(d));
	unlink(man);
	unlink(tmf);
	unlink(mof);
	rmdir(dir);

	uint8_t pay[8 + 16];
	int64_t v = -204;
	memcpy(pay, &v, 8);
	static const uint8_t st[16] = { 0xE4, 0x07, 2, 0, 1, 0, 17, 0, 12, 0, 48, 0, 30, 0, 0x7B, 0 };
	memcpy(pay + 8, st, 16);            /* 2020-02-17 12:48:30.123 */
	static const struct { int kind; const char *guid; uint16_t id; uint8_t opcode; int source; } kinds[] = {
		{ ETL_HDR_EVENT_HEADER64, "11111111-0000-0000-0000-000000000001", 1, 0, ETL_DECODE_MANIFEST },
		{ ETL_HDR_MESSAGE, "11111111-0000-0000-0000-000000000002", 10, 0, ETL_DECODE_WPP },
		{ ETL_HDR_FULL_HEADER64, "11111111-0000-0000-0000-000000000003", 0, 1, ETL_DECODE_MOF },
	};
	for (size_t k = 0; k < 3; k++) {
		struct etl_event ev;
		memset(&ev, 0, sizeof ev);
		ev.kind = kinds[k].kind;
		ev.ptr_size = 8;
		ev.present = ETL_EVF_PROVIDER;
		ev.provider = tu_guid(kinds[k].guid);
		ev.id = kinds[k].id;
		ev.opcode = kinds[k].opcode;
		ev.payload = pay;
		ev.payload_size = k == 0 ? sizeof pay : 8;
		const struct etl_decoded *r = NULL;
		int rc = etl_decoder_decode(d, &ev, &r);
		ck_assert_msg(rc == ETL_OK, "%zu: %s", k, r->error);
		ck_assert_int_eq(r->source, kinds[k].source);
		const struct etl_prop *p = &r->props[0];
		ck_assert_str_eq(p->name, "v");
		ck_assert_int_eq(p->kind, ETL_VAL_INT);
		ck_assert_uint_eq(p->in_type, ETL_IN_INT64);
		ck_assert_int_eq(p->v.i, -204);
		if (k == 0) {
			ck_assert_int_eq(r->props[1].kind, ETL_VAL_FILETIME);
			ck_assert_uint_eq(r->props[1].in_type, ETL_IN_SYSTEMTIME);
			ck_assert_int_eq(r->props[1].v.i, 132264173101230000LL);
		}
	}
	etl_decoder_free(d);
}
END_TEST

/* The "int64_type is unsigned" report on the corpus: the event's own
 * metadata declares the field UINT64 (TraceLogging in-type 10, where
 * int16_type and int32_type are INT16 and INT32), so -204 as written by
 * the program reads as 18446744073709551412, as TDH shows it; decoders
 * that give -204 map UInt64 to a signed type. libetl follows the
 * metadata; every field the metadata declares signed comes out signed. */
START_TEST(test_primitive_types_metadata)
{
	TU_NEED_CORPUS();
	char *path = tu_corpus_path("eventsource-primitive-types.etl");
	etl_reader *rd = etl_reader_new();
	etl_decoder *d = etl_decoder_new();
	ck_assert_int_eq(etl_reader_open_file(rd, path), ETL_OK);
	const struct etl_event *ev;
	int seen = 0;
	while (!seen && etl_reader_next(rd, &ev) == ETL_OK) {
		const struct etl_decoded *r;
		if (etl_decoder_decode(d, ev, &r) != ETL_OK || r->source != ETL_DECODE_TRACELOGGING)
			continue;
		ck_assert_str_eq(r->props[0].name, "string_type");
		ck_assert(r->props[0].v.str.len == 7 && memcmp(r->props[0].v.str.s, "Mercury", 7) == 0);
		for (uint32_t i = 0; i < r->n_props; i++) {
			const struct etl_prop *p = &r->props[i];
			if (strcmp(p->name, "int16_type") == 0) {
				ck_assert_uint_eq(p->in_type, ETL_IN_INT16);
				ck_assert_int_eq(p->v.i, -51);
			} else if (strcmp(p->name, "int64_type") == 0) {
				ck_assert_uint_eq(p->in_type, ETL_IN_UINT64);   /* as declared */
				ck_assert_int_eq(p->kind, ETL_VAL_UINT);
				ck_assert_uint_eq(p->v.u, (uint64_t)-204);
				seen = 1;
			}
		}
	}
	ck_assert(seen);
	etl_decoder_free(d);
	etl_reader_free(rd);
	free(path);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("values");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_value, 0, (int)N_ROWS);
	tcase_add_test(tc, test_decoders_agree);
	tcase_add_test(tc, test_primitive_types_metadata);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

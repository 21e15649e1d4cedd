/*
 * check_sem_reg.c - the .reg reader of the SEM configuration
 * (lib/sem/reg_text.c, lib/sem/reg_parse.c) and the registry tree it fills
 * (lib/sem/regtree.c): every value form in both dialects, continuation
 * lines, deletions, case-insensitive names, which keys are kept, every
 * malformed construct with its line and column, and the fatal cases
 * (header, encoding, size) with theirs.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/sem/sem_internal.h"
#include "sem_expect.h"
#include "sem_hive.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof *(a))
#define CFG SX_C "\\Config"

/* ---- helpers --------------------------------------------------------------------- */

struct parsed {
	struct etl__regtree *t;
	struct etl__sem_diags d;
	struct etl_sem_error err;
	int rc;
};

static void parse_bytes(struct parsed *p, const void *data, size_t n)
{
	memset(p, 0, sizeof *p);
	p->t = etl__regtree_new();
	ck_assert(p->t != NULL);
	p->rc = etl__reg_parse(data, n, "test.reg", p->t, &p->d, &p->err);
}

static void parse_text(struct parsed *p, const char *text)
{
	parse_bytes(p, text, strlen(text));
	ck_assert_msg(p->rc == 0, "%s", p->err.message);
}

static void parsed_free(struct parsed *p)
{
	etl__regtree_free(p->t);
	etl__sem_diags_free(&p->d);
}

/* UTF-8 text as a 5.00 file: UTF-16LE with a byte-order mark. */
static void utf16(struct tu_bytes *b, const char *s)
{
	tu_bytes_init(b);
	tu_put8(b, 0xFF);
	tu_put8(b, 0xFE);
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp = *p;
		size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
		if (n > 1)
			cp &= 0x3Fu >> (n - 1);
		for (size_t k = 1; k < n; k++)
			cp = (cp << 6) | (p[k] & 0x3Fu);
		p += n;
		if (cp >= 0x10000) {
			tu_put16(b, (uint16_t)(0xD800 + ((cp - 0x10000) >> 10)));
			tu_put16(b, (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
		} else {
			tu_put16(b, (uint16_t)cp);
		}
	}
}

/* The key at a backslash-separated path, or NULL. */
static const struct etl__regkey *key_at(const struct etl__regtree *t, const char *path)
{
	const struct etl__regkey *k = t->root;
	while (k && *path) {
		const char *e = strchr(path, '\\');
		size_t n = e ? (size_t)(e - path) : strlen(path);
		k = etl__regkey_child(t, k, path, n);
		path += n + (e != NULL);
	}
	return k;
}

/* Value name of the key at path must hold type and exactly n bytes. */
static void check_value(const struct etl__regtree *t, const char *path, const char *name, uint32_t type,
                        const void *bytes, size_t n)
{
	const struct etl__regkey *k = key_at(t, path);
	ck_assert_msg(k != NULL, "no key %s", path);
	const struct etl__regval *v = etl__regkey_value(t, k, name);
	ck_assert_msg(v != NULL, "no value %s", name);
	ck_assert_msg(v->type == type, "value %s: type %u, expected %u", name, v->type, type);
	ck_assert_msg(v->len == n, "value %s: %zu bytes, expected %zu", name, v->len, n);
	ck_assert_msg(memcmp(v->data, bytes, n) == 0, "value %s: other bytes", name);
}

/* The diagnostics are exactly (rule, key, message prefix) in order. */
struct rdiag {
	const char *rule, *key, *prefix;
};

static void check_diags(const struct etl__sem_diags *d, const struct rdiag *want, size_t n)
{
	for (size_t i = 0; i < d->n && i < n; i++) {
		ck_assert_msg(strcmp(d->v[i].rule, want[i].rule) == 0, "diag %zu: %s, expected %s (%s)", i, d->v[i].rule,
		              want[i].rule, d->v[i].message);
		ck_assert_msg(strcmp(d->v[i].key, want[i].key) == 0, "diag %zu: key %s, expected %s", i, d->v[i].key,
		              want[i].key);
		ck_assert_msg(strncmp(d->v[i].message, want[i].prefix, strlen(want[i].prefix)) == 0,
		              "diag %zu: '%s' does not start with '%s'", i, d->v[i].message, want[i].prefix);
	}
	ck_assert_msg(d->n == n, "%zu diagnostics, expected %zu (%s)", d->n, n, d->n > n ? d->v[n].message : "-");
}

static void expect_fatal(const void *data, size_t n, int code, uint32_t line, uint32_t column, const char *words)
{
	struct parsed p;
	parse_bytes(&p, data, n);
	ck_assert_msg(p.rc != 0, "parsed");
	ck_assert_msg(p.err.code == code, "code %d, expected %d: %s", p.err.code, code, p.err.message);
	ck_assert_msg(p.err.line == line && p.err.column == column, "line %u column %u, expected %u %u: %s",
	              p.err.line, p.err.column, line, column, p.err.message);
	ck_assert_msg(strstr(p.err.message, words), "'%s' not in: %s", words, p.err.message);
	ck_assert_msg(strncmp(p.err.message, "test.reg:", 9) == 0, "the file is not named: %s", p.err.message);
	parsed_free(&p);
}

/* ---- values ------------------------------------------------------------------------- */

#define VALUES_TEXT \
	"[" CFG "]\r\n" \
	"\"S\"=\"a\\\\b\\\"c\"\r\n" \
	"\"D\"=dword:0000000a\r\n" \
	"\"D1\"=DWORD:f\r\n" \
	"\"B\"=hex:01,02,ff\r\n" \
	"\"Q\"=hex(b):01,00,00,00,00,00,00,80\r\n" \
	"\"X\"=hex(123):aa\r\n" \
	"\"Z\"=hex(0):\r\n" \
	"@=\"default\"\r\n"

START_TEST(test_values_v5)
{
	struct tu_bytes b;
	utf16(&b, "Windows Registry Editor Version 5.00\r\n\r\n" VALUES_TEXT
	          "\"E\"=hex(2):25,00,41,00,00,00\r\n\"M\"=hex(7):41,00,00,00,00,00\r\n\"U\"=\"\xC3\xA9\xF0\x9F\x98\x80\"\r\n");
	struct parsed p;
	parse_bytes(&p, b.p, b.len);
	ck_assert_msg(p.rc == 0, "%s", p.err.message);
	check_diags(&p.d, NULL, 0);
	static const uint8_t s[] = { 'a', 0, '\\', 0, 'b', 0, '"', 0, 'c', 0, 0, 0 };
	check_value(p.t, CFG, "S", ETL_REG_SZ, s, sizeof s);
	check_value(p.t, CFG, "D", ETL_REG_DWORD, "\x0a\0\0\0", 4);
	check_value(p.t, CFG, "D1", ETL_REG_DWORD, "\x0f\0\0\0", 4);
	check_value(p.t, CFG, "B", ETL_REG_BINARY, "\x01\x02\xff", 3);
	check_value(p.t, CFG, "Q", ETL_REG_QWORD, "\x01\0\0\0\0\0\0\x80", 8);
	check_value(p.t, CFG, "X", 0x123, "\xaa", 1);
	check_value(p.t, CFG, "Z", ETL_REG_NONE, "", 0);
	check_value(p.t, CFG, "", ETL_REG_SZ, "d\0e\0f\0a\0u\0l\0t\0\0", 16);
	check_value(p.t, CFG, "E", ETL_REG_EXPAND_SZ, "%\0A\0\0", 6);           /* 5.00: bytes as given */
	check_value(p.t, CFG, "M", ETL_REG_MULTI_SZ, "A\0\0\0\0", 6);
	static const uint8_t u[] = { 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE, 0, 0 };   /* U+00E9 U+1F600 */
	check_value(p.t, CFG, "U", ETL_REG_SZ, u, sizeof u);
	parsed_free(&p);
	tu_bytes_free(&b);
}
END_TEST

START_TEST(test_values_v4)
{
	struct parsed p;
	parse_text(&p, "REGEDIT4\r\n\r\n" VALUES_TEXT "\"E\"=hex(2):25,41,00\r\n\"M\"=hex(7):41,00,00\r\n"
	               "\"L1\"=\"\xE9\"\r\n\"U8\"=\"\xC3\xA9\"\r\n");
	check_diags(&p.d, NULL, 0);
	check_value(p.t, CFG, "Q", ETL_REG_QWORD, "\x01\0\0\0\0\0\0\x80", 8);
	check_value(p.t, CFG, "E", ETL_REG_EXPAND_SZ, "%\0A\0\0", 6);           /* widened to UTF-16 */
	check_value(p.t, CFG, "M", ETL_REG_MULTI_SZ, "A\0\0\0\0", 6);
	check_value(p.t, CFG, "L1", ETL_REG_SZ, "\xE9\0\0", 4);                  /* Latin-1 byte */
	check_value(p.t, CFG, "U8", ETL_REG_SZ, "\xE9\0\0", 4);                  /* UTF-8 sequence */
	parsed_free(&p);
}
END_TEST

START_TEST(test_continuation_lines)
{
	struct parsed p;
	parse_text(&p, "REGEDIT4\n\n[" CFG "]\n"
	               "\"Q\"=hex(b):01,02,03,04,\\\n  05,06,07,08\n"
	               "\"B\"=hex:01,\\\n\t02,\\\n   03\n"
	               "\"C\"=hex:\\\n  0a\\\n  0b\n"
	               "\"Path\"=\"C:\\\\\"\n"                    /* a string ending in \ is not continued */
	               "\"D\"=dword:00000001\n");
	check_diags(&p.d, NULL, 0);
	check_value(p.t, CFG, "Q", ETL_REG_QWORD, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	check_value(p.t, CFG, "B", ETL_REG_BINARY, "\x01\x02\x03", 3);
	check_value(p.t, CFG, "C", ETL_REG_BINARY, "\x0a\x0b", 2);
	check_value(p.t, CFG, "Path", ETL_REG_SZ, "C\0:\0\\\0\0", 8);
	check_value(p.t, CFG, "D", ETL_REG_DWORD, "\x01\0\0\0", 4);
	parsed_free(&p);
}
END_TEST

START_TEST(test_continuation_errors)
{
	/* A bad byte in a continued list: one diagnostic, the lines it
	 * continues onto are its own (not read as entries), the next value is
	 * read. A list continued past the end of the file. */
	struct parsed p;
	parse_text(&p, "REGEDIT4\n\n[" CFG "]\n"
	               "\"B\"=hex:zz,01,\\\n  02,\\\n  03\n"
	               "\"D\"=dword:2\n"
	               "\"E\"=hex:01,\\\n");
	static const struct rdiag d[] = {
		{ "reg_syntax", CFG, "line 4, column 9: bad hex byte" },
		{ "reg_syntax", CFG, "line 8, column 12: '\\' continues the value past the end of the file" },
	};
	check_diags(&p.d, d, N(d));
	check_value(p.t, CFG, "D", ETL_REG_DWORD, "\x02\0\0\0", 4);
	ck_assert(etl__regkey_value(p.t, key_at(p.t, CFG), "B") == NULL);
	ck_assert(etl__regkey_value(p.t, key_at(p.t, CFG), "E") == NULL);
	parsed_free(&p);
}
END_TEST

/* ---- keys ------------------------------------------------------------------------------ */

START_TEST(test_deletions)
{
	struct parsed p;
	parse_text(&p, "REGEDIT4\n\n"
	               "[" CFG "]\n\"A\"=dword:1\n\"B\"=dword:2\n\"A\"=-\n"
	               "[" SX_C "\\Scenarios\\X\\Y]\n\"V\"=dword:3\n"
	               "[-" SX_C "\\Scenarios]\n\"W\"=dword:4\n"
	               "[-" SX_C "\\Nothing\\Here]\n"
	               "[" SX_C "\\Scenarios\\X]\n");
	static const struct rdiag d[] = { { "value_without_key", SX_C "\\Scenarios", "line 10: value \"W\" after a key deletion" } };
	check_diags(&p.d, d, N(d));
	const struct etl__regkey *cfg = key_at(p.t, CFG);
	ck_assert(etl__regkey_value(p.t, cfg, "A") == NULL);            /* =- */
	check_value(p.t, CFG, "B", ETL_REG_DWORD, "\x02\0\0\0", 4);
	const struct etl__regkey *x = key_at(p.t, SX_C "\\Scenarios\\X");
	ck_assert(x != NULL && x->nkids == 0);                           /* [-key] took Y */
	ck_assert(key_at(p.t, SX_C "\\Scenarios\\X\\Y") == NULL);
	ck_assert_uint_eq(p.t->nvals, 1);
	parsed_free(&p);
}
END_TEST

START_TEST(test_case_insensitive_names)
{
	struct parsed p;
	parse_text(&p, "REGEDIT4\n\n"
	               "[hkey_local_machine\\system\\currentcontrolset\\control\\wdi\\config]\n\"semenabled\"=dword:1\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WDI\\Config]\n\"SEMENABLED\"=dword:0\n");
	check_diags(&p.d, NULL, 0);
	const struct etl__regkey *k = key_at(p.t, CFG);
	ck_assert(k != NULL && k->nvals == 1);
	ck_assert_str_eq(k->name, "config");                             /* the first spelling */
	char *path = etl__regkey_path(k);
	ck_assert_str_eq(path, "hkey_local_machine\\system\\currentcontrolset\\control\\wdi\\config");
	free(path);
	check_value(p.t, CFG, "SemEnabled", ETL_REG_DWORD, "\0\0\0\0", 4);
	parsed_free(&p);
	etl_sem_config *cfg = sx_load("sem-disabled.reg");
	ck_assert(!etl_sem_config_enabled(cfg));
	etl_sem_config_free(cfg);
}
END_TEST

START_TEST(test_kept_keys)
{
	/* Kept: the WDI key of any control set, Select, the WDI policy key.
	 * Quietly skipped: their ancestors and the rest of a control set.
	 * Diagnosed: everything else. */
	struct parsed p;
	parse_text(&p, "REGEDIT4\n\n"
	               "[HKEY_LOCAL_MACHINE]\n\"a\"=dword:1\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM]\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Foo]\n\"b\"=dword:1\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\Control\\WDI\\Config]\n\"c\"=dword:1\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet1\\Control\\WDI]\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM\\Select]\n\"Current\"=dword:1\n"
	               "[HKEY_LOCAL_MACHINE\\SYSTEM\\MountedDevices]\n"
	               "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Microsoft]\n"
	               "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Microsoft\\Windows\\WDI\\{x}]\n"
	               "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows]\n"
	               "[HKLM\\SYSTEM\\CurrentControlSet\\Control\\WDI]\n"
	               "[HKEY_CURRENT_USER\\Software]\n");
	static const struct rdiag d[] = {
		{ "key_outside_roots", "HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet1\\Control\\WDI", "line 10: key outside" },
		{ "key_outside_roots", "HKEY_LOCAL_MACHINE\\SYSTEM\\MountedDevices", "line 13: key outside" },
		{ "key_outside_roots", "HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows", "line 16: key outside" },
		{ "key_outside_roots", "HKLM\\SYSTEM\\CurrentControlSet\\Control\\WDI", "line 17: key outside" },
		{ "key_outside_roots", "HKEY_CURRENT_USER\\Software", "line 18: key outside" },
	};
	check_diags(&p.d, d, N(d));
	ck_assert(key_at(p.t, "HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\Control\\WDI\\Config") != NULL);
	ck_assert(key_at(p.t, "HKEY_LOCAL_MACHINE\\SYSTEM\\Select") != NULL);
	ck_assert(key_at(p.t, SX_POL "\\{x}") != NULL);
	ck_assert(key_at(p.t, "HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet") == NULL);
	ck_assert_uint_eq(p.t->nvals, 2);                  /* c and Current */
	parsed_free(&p);
}
END_TEST

START_TEST(test_key_name_limits)
{
	char text[1024];
	char longname[257];
	memset(longname, 'k', 256);
	longname[256] = 0;
	snprintf(text, sizeof text, "REGEDIT4\n\n[" SX_C "\\%s]\n\"v\"=dword:1\n[" SX_C "\\%.255s]\n", longname, longname);
	struct parsed p;
	parse_text(&p, text);
	ck_assert_uint_eq(p.d.n, 1);
	ck_assert_str_eq(p.d.v[0].rule, "reg_syntax");
	ck_assert_msg(strstr(p.d.v[0].message, "line 3, column 58: key name longer than 255 characters"), "%s",
	              p.d.v[0].message);
	ck_assert_uint_eq(p.t->nvals, 0);                  /* its value went with it */
	ck_assert_uint_eq(key_at(p.t, SX_C)->nkids, 1);    /* 255 characters is fine */
	parsed_free(&p);
}
END_TEST

START_TEST(test_value_before_any_key)
{
	struct parsed p;
	parse_text(&p, "REGEDIT4\n\n\"Early\"=dword:1\n; comment\n   ; indented comment\n\t\n[" CFG "]\n");
	static const struct rdiag d[] = { { "value_without_key", "", "line 3: value \"Early\" before the first key" } };
	check_diags(&p.d, d, N(d));
	parsed_free(&p);
}
END_TEST

START_TEST(test_malformed_lines)
{
	size_t n;
	uint8_t *data = tu_load_file("testdata/wdi/malformed-lines.reg", &n);
	struct parsed p;
	parse_bytes(&p, data, n);
	ck_assert_msg(p.rc == 0, "%s", p.err.message);
	static const struct rdiag d[] = {
		{ "reg_syntax", CFG, "line 6, column 5: string without its closing '\"'" },
		{ "reg_syntax", CFG, "line 7, column 11: dword: value of more than 8 hex digits" },
		{ "reg_syntax", CFG, "line 8, column 11: dword: needs 1 to 8 hex digits" },
		{ "reg_syntax", CFG, "line 9, column 12: bad hex byte" },
		{ "reg_syntax", CFG, "line 10, column 11: hex byte of more than two digits" },
		{ "reg_syntax", CFG, "line 11, column 12: expected ',' between hex bytes" },
		{ "reg_syntax", CFG, "line 12, column 5: hex(N): needs a type" },
		{ "reg_syntax", CFG, "line 13, column 5: unknown value type" },
		{ "reg_syntax", CFG, "line 14, column 5: expected '=' after the value name" },
		{ "reg_syntax", CFG, "line 15, column 7: unknown escape" },
		{ "reg_syntax", CFG, "line 16, column 8: text after the closing '\"' of a string" },
		{ "reg_syntax", CFG, "line 17, column 6: text after '=-'" },
		{ "reg_syntax", CFG, "line 18, column 1: not a key, a value or a comment" },
		{ "reg_syntax", "HKEY_LOCAL_MACHINE\\SYSTEM", "line 20, column 27: key line without a closing ']'" },
		{ "reg_syntax", SX_C, "line 22, column 58: text after the closing ']'" },
		{ "reg_syntax", "HKEY_LOCAL_MACHINE\\\\SYSTEM", "line 23, column 21: empty key name" },
		{ "key_outside_roots", "HKEY_CURRENT_USER\\Software\\X", "line 24: key outside" },
	};
	check_diags(&p.d, d, N(d));
	check_value(p.t, CFG, "SEMTimeoutValue", ETL_REG_DWORD, "\x07\0\0\0", 4);
	check_value(p.t, CFG, "SEMEnabled", ETL_REG_DWORD, "\x01\0\0\0", 4);
	ck_assert_uint_eq(p.t->nvals, 2);                  /* M and N went with their keys */
	parsed_free(&p);
	free(data);
}
END_TEST

/* ---- fatal trouble ---------------------------------------------------------------------------- */

START_TEST(test_bad_header)
{
	expect_fatal("REGEDIT5\r\n", 10, ETL_E_BAD_MAGIC, 1, 1, "not a .reg file");
	expect_fatal("", 0, ETL_E_BAD_MAGIC, 1, 1, "the first line is \"\"");
	expect_fatal("\n" "REGEDIT4\n", 10, ETL_E_BAD_MAGIC, 1, 1, "not a .reg file");
	expect_fatal("Windows Registry Editor Version 4.00\n", 37, ETL_E_BAD_MAGIC, 1, 1, "Version 4.00");
	struct tu_bytes b;
	utf16(&b, "REGEDIT 4\r\n");
	expect_fatal(b.p, b.len, ETL_E_BAD_MAGIC, 1, 1, "REGEDIT 4");
	tu_bytes_free(&b);
	/* Trailing blanks and a UTF-8 byte-order mark are fine. */
	struct parsed p;
	parse_text(&p, "\xEF\xBB\xBFWindows Registry Editor Version 5.00  \r\n");
	parsed_free(&p);
}
END_TEST

START_TEST(test_bad_encoding)
{
	static const uint8_t be[] = { 0xFE, 0xFF, 0, 'R' };
	expect_fatal(be, sizeof be, ETL_E_BAD_VALUE, 1, 1, "big-endian");
	struct tu_bytes b;
	utf16(&b, "REGEDIT4\r\n\r\n");
	tu_put8(&b, 'x');                                  /* odd size */
	expect_fatal(b.p, b.len, ETL_E_BAD_VALUE, 3, 1, "odd size");
	tu_bytes_free(&b);
	utf16(&b, "REGEDIT4\r\n\r\n; ab");
	tu_put16(&b, 0xD800);                              /* high surrogate, then 'c' */
	tu_put16(&b, 'c');
	expect_fatal(b.p, b.len, ETL_E_BAD_VALUE, 3, 5, "high surrogate 0xD800 without its pair");
	tu_bytes_free(&b);
	utf16(&b, "REGEDIT4\r\n");
	tu_put16(&b, 0xDC01);                              /* lone low surrogate */
	expect_fatal(b.p, b.len, ETL_E_BAD_VALUE, 2, 1, "low surrogate 0xDC01");
	tu_bytes_free(&b);
	utf16(&b, "REGEDIT4\r\n[x");
	tu_put16(&b, 0);                                   /* a NUL character */
	expect_fatal(b.p, b.len, ETL_E_BAD_VALUE, 2, 3, "NUL character");
	tu_bytes_free(&b);
	expect_fatal("REGEDIT4\n[a\0]\n", 14, ETL_E_BAD_VALUE, 2, 3, "NUL byte");
	expect_fatal("W\0i\0n\0", 6, ETL_E_BAD_VALUE, 1, 2, "without a byte-order mark");
}
END_TEST

START_TEST(test_size_cap)
{
	size_t n = (size_t)ETL_SEM_REG_MAX_BYTES + 1;
	uint8_t *big = calloc(1, n);                       /* untouched pages cost nothing */
	ck_assert(big != NULL);
	struct etl_sem_error err;
	ck_assert(etl_sem_config_from_reg_memory(big, n, "big.reg", &err) == NULL);
	ck_assert_int_eq(err.code, ETL_E_LIMIT);
	ck_assert(strstr(err.message, "big.reg") && strstr(err.message, "larger than"));
	free(big);
	char *path = sh_tmp_path("big.reg");
	FILE *f = fopen(path, "wb");
	ck_assert(f != NULL);
	ck_assert_int_eq(ftruncate(fileno(f), (off_t)n), 0);   /* sparse */
	fclose(f);
	ck_assert(etl_sem_config_from_reg_file(path, &err) == NULL);
	ck_assert_int_eq(err.code, ETL_E_LIMIT);
	ck_assert(strstr(err.message, path) != NULL);
	unlink(path);
	free(path);
	ck_assert(etl_sem_config_from_reg_file("testdata/wdi/no-such.reg", &err) == NULL);
	ck_assert_int_eq(err.code, ETL_E_IO);
	ck_assert(strstr(err.message, "testdata/wdi/no-such.reg") != NULL);
	ck_assert(etl_sem_config_from_reg_file(NULL, &err) == NULL);
	ck_assert_int_eq(err.code, ETL_E_MISUSE);
	ck_assert(etl_sem_config_from_reg_memory(NULL, 5, NULL, &err) == NULL);
	ck_assert(etl_sem_config_from_reg_memory(NULL, 5, NULL, NULL) == NULL);
}
END_TEST

START_TEST(test_key_cap)
{
	/* One key more than a tree holds: fatal, with the line. */
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putbytes(&b, "REGEDIT4\n", 9);
	char line[128];
	for (unsigned i = 0; i <= ETL_REG_MAX_KEYS; i++) {
		int len = snprintf(line, sizeof line, "[" SX_C "\\K%u]\n", i);
		tu_putbytes(&b, line, (size_t)len);
	}
	struct parsed p;
	parse_bytes(&p, b.p, b.len);
	ck_assert(p.rc != 0);
	ck_assert_int_eq(p.err.code, ETL_E_LIMIT);
	ck_assert_msg(strstr(p.err.message, "more than 100000 keys"), "%s", p.err.message);
	parsed_free(&p);
	tu_bytes_free(&b);
}
END_TEST

/* ---- both dialects, one configuration -------------------------------------------------------- */

START_TEST(test_regedit4_equals_v5)
{
	/* windows-default.reg, re-encoded as REGEDIT4 8-bit text. */
	size_t n;
	uint8_t *u = tu_load_file("testdata/wdi/windows-default.reg", &n);
	ck_assert(n > 2 && u[0] == 0xFF && u[1] == 0xFE);
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putbytes(&b, "REGEDIT4", 8);
	size_t i = 2;
	while (i + 1 < n && u[i] != '\r')                  /* skip the 5.00 header */
		i += 2;
	for (; i + 1 < n; i += 2) {
		ck_assert(u[i + 1] == 0);                       /* ASCII only */
		tu_put8(&b, u[i]);
	}
	struct etl_sem_error err;
	etl_sem_config *a = etl_sem_config_from_reg_memory(u, n, "v5", &err);
	etl_sem_config *c = etl_sem_config_from_reg_memory(b.p, b.len, "v4", &err);
	ck_assert_msg(a && c, "%s", err.message);
	ck_assert(etl_sem_config_equal(a, c));
	etl_sem_config_free(a);
	etl_sem_config_free(c);
	tu_bytes_free(&b);
	free(u);
}
END_TEST

/* ---- the tree and the names ---------------------------------------------------------------------- */

START_TEST(test_regtree)
{
	struct etl__regtree *t = etl__regtree_new();
	struct etl__regkey *k = etl__regkey_add(t, t->root, "Top", 3);
	char name[16];
	for (unsigned i = 0; i < 5000; i++) {          /* grows the table many times */
		snprintf(name, sizeof name, "k%u", i);
		ck_assert(etl__regkey_add(t, k, name, strlen(name)) != NULL);
		ck_assert_int_eq(etl__regkey_set(t, k, name, strlen(name), ETL_REG_DWORD, &i, 4), 0);
	}
	ck_assert(etl__regkey_child(t, k, "K4999", 5) != NULL);
	ck_assert(etl__regkey_value(t, k, "K17") != NULL);
	ck_assert(etl__regkey_add(t, k, "K17", 3) == etl__regkey_child(t, k, "k17", 3));
	for (unsigned i = 0; i < 5000; i += 2) {       /* half removed, half re-added */
		snprintf(name, sizeof name, "k%u", i);
		etl__regkey_remove(t, etl__regkey_child(t, k, name, strlen(name)));
		etl__regkey_unset(t, k, name, strlen(name));
	}
	ck_assert_uint_eq(k->nkids, 2500);
	ck_assert_uint_eq(t->nvals, 2500);
	ck_assert(etl__regkey_child(t, k, "k0", 2) == NULL);
	struct etl__regkey *again = etl__regkey_add(t, k, "k0", 2);
	ck_assert(again != NULL && again->nkids == 0);
	ck_assert(etl__regkey_child(t, k, "k1", 2) != NULL);

	struct etl__regkey *o = etl__regkey_add(t, t->root, "Order", 5);
	etl__regkey_add(t, o, "_x", 2);
	etl__regkey_add(t, o, "b", 1);
	etl__regkey_add(t, o, "A", 1);
	int oom;
	struct etl__regkey **s = etl__regkey_sorted_kids(o, &oom);
	ck_assert(s && !oom);
	ck_assert_str_eq(s[0]->name, "A");               /* upper-cased: 'A' < 'B' < '_' */
	ck_assert_str_eq(s[1]->name, "b");
	ck_assert_str_eq(s[2]->name, "_x");
	free(s);
	char *path = etl__regkey_path(etl__regkey_child(t, k, "k1", 2));
	ck_assert_str_eq(path, "Top\\k1");
	free(path);
	etl__regtree_free(t);
}
END_TEST

START_TEST(test_event_names)
{
	static const struct {
		const char *name;
		int rc;
		unsigned id;
	} cases[] = {
		{ "{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa};5", ETL_SEM_NAME_OK, 5 },
		{ SX_PA ";  \t 12", ETL_SEM_NAME_OK, 12 },
		{ SX_PA ";12abc", ETL_SEM_NAME_OK, 12 },
		{ SX_PA ";1;2", ETL_SEM_NAME_OK, 1 },
		{ SX_PA ";abc", ETL_SEM_NAME_OK, 0 },
		{ SX_PA ";  ", ETL_SEM_NAME_OK, 0 },
		{ SX_PA ";+5", ETL_SEM_NAME_OK, 0 },          /* a sign is not a digit */
		{ SX_PA ";-1", ETL_SEM_NAME_OK, 0 },
		{ SX_PA ";0065535", ETL_SEM_NAME_OK, 65535 },
		{ SX_PA ";65536", ETL_SEM_NAME_ID_RANGE, 0 },
		{ SX_PA ";99999999999999999999999", ETL_SEM_NAME_ID_RANGE, 0 },
		{ SX_PA ";", ETL_SEM_NAME_NO_ID, 0 },
		{ SX_PA, ETL_SEM_NAME_NO_SEMICOLON, 0 },
		{ "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA;1", ETL_SEM_NAME_BAD_GUID, 0 },
		{ SX_PA " ;1", ETL_SEM_NAME_BAD_GUID, 0 },
		{ " " SX_PA ";1", ETL_SEM_NAME_BAD_GUID, 0 },
		{ "{AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAG};1", ETL_SEM_NAME_BAD_GUID, 0 },
		{ "*", ETL_SEM_NAME_PLACEHOLDER, 0 },
		{ SX_PA ";*", ETL_SEM_NAME_OK, 0 },
		{ SX_PA ";12345678901234567890123456", ETL_SEM_NAME_TOO_LONG, 0 },  /* 65 */
		{ SX_PA ";1234567890123456789012345", ETL_SEM_NAME_ID_RANGE, 0 },   /* 64: read */
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct etl_guid g;
		uint16_t id = 0xFFFF;
		int rc = etl__sem_parse_event_name(cases[i].name, &g, &id);
		ck_assert_msg(rc == cases[i].rc, "%s: %d, expected %d", cases[i].name, rc, cases[i].rc);
		if (rc == ETL_SEM_NAME_OK)
			ck_assert_msg(id == cases[i].id, "%s: id %u", cases[i].name, id);
	}
	ck_assert_uint_eq(etl__sem_utf16_units("a\xC3\xA9\xF0\x9F\x98\x80"), 4);   /* a, é, a surrogate pair */
}
END_TEST

static Suite *sem_reg_suite(void)
{
	Suite *s = suite_create("sem_reg");
	TCase *tc = tcase_create("reg");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_values_v5);
	tcase_add_test(tc, test_values_v4);
	tcase_add_test(tc, test_continuation_lines);
	tcase_add_test(tc, test_continuation_errors);
	tcase_add_test(tc, test_deletions);
	tcase_add_test(tc, test_case_insensitive_names);
	tcase_add_test(tc, test_kept_keys);
	tcase_add_test(tc, test_key_name_limits);
	tcase_add_test(tc, test_value_before_any_key);
	tcase_add_test(tc, test_malformed_lines);
	tcase_add_test(tc, test_bad_header);
	tcase_add_test(tc, test_bad_encoding);
	tcase_add_test(tc, test_size_cap);
	tcase_add_test(tc, test_key_cap);
	tcase_add_test(tc, test_regedit4_equals_v5);
	tcase_add_test(tc, test_regtree);
	tcase_add_test(tc, test_event_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sem_reg_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

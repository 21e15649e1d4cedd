/*
 * sem_hive.c - real registry hive files for the SEM tests (see
 * sem_hive.h). The blank hive is laid out by hand - base block, one bin,
 * root key cell, security cell, free cell - and everything else is added
 * with hivex's own write API (hivex_node_add_child, hivex_node_set_values,
 * hivex_commit), so the files the tests read are hives as hivex writes
 * them, not as this project imagines them.
 */
#define ETL_BUILDING_LIB 1
#include <check.h>
#include <hivex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/sem/sem_internal.h"
#include "sem_hive.h"
#include "testutil.h"

char *sh_tmp_path(const char *name)
{
	static unsigned seq;
	const char *dir = getenv("TMPDIR");
	char buf[512];
	snprintf(buf, sizeof buf, "%s/etl-sem-%ld-%u-%s", dir && *dir ? dir : "/tmp", (long)getpid(), seq++, name);
	unlink(buf);
	char *p = strdup(buf);
	ck_assert(p != NULL);
	return p;
}

/* Cell offsets relative to the first bin (as the hive stores them). */
#define ROOT_CELL 0x20u
#define ROOT_SIZE 0x58u     /* 4 + 0x4C + "ROOT", rounded to 8 */
#define SK_CELL   (ROOT_CELL + ROOT_SIZE)
#define SK_SIZE   0x30u     /* 4 + 0x14 + a 20-byte descriptor, rounded */

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void sh_blank_hive(const char *path)
{
	uint8_t h[0x2000];
	memset(h, 0, sizeof h);
	uint8_t *b = h;                        /* base block */
	memcpy(b, "regf", 4);
	b[0x04] = 1;                           /* sequence numbers */
	b[0x08] = 1;
	b[0x14] = 1;                           /* version 1.3 */
	b[0x18] = 3;
	b[0x20] = 1;                           /* format: direct memory load */
	b[0x24] = ROOT_CELL;
	b[0x29] = 0x10;                        /* length of the bins 0x1000 */
	b[0x2C] = 1;                           /* clustering factor */
	uint32_t sum = 0;
	for (size_t off = 0; off < 0x1FC; off += 4)
		sum ^= tu_le32(b + off);
	put32(b + 0x1FC, sum);

	uint8_t *bin = h + 0x1000;
	memcpy(bin, "hbin", 4);
	bin[0x09] = 0x10;                      /* size 0x1000, offset 0 */

	uint8_t *nk = bin + ROOT_CELL;
	put32(nk, (uint32_t)-(int32_t)ROOT_SIZE);      /* allocated: negative */
	memcpy(nk + 4, "nk", 2);
	nk[4 + 0x02] = 0x2C;                   /* hive entry, no delete, ASCII name */
	memset(nk + 4 + 0x1C, 0xFF, 8);        /* no subkey lists */
	memset(nk + 4 + 0x28, 0xFF, 4);        /* no value list */
	put32(nk + 4 + 0x2C, SK_CELL);
	memset(nk + 4 + 0x30, 0xFF, 4);        /* no class name */
	nk[4 + 0x48] = 4;                      /* name length */
	memcpy(nk + 4 + 0x4C, "ROOT", 4);

	uint8_t *s = bin + SK_CELL;
	put32(s, (uint32_t)-(int32_t)SK_SIZE);
	memcpy(s + 4, "sk", 2);
	put32(s + 8, SK_CELL);                 /* the only one: links to itself */
	put32(s + 12, SK_CELL);
	s[16] = 1;                             /* reference count */
	s[20] = 20;                            /* descriptor length */
	static const uint8_t sd[20] = { 1, 0, 0x04, 0x80 };   /* self-relative, NULL DACL */
	memcpy(s + 24, sd, sizeof sd);

	put32(bin + SK_CELL + SK_SIZE, 0x1000 - SK_CELL - SK_SIZE);   /* free: positive */
	tu_write_file(path, h, sizeof h);
}

/* Copies the subtree below src into the hive below node. */
static void copy(hive_h *h, hive_node_h node, const struct etl__regkey *src)
{
	if (src->nvals) {
		hive_set_value *v = calloc(src->nvals, sizeof *v);
		ck_assert(v != NULL);
		for (size_t i = 0; i < src->nvals; i++) {
			v[i].key = src->vals[i]->name;
			v[i].t = (hive_type)src->vals[i]->type;
			v[i].len = src->vals[i]->len;
			v[i].value = (char *)src->vals[i]->data;
		}
		ck_assert_int_eq(hivex_node_set_values(h, node, src->nvals, v, 0), 0);
		free(v);
	}
	for (size_t i = 0; i < src->nkids; i++) {
		const char *name = src->kids[i]->name;
		if (src->depth == 2 && etl__reg_name_eq(name, strlen(name), "CurrentControlSet"))
			name = "ControlSet001";
		hive_node_h k = hivex_node_get_child(h, node, name);
		if (!k)
			k = hivex_node_add_child(h, node, name);
		ck_assert_msg(k != 0, "hivex_node_add_child(%s) failed", name);
		copy(h, k, src->kids[i]);
	}
}

static void write_hive(const struct etl__regtree *t, const struct etl__regkey *top, int system, const char *path)
{
	sh_blank_hive(path);
	hive_h *h = hivex_open(path, HIVEX_OPEN_WRITE);
	ck_assert_msg(h != NULL, "hivex cannot open the blank hive %s", path);
	hive_node_h root = hivex_root(h);
	if (top)
		copy(h, root, top);
	if (system && !(top && etl__regkey_child(t, top, "Select", 6))) {
		hive_node_h sel = hivex_node_add_child(h, root, "Select");
		ck_assert(sel != 0);
		static char one[4] = { 1, 0, 0, 0 };
		hive_set_value v = { (char *)"Current", hive_t_REG_DWORD, 4, one };
		ck_assert_int_eq(hivex_node_set_values(h, sel, 1, &v, 0), 0);
	}
	ck_assert_int_eq(hivex_commit(h, NULL, 0), 0);
	hivex_close(h);
}

void sh_reg_to_hives(const uint8_t *reg, size_t n, const char *system_path, const char *software_path)
{
	struct etl__regtree *t = etl__regtree_new();
	struct etl__sem_diags d;
	struct etl_sem_error err;
	memset(&d, 0, sizeof d);
	ck_assert(t != NULL);
	ck_assert_msg(etl__reg_parse(reg, n, "hive source", t, &d, &err) == 0, "%s", err.message);
	const struct etl__regkey *hklm = etl__regkey_child(t, t->root, "HKEY_LOCAL_MACHINE", 18);
	const struct etl__regkey *sys = hklm ? etl__regkey_child(t, hklm, "SYSTEM", 6) : NULL;
	const struct etl__regkey *sw = hklm ? etl__regkey_child(t, hklm, "SOFTWARE", 8) : NULL;
	write_hive(t, sys, 1, system_path);
	if (software_path)
		write_hive(t, sw, 0, software_path);
	etl__sem_diags_free(&d);
	etl__regtree_free(t);
}

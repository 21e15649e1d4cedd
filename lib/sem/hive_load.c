/*
 * lib/sem/hive_load.c - the SEM's keys from offline registry hives (the
 * SYSTEM and SOFTWARE files of Windows\System32\config) into the registry
 * tree, through hivex (doc/sem.md §2.3).
 *
 * A hive file has no CurrentControlSet: SYSTEM\Select\Current names the
 * ControlSet00N that is current, and only that set's Control\WDI subtree
 * is copied (with Select itself, so the rules resolve the same set). From
 * SOFTWARE only Policies\Microsoft\Windows\WDI is copied.
 *
 * Before hivex sees the file its frame is checked here through the
 * bounds-checked cursor - the base block (signature, checksum, version,
 * root cell, the length of the bins) and the chain of bins - because
 * hivex reports damage only through errno, and a user handed a truncated
 * copy deserves the offset where it stops making sense. Past that, hivex
 * node handles are file offsets, so its failures are reported with the
 * offset of the key concerned. Key nesting and the number of keys visited
 * are capped: a damaged hive can make a key its own descendant.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <fcntl.h>
#include <hivex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "etl_errors.h"
#include "lib/common/cursor.h"
#include "lib/sem/sem_internal.h"

#define REGF_HEADER   0x1000u
#define HBIN_HEADER   0x20u
#define MAX_DEPTH     32u          /* below the WDI key; real configs use 6 */

struct hctx {
	hive_h *h;
	const char *path;
	struct etl__regtree *t;
	struct etl_sem_error *err;
	size_t visited;
};

/* ---- the file's frame ---------------------------------------------------- */

static int check_frame(const uint8_t *p, size_t size, const char *path, struct etl_sem_error *err)
{
	struct etl_cur c;
	etl_cur_init(&c, p, size);
	if (size < REGF_HEADER + HBIN_HEADER) {
		etl__sem_err(err, ETL_E_TRUNCATED, 0, 0, (int64_t)size,
		             "%s: %zu bytes: too short for a registry hive (a 4096-byte base block and a bin)", path,
		             size);
		return -1;
	}
	if (memcmp(p, "regf", 4) != 0) {
		etl__sem_err(err, ETL_E_BAD_MAGIC, 0, 0, 0, "%s: not a registry hive (no \"regf\" at offset 0)", path);
		return -1;
	}
	uint32_t sum = 0;
	for (size_t off = 0; off < 0x1FC; off += 4)
		sum ^= etl_le32(p + off);
	if (sum != etl_le32(p + 0x1FC)) {
		etl__sem_err(err, ETL_E_BAD_VALUE, 0, 0, 0x1FC,
		             "%s: damaged hive: base block checksum 0x%08X at offset 0x1fc, the bytes give 0x%08X", path,
		             (unsigned)etl_le32(p + 0x1FC), (unsigned)sum);
		return -1;
	}
	if (etl_le32(p + 0x14) != 1) {
		etl__sem_err(err, ETL_E_UNSUPPORTED, 0, 0, 0x14, "%s: hive format version %u at offset 0x14, not 1",
		             path, (unsigned)etl_le32(p + 0x14));
		return -1;
	}
	uint32_t root = etl_le32(p + 0x24), bins = etl_le32(p + 0x28);
	uint64_t end = (uint64_t)REGF_HEADER + bins;
	if (bins == 0 || bins % 0x1000) {
		etl__sem_err(err, ETL_E_BAD_SIZE, 0, 0, 0x28,
		             "%s: damaged hive: length of the bins 0x%X at offset 0x28 is not a positive multiple of 4096",
		             path, (unsigned)bins);
		return -1;
	}
	if (end > size) {
		etl__sem_err(err, ETL_E_TRUNCATED, 0, 0, (int64_t)size,
		             "%s: truncated hive: the bins end at offset 0x%llX but the file ends at 0x%zX", path,
		             (unsigned long long)end, size);
		return -1;
	}
	uint64_t nk = (uint64_t)REGF_HEADER + root + 4;
	if (root < HBIN_HEADER || nk + 2 > end || memcmp(p + nk, "nk", 2) != 0) {
		etl__sem_err(err, ETL_E_BAD_VALUE, 0, 0, 0x24,
		             "%s: damaged hive: the root key cell 0x%X (offset 0x24) is not a key", path, (unsigned)root);
		return -1;
	}
	for (uint64_t pos = REGF_HEADER; pos < end;) {
		c.pos = (size_t)pos;
		const uint8_t *b = etl_cur_bytes(&c, HBIN_HEADER);
		if (!b || memcmp(b, "hbin", 4) != 0) {
			etl__sem_err(err, ETL_E_BAD_MAGIC, 0, 0, (int64_t)pos, "%s: damaged hive: no bin (\"hbin\") at offset 0x%llX",
			             path, (unsigned long long)pos);
			return -1;
		}
		uint32_t rel = etl_le32(b + 4), len = etl_le32(b + 8);
		if (rel != pos - REGF_HEADER) {
			etl__sem_err(err, ETL_E_BAD_VALUE, 0, 0, (int64_t)pos + 4,
			             "%s: damaged hive: the bin at offset 0x%llX says it is at 0x%X", path,
			             (unsigned long long)pos, (unsigned)(rel + REGF_HEADER));
			return -1;
		}
		if (len < 0x1000 || len % 0x1000 || pos + len > end) {
			etl__sem_err(err, ETL_E_BAD_SIZE, 0, 0, (int64_t)pos + 8,
			             "%s: damaged hive: the bin at offset 0x%llX has size 0x%X (past the end 0x%llX, or "
			             "not a multiple of 4096)", path, (unsigned long long)pos, (unsigned)len,
			             (unsigned long long)end);
			return -1;
		}
		pos += len;
	}
	return 0;
}

/* Opens path, checks its frame. @return : 0, or -1 with err filled. */
static int check_file(const char *path, struct etl_sem_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		etl__sem_err(err, ETL_E_IO, 0, 0, -1, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		etl__sem_err(err, ETL_E_IO, 0, 0, -1, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	if (size < REGF_HEADER + HBIN_HEADER) {
		close(fd);
		return check_frame(NULL, size, path, err);
	}
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		etl__sem_err(err, ETL_E_IO, 0, 0, -1, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = check_frame(m, size, path, err);
	munmap(m, size);
	return rc;
}

/* ---- copying keys ---------------------------------------------------------- */

/* hivex's UTF-8 name (n bytes, may hold NULs) as a C string. */
static char *clean_name(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == 0)
			s[i] = '?';
	s[n] = 0;
	return s;
}

static int hive_fail(struct hctx *c, hive_node_h node, const char *what)
{
	int e = errno;
	etl__sem_err(c->err, e == ENOMEM ? ETL_E_NOMEM : ETL_E_BAD_VALUE, 0, 0, (int64_t)node,
	             "%s: damaged hive: key at offset 0x%zX: cannot read %s (%s)", c->path, (size_t)node, what,
	             e ? strerror(e) : "no reason given");
	return -1;
}

static int tree_fail(struct hctx *c, hive_node_h node)
{
	if (c->t->err == ETL_E_LIMIT)
		etl__sem_err(c->err, ETL_E_LIMIT, 0, 0, (int64_t)node,
		             "%s: more than %u keys or %u values under the keys the SEM reads (at offset 0x%zX)", c->path,
		             ETL_REG_MAX_KEYS, ETL_REG_MAX_VALUES, (size_t)node);
	else
		etl__sem_err(c->err, ETL_E_NOMEM, 0, 0, -1, "%s: out of memory", c->path);
	return -1;
}

static int copy_values(struct hctx *c, hive_node_h node, struct etl__regkey *dst)
{
	errno = 0;
	hive_value_h *vals = hivex_node_values(c->h, node);
	if (!vals)
		return hive_fail(c, node, "its values");
	int rc = 0;
	for (size_t i = 0; vals[i] && rc == 0; i++) {
		errno = 0;
		size_t klen = hivex_value_key_len(c->h, vals[i]);
		char *key = hivex_value_key(c->h, vals[i]);
		hive_type type;
		size_t len = 0;
		char *data = key ? hivex_value_value(c->h, vals[i], &type, &len) : NULL;
		if (!key || !data) {
			rc = hive_fail(c, node, "a value");
		} else {
			size_t n = strlen(key) < klen ? strlen(key) : klen;
			if (etl__regkey_set(c->t, dst, clean_name(key, n), n, (uint32_t)type, data, len) != 0)
				rc = tree_fail(c, node);
		}
		free(key);
		free(data);
	}
	free(vals);
	return rc;
}

static int copy_key(struct hctx *c, hive_node_h node, struct etl__regkey *dst, unsigned depth)
{
	if (++c->visited > ETL_REG_MAX_KEYS)
		return tree_fail(c, node);
	if (depth > MAX_DEPTH) {
		etl__sem_err(c->err, ETL_E_BAD_VALUE, 0, 0, (int64_t)node,
		             "%s: damaged hive: keys nested deeper than %u levels below WDI at offset 0x%zX (a loop?)",
		             c->path, MAX_DEPTH, (size_t)node);
		return -1;
	}
	if (copy_values(c, node, dst) != 0)
		return -1;
	errno = 0;
	hive_node_h *kids = hivex_node_children(c->h, node);
	if (!kids)
		return hive_fail(c, node, "its subkeys");
	int rc = 0;
	for (size_t i = 0; kids[i] && rc == 0; i++) {
		errno = 0;
		size_t n = hivex_node_name_len(c->h, kids[i]);
		char *name = hivex_node_name(c->h, kids[i]);
		if (!name) {
			rc = hive_fail(c, kids[i], "its name");
			break;
		}
		n = strlen(name) < n ? strlen(name) : n;
		struct etl__regkey *k = etl__regkey_add(c->t, dst, clean_name(name, n), n);
		free(name);
		rc = k ? copy_key(c, kids[i], k, depth + 1) : tree_fail(c, kids[i]);
	}
	free(kids);
	return rc;
}

/* The child of node called name, its spelling in the hive in *spelt
 * (malloc'd). @return : 0 found, 1 absent, -1 on a hivex failure. */
static int child(struct hctx *c, hive_node_h node, const char *name, hive_node_h *out, char **spelt)
{
	errno = 0;
	*out = hivex_node_get_child(c->h, node, name);
	if (!*out)
		return errno ? hive_fail(c, node, "its subkeys") : 1;
	size_t n = hivex_node_name_len(c->h, *out);
	*spelt = hivex_node_name(c->h, *out);
	if (!*spelt)
		return hive_fail(c, *out, "its name");
	clean_name(*spelt, strlen(*spelt) < n ? strlen(*spelt) : n);
	return 0;
}

/* Follows names[0..n) down from node, creating the same keys (as spelt in
 * the hive) below dst. @return : 0 with *node and *dst at the last one, 1 when
 * one is absent, -1 on failure. */
static int descend(struct hctx *c, hive_node_h *node, struct etl__regkey **dst, const char *const *names,
                   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		hive_node_h next;
		char *spelt = NULL;
		int rc = child(c, *node, names[i], &next, &spelt);
		if (rc != 0)
			return rc;
		struct etl__regkey *k = etl__regkey_add(c->t, *dst, spelt, strlen(spelt));
		free(spelt);
		if (!k)
			return tree_fail(c, next);
		*node = next;
		*dst = k;
	}
	return 0;
}

static int load_system(struct hctx *c, hive_node_h root, struct etl__regkey *sys)
{
	static const char *const select[] = { "Select" };
	static const char *const wdi[] = { "Control", "WDI" };
	hive_node_h node = root;
	struct etl__regkey *dst = sys;
	int rc = descend(c, &node, &dst, select, 1);
	if (rc < 0)
		return -1;
	errno = 0;
	hive_value_h v = rc == 0 ? hivex_node_get_value(c->h, node, "Current") : 0;
	hive_type type = hive_t_REG_NONE;
	size_t len = 0;
	char *data = v ? hivex_value_value(c->h, v, &type, &len) : NULL;
	if (!data || type != hive_t_REG_DWORD || len != 4) {
		free(data);
		etl__sem_err(c->err, ETL_E_NOT_FOUND, 0, 0, v ? (int64_t)v : -1,
		             "%s: no REG_DWORD Select\\Current: not a SYSTEM hive", c->path);
		return -1;
	}
	uint32_t current = etl_le32((const uint8_t *)data);
	int set = etl__regkey_set(c->t, dst, "Current", 7, ETL_REG_DWORD, data, 4);
	free(data);
	if (set != 0)
		return tree_fail(c, node);
	char csname[24];
	snprintf(csname, sizeof csname, "ControlSet%03u", (unsigned)current);
	const char *cs[] = { csname };
	node = root;
	dst = sys;
	rc = current >= 1 && current <= 999 ? descend(c, &node, &dst, cs, 1) : 1;
	if (rc < 0)
		return -1;
	if (rc > 0) {
		etl__sem_err(c->err, ETL_E_NOT_FOUND, 0, 0, -1,
		             "%s: Select\\Current is %u but the hive has no %s", c->path, (unsigned)current, csname);
		return -1;
	}
	rc = descend(c, &node, &dst, wdi, 2);
	return rc < 0 ? -1 : rc > 0 ? 0 : copy_key(c, node, dst, 0);
}

static int load_software(struct hctx *c, hive_node_h root, struct etl__regkey *sw)
{
	static const char *const policy[] = { "Policies", "Microsoft", "Windows", "WDI" };
	hive_node_h node = root;
	struct etl__regkey *dst = sw;
	int rc = descend(c, &node, &dst, policy, 4);
	return rc < 0 ? -1 : rc > 0 ? 0 : copy_key(c, node, dst, 0);
}

int etl__hive_load(const char *path, int software, struct etl__regtree *t, struct etl_sem_error *err)
{
	if (check_file(path, err) != 0)
		return -1;
	errno = 0;
	hive_h *h = hivex_open(path, 0);
	if (!h) {
		int e = errno;
		etl__sem_err(err, e == ENOMEM ? ETL_E_NOMEM : e == ENOENT || e == EACCES ? ETL_E_IO : ETL_E_BAD_VALUE,
		             0, 0, -1, "%s: hivex cannot open the hive: %s", path, e ? strerror(e) : "no reason given");
		return -1;
	}
	struct hctx c = { h, path, t, err, 0 };
	int rc = -1;
	struct etl__regkey *hklm = etl__regkey_add(t, t->root, "HKEY_LOCAL_MACHINE", 18);
	struct etl__regkey *top = hklm ? etl__regkey_add(t, hklm, software ? "SOFTWARE" : "SYSTEM",
	                                                 software ? 8 : 6) : NULL;
	errno = 0;
	hive_node_h root = hivex_root(h);
	if (!top)
		rc = tree_fail(&c, 0);
	else if (!root)
		rc = hive_fail(&c, 0, "the root key");
	else
		rc = software ? load_software(&c, root, top) : load_system(&c, root, top);
	hivex_close(h);
	return rc;
}

/*
 * lib/sem/regtree.h - an in-memory registry: keys with case-insensitive
 * names and typed values, the one model both loaders (lib/sem/reg_parse.c
 * for .reg text, lib/sem/hive_load.c for offline hives) fill and the SEM's
 * rules (lib/sem/sem_config.c) read (internal).
 *
 * Names are UTF-8 and keep the spelling of their first appearance (so
 * diagnostics name keys as the input gave them); lookups fold ASCII
 * letters only (every name the SEM reads is ASCII). Values hold the bytes
 * a hive would hold: strings as UTF-16LE with their terminating NUL,
 * REG_DWORD as 4 little-endian bytes, REG_QWORD as 8.
 *
 * Lookups of a child key or a value go through one hash table per tree,
 * so a key with many thousands of subkeys or values costs no more than a
 * small one; the caps below bound what hostile input can make us hold.
 */
#ifndef ETL_SEM_REGTREE_H
#define ETL_SEM_REGTREE_H

#ifndef ETL_BUILDING_LIB
#error "lib/sem/regtree.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>

/* Registry value types (winnt.h REG_*). */
#define ETL_REG_NONE      0u
#define ETL_REG_SZ        1u
#define ETL_REG_EXPAND_SZ 2u
#define ETL_REG_BINARY    3u
#define ETL_REG_DWORD     4u
#define ETL_REG_MULTI_SZ  7u
#define ETL_REG_QWORD     11u

/* Caps on what one tree holds (a choice: the WDI keys of a real machine
 * are a few hundred keys). Passing one fails the load with ETL_E_LIMIT. */
#define ETL_REG_MAX_KEYS   100000u
#define ETL_REG_MAX_VALUES 400000u
#define ETL_REG_MAX_DEPTH  512u      /* the registry's own nesting limit */

struct etl__regval {
	char *name;            /* "" is the default value                   */
	uint32_t type;
	uint8_t *data;
	size_t len;
	uint64_t owner;        /* id of the key that holds it               */
};

struct etl__regkey {
	char *name;            /* as first given; the root's is ""          */
	struct etl__regkey *parent;
	struct etl__regkey **kids;   /* in the order they were added        */
	size_t nkids, capkids;
	struct etl__regval **vals;   /* in the order they were added        */
	size_t nvals, capvals;
	uint64_t id;           /* unique in the tree, never reused          */
	unsigned depth;        /* root 0                                    */
};

struct etl__regslot;

struct etl__regtree {
	struct etl__regkey *root;    /* unnamed; its children are the hive
	                                roots (HKEY_LOCAL_MACHINE)            */
	struct etl__regslot *slots;  /* keys and values, by (owner, name)    */
	size_t cap, used, tombs;
	size_t nkeys, nvals;         /* live                                 */
	uint64_t next_id;
	int err;                     /* enum etl_errcode of the first failure:
	                                ETL_E_NOMEM or ETL_E_LIMIT            */
};

/*! etl__regtree_new() : an empty tree. @return : NULL on out-of-memory. */
struct etl__regtree *etl__regtree_new(void);

/*! etl__regtree_free() : frees t and every key and value. NULL allowed. */
void etl__regtree_free(struct etl__regtree *t);

/*! etl__reg_name_eq() : 1 if the n bytes at a equal the string b with
 *  ASCII letters folded. */
int etl__reg_name_eq(const char *a, size_t n, const char *b);

/*! etl__reg_name_cmp() : orders names as registry enumeration does: by
 *  their bytes with ASCII letters upper-cased. */
int etl__reg_name_cmp(const char *a, const char *b);

/*! etl__reg_control_set_number() : N for a name "ControlSetNNN" (n bytes,
 *  three digits, any case), else 0. */
unsigned etl__reg_control_set_number(const char *name, size_t n);

/*! etl__regkey_child() : the child of k named (n bytes at name), or NULL. */
struct etl__regkey *etl__regkey_child(const struct etl__regtree *t, const struct etl__regkey *k,
                                      const char *name, size_t n);

/*! etl__regkey_add() : the child of k named name (n bytes), created when
 *  missing. @return : NULL with t->err set on out-of-memory or a cap. */
struct etl__regkey *etl__regkey_add(struct etl__regtree *t, struct etl__regkey *k, const char *name, size_t n);

/*! etl__regkey_remove() : deletes k (not the root) with its subtree and
 *  values; pointers to them become invalid. */
void etl__regkey_remove(struct etl__regtree *t, struct etl__regkey *k);

/*! etl__regkey_value() : the value of k named name (NUL-terminated), or
 *  NULL. */
const struct etl__regval *etl__regkey_value(const struct etl__regtree *t, const struct etl__regkey *k,
                                            const char *name);

/*! etl__regkey_set() : sets (creates or replaces) the value of k named
 *  (namelen bytes at name) to a copy of len bytes at data.
 *  @return : 0, or -1 with t->err set. */
int etl__regkey_set(struct etl__regtree *t, struct etl__regkey *k, const char *name, size_t namelen,
                    uint32_t type, const void *data, size_t len);

/*! etl__regkey_unset() : deletes the value of k named (namelen bytes at
 *  name) if there is one. */
void etl__regkey_unset(struct etl__regtree *t, struct etl__regkey *k, const char *name, size_t namelen);

/*! etl__regkey_path() : the full path of k, names joined by '\' as given
 *  ("HKEY_LOCAL_MACHINE\SYSTEM\..."). @return : a malloc'd string, or NULL
 *  on out-of-memory. */
char *etl__regkey_path(const struct etl__regkey *k);

/*! etl__regkey_sorted_kids() : a malloc'd copy of k's children sorted by
 *  etl__reg_name_cmp() (the order the SEM reads them in), or NULL when k
 *  has none or memory is short (*oom says which). */
struct etl__regkey **etl__regkey_sorted_kids(const struct etl__regkey *k, int *oom);

#endif /* ETL_SEM_REGTREE_H */

/*
 * lib/decode/mof_parse.h - the MOF text parser (internal): the .mof source
 * that mofcomp compiles, read as far as classic (MOF) event schemas need it
 * (doc/decoding.md §4.5). Used by lib/decode/mof_load.c, which turns the
 * classes into schemas.
 *
 * What it keeps: every class declaration (name, parent, qualifiers, the
 * properties with their type, array size and qualifiers) with its line.
 * What it reads past: #pragma lines, comments, instance declarations,
 * qualifier declarations, methods, default values and qualifier flavors
 * (": Amended ToInstance").
 *
 * The text is untrusted: every read is bounded by its length, nesting is
 * counted, not recursed, and every allocation goes through the caller's
 * allocator (a schema set's pool), so a failed parse leaks nothing the
 * caller does not own.
 */
#ifndef ETL_MOF_PARSE_H
#define ETL_MOF_PARSE_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/mof_parse.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>

/* A qualifier value. */
enum mofp_vtype { MOFV_NULL = 0, MOFV_STR, MOFV_INT, MOFV_BOOL, MOFV_REAL, MOFV_IDENT };

struct mofp_val {
	uint8_t type;               /* enum mofp_vtype                      */
	const char *s;              /* STR and IDENT: NUL-terminated text   */
	int64_t i;                  /* INT (BOOL: 0 or 1)                   */
};

struct mofp_qual {
	const char *name;
	const struct mofp_val *v;   /* the value, or the array's elements   */
	uint32_t n;                 /* 0 for a qualifier without a value    */
	uint8_t is_array;           /* written Name{...}                    */
};

/* Array sizes of a property. */
#define MOFP_NOT_ARRAY   (-1)   /* not an array                         */
#define MOFP_ARRAY_OPEN  (-2)   /* written name[]                       */

struct mofp_prop {
	const char *name;
	const char *type;           /* "uint32", "string", "object", ...    */
	int64_t array;              /* MOFP_NOT_ARRAY, MOFP_ARRAY_OPEN or
	                               the n of name[n]                      */
	uint8_t is_ref;             /* "Type ref Name"                      */
	uint32_t line;
	const struct mofp_qual *q;
	uint32_t nq;
};

struct mofp_class {
	const char *name;
	const char *parent;         /* NULL without one                     */
	const char *file;           /* for messages: the caller's name      */
	uint32_t line;
	const struct mofp_qual *q;
	uint32_t nq;
	const struct mofp_prop *p;
	uint32_t np;
};

/* Allocator of the parse: n zeroed bytes that live as long as the caller
 * wants the result, or NULL when memory is short. */
typedef void *(*mofp_alloc_fn)(void *ctx, size_t n);

/* Most classes, properties of a class and qualifiers of one element, and
 * the longest string literal, one text may hold. */
#define MOFP_MAX_CLASSES   65536u
#define MOFP_MAX_PROPS     4096u
#define MOFP_MAX_QUALS     256u
#define MOFP_MAX_VALUES    65536u

/* Parses len bytes of MOF text (need not be NUL-terminated; a UTF-8 byte
 * order mark is skipped; UTF-16 text is refused) into *classes / *n (array
 * from alloc). file names the text in the classes. ETL_OK, or ETL_FAILED
 * with "LINE: reason" in err (errlen bytes), or ETL_FATAL when alloc
 * failed. */
int etl__mofp_parse(const char *text, size_t len, const char *file, mofp_alloc_fn alloc, void *ctx,
                    const struct mofp_class **classes, uint32_t *n, char *err, size_t errlen);

/* The qualifier of that name (case-insensitive) on q[0..nq), or NULL. */
const struct mofp_qual *etl__mofp_qual(const struct mofp_qual *q, uint32_t nq, const char *name);

/* ASCII case-insensitive equality, as MOF compares names and keywords. */
int etl__mofp_name_eq(const char *a, const char *b);

#endif /* ETL_MOF_PARSE_H */

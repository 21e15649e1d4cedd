/*
 * json_mini.h - a tiny JSON parser for the tests (RFC 8259: objects,
 * arrays, strings with every escape incl. \uXXXX surrogate pairs, numbers,
 * true/false/null). Enough to read ../shared/corpus/expected.json without
 * python or jq. Not for untrusted or huge input: values are a plain tree,
 * object lookups are linear.
 */
#ifndef JSON_MINI_H
#define JSON_MINI_H

#include <stddef.h>
#include <stdint.h>

enum jm_type { JM_NULL = 0, JM_BOOL, JM_NUM, JM_STR, JM_ARR, JM_OBJ };

struct jm_val {
	enum jm_type type;
	int b;                   /* JM_BOOL                                   */
	double num;              /* JM_NUM                                    */
	int is_int;              /* JM_NUM written without fraction/exponent  */
	long long i;             /* JM_NUM when is_int                        */
	char *str;               /* JM_STR: UTF-8, NUL-terminated (may hold
	                            embedded NULs from \u0000; see len)      */
	size_t len;              /* JM_STR: bytes; JM_ARR/JM_OBJ: members     */
	struct jm_val *items;    /* JM_ARR elements / JM_OBJ values           */
	char **keys;             /* JM_OBJ keys (UTF-8), parallel to items    */
};

/*! jm_parse() : parses n bytes of text. @return : the root value (free
 *  with jm_free()), or NULL with a message "line L, column C: why" in err
 *  (errlen bytes). Trailing non-space text is an error. */
struct jm_val *jm_parse(const char *text, size_t n, char *err, size_t errlen);

/*! jm_free() : frees a tree from jm_parse(); NULL is allowed. */
void jm_free(struct jm_val *v);

/*! jm_get() : the value of key in object obj, or NULL (also when obj is
 *  not an object). */
const struct jm_val *jm_get(const struct jm_val *obj, const char *key);

/*! jm_str() / jm_int() : typed accessors for obj[key]; NULL / def when the
 *  key is missing or of another type. */
const char *jm_str(const struct jm_val *obj, const char *key);
long long jm_int(const struct jm_val *obj, const char *key, long long def);

#endif /* JSON_MINI_H */

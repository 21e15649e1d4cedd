/*
 * lib/common/packed_array.h - the elements of a packed array (kind
 * ETL_VAL_ARRAY_PACKED, etl_decoder_set_flags()): element k made from
 * element 0, the one child the array keeps, and the element's bytes. Used
 * by etl_decoded_element() and by the writers, which walk such arrays
 * without the decoder storing a property per element (a character array
 * holds thousands); inline because a writer calls it once per element.
 */
#ifndef ETL_COMMON_PACKED_ARRAY_H
#define ETL_COMMON_PACKED_ARRAY_H

#include "etl_decode.h"
#include "lib/common/cursor.h"

/* 1 when arr is a well-formed packed array: at least one element, each of
 * 1, 2, 4 or 8 bytes, the bytes there. Its one child is not checked here
 * (the writers check children ranges themselves). Results of the decoder
 * always are; a property array built by a program may not be. */
static inline int etl__packed_ok(const struct etl_prop *arr)
{
	if (arr->kind != ETL_VAL_ARRAY_PACKED || arr->n_children == 0 || !arr->v.bin.p)
		return 0;
	size_t sz = arr->v.bin.len / arr->n_children;
	return (sz == 1 || sz == 2 || sz == 4 || sz == 8) && sz * arr->n_children == arr->v.bin.len;
}

/* 1 when e0 can be element 0 of a packed array: an integer value (INT,
 * UINT, BOOL or FILETIME), as the decoder makes; a struct or array there
 * (a property array built by a program) would have no children to walk. */
static inline int etl__packed_elem_ok(const struct etl_prop *e0)
{
	return e0->kind == ETL_VAL_INT || e0->kind == ETL_VAL_UINT || e0->kind == ETL_VAL_BOOL ||
	       e0->kind == ETL_VAL_FILETIME;
}

/* 1 when arr is a well-formed packed array (etl__packed_ok()) whose
 * element 0, e0 (its one child, in range: the caller checked), is an
 * integer (etl__packed_elem_ok()): what etl_decoded_element() and the
 * writers need before making elements. */
static inline int etl__packed_usable(const struct etl_prop *arr, const struct etl_prop *e0)
{
	return etl__packed_ok(arr) && etl__packed_elem_ok(e0);
}

/* Bytes per element of a well-formed packed array. */
static inline unsigned etl__packed_size(const struct etl_prop *arr)
{
	return (unsigned)(arr->v.bin.len / arr->n_children);
}

/* Element k (< arr->n_children) of the well-formed packed array arr whose
 * element 0 is e0, as an unpacked array would hold it: e0 with the value
 * of the k-th sz bytes (INT sign-extended, BOOL 0 or 1, others as they
 * are, as the decoder reads element 0) and its own payload offset. */
static inline void etl__packed_elem(const struct etl_prop *arr, const struct etl_prop *e0, uint32_t k,
                                    struct etl_prop *out)
{
	const unsigned sz = etl__packed_size(arr);
	uint64_t u = etl_le_uint(arr->v.bin.p + (size_t)k * sz, sz);
	if (e0->kind == ETL_VAL_INT)
		u = etl_sign_extend(u, sz);
	else if (e0->kind == ETL_VAL_BOOL)
		u = u != 0;
	*out = *e0;
	out->v.u = u;
	out->payload_offset = e0->payload_offset + k * sz;
}

#endif /* ETL_COMMON_PACKED_ARRAY_H */

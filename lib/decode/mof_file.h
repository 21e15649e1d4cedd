/*
 * lib/decode/mof_file.h - the schemas of classic events loaded from .mof
 * files (internal; doc/decoding.md §4.5), shared by lib/decode/mof_load.c
 * (which parses and compiles the files) and lib/decode/mof_file.c (the
 * per-source decoder).
 *
 * The classes compile into the manifest decoder's model (struct mf_event
 * with its template), one event per (class GUID, event type, version) with
 * the event type as its id, so their payloads are walked by the same code
 * as manifest events (lib/decode/manifest_decode.c); the few in-types
 * MOF has and manifests do not are MF_IN_* (manifest_internal.h).
 */
#ifndef ETL_MOF_FILE_H
#define ETL_MOF_FILE_H

#ifndef ETL_BUILDING_LIB
#error "lib/decode/mof_file.h is internal to libetl"
#endif

#include <stddef.h>
#include "lib/decode/manifest_internal.h"
#include "lib/decode/mof_parse.h"

/* Largest .mof file etl_decoder_add_mof() reads. */
#define MOF_FILE_MAX_BYTES (64u * 1024u * 1024u)

/* The loaded schemas: the events (with the pool every class, string and
 * template lives in) and every class declaration seen, for the parents of
 * classes loaded later. Lives in the decoder's schema cache under a key
 * of its own; a cache flush drops it (the files must then be added again,
 * as manifests must). */
struct moffile_set {
	struct mf_set mf;
	const struct mofp_class **cls;
	size_t n_cls, cap_cls;
};

/* The decoder's set; with create, made (empty) when there is none. NULL
 * when there is none (or on out-of-memory with create). */
struct moffile_set *etl__moffile_set(etl_decoder *d, int create);

#endif /* ETL_MOF_FILE_H */

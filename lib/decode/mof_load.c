/*
 * lib/decode/mof_load.c - etl_decoder_add_mof(): .mof files (the MOF text
 * mofcomp compiles) parsed by lib/decode/mof_parse.c, their classic event
 * classes compiled into schemas the manifest walker reads (mof_file.h,
 * doc/decoding.md §4.5).
 *
 * A classic provider publishes three kinds of classes: the provider class
 * (derived from EventTrace, with the provider's Guid), event classes
 * derived from it (Guid = the class GUID events carry, EventVersion), and
 * event type classes derived from an event class (EventType(n) or
 * EventType{n, m}, EventTypeName, and the properties). An event type class
 * gives one schema per event type: its GUID and version are those of the
 * nearest class up its parents with a Guid qualifier (its own first); an
 * event class without EventVersion is the latest version, taken as one
 * above the highest version declared for that GUID (0 when none is). Its
 * properties are its own and those of its parents below that class (a
 * child's property replaces its parent's of the same name), in WmiDataId
 * order; properties without WmiDataId are not event data.
 *
 * Parents may come from an earlier call (a provider's classes in one file,
 * its events in another); classes of one call are compiled when all its
 * files are parsed, and a call that fails adds nothing.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "lib/decode/mof_file.h"

#define MOF_MAX_DEPTH   32u     /* parent links followed from a class      */

/* The state of one etl_decoder_add_mof() call. */
struct mload {
	etl_decoder *d;
	struct moffile_set *ms;
	size_t first_cls;           /* the classes of this call start here   */
	struct mf_event **ev;       /* the schemas made, added when all are  */
	size_t n_ev, cap_ev;
	struct etl_guid *vguid;     /* (GUID, EventVersion) of every event   */
	int *vver;                  /* class that declares one               */
	size_t n_v;
};

static void *pool_alloc(void *ctx, size_t n)
{
	return etl__mf_pool_alloc(ctx, n);
}

static int nomem(struct mload *ml)
{
	etl__dec_set_error(ml->d, ETL_E_NOMEM, "out of memory loading MOF classes");
	return ETL_FATAL;
}

/* Fails the call with "FILE:LINE: class C[ property P]: reason". */
static int bad(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *p, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *p, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (p)
		etl__dec_set_error(ml->d, ETL_E_BAD_VALUE, "%s:%u: class %s, property %s: %s", c->file, p->line,
		                   c->name, p->name, why);
	else
		etl__dec_set_error(ml->d, ETL_E_BAD_VALUE, "%s:%u: class %s: %s", c->file, c->line, c->name, why);
	return ETL_FAILED;
}

/* ---- qualifiers ------------------------------------------------------- */

static const struct mofp_qual *pq(const struct mofp_prop *p, const char *name)
{
	return etl__mofp_qual(p->q, p->nq, name);
}

/* The string value of a qualifier (its only value), or NULL. */
static const char *qstr(const struct mofp_qual *q)
{
	return q && q->n == 1 && q->v[0].type == MOFV_STR ? q->v[0].s : NULL;
}

/* The integer value of a qualifier into *v: 1; 0 when it has none. */
static int qint(const struct mofp_qual *q, int64_t *v)
{
	if (!q || q->n != 1)
		return 0;
	if (q->v[0].type == MOFV_INT) {
		*v = q->v[0].i;
		return 1;
	}
	if (q->v[0].type == MOFV_STR) {             /* EventVersion("1") */
		char *end;
		long long x = strtoll(q->v[0].s, &end, 0);
		if (end != q->v[0].s && !*end) {
			*v = x;
			return 1;
		}
	}
	return 0;
}

/* A qualifier that is set: present without a value, or true. */
static int qflag(const struct mofp_qual *q)
{
	return q && (q->n == 0 || (q->n == 1 && q->v[0].type == MOFV_BOOL && q->v[0].i));
}

/* ---- classes --------------------------------------------------------- */

/* The last class loaded under name (a redefinition replaces the first). */
static const struct mofp_class *find_class(const struct moffile_set *ms, const char *name)
{
	for (size_t i = ms->n_cls; i-- > 0;)
		if (etl__mofp_name_eq(ms->cls[i]->name, name))
			return ms->cls[i];
	return NULL;
}

/* A class's Guid qualifier parsed: 1, 0 without one, -1 malformed. */
static int class_guid(const struct mofp_class *c, struct etl_guid *g)
{
	const struct mofp_qual *q = etl__mofp_qual(c->q, c->nq, "Guid");
	if (!q)
		return 0;
	const char *s = qstr(q);
	return s && etl_guid_parse(s, g) == ETL_OK ? 1 : -1;
}

/* The chain from c up to (and with) the first class with a Guid:
 * chain[0] = c; *n its length. ETL_OK, or the failure. */
static int class_chain(struct mload *ml, const struct mofp_class *c, const struct mofp_class **chain,
                       size_t *n, struct etl_guid *g)
{
	const struct mofp_class *k = c;
	for (size_t depth = 0; depth < MOF_MAX_DEPTH; depth++) {
		chain[depth] = k;
		*n = depth + 1;
		int rc = class_guid(k, g);
		if (rc < 0)
			return bad(ml, k, NULL, "Guid is not a GUID (\"{8-4-4-4-12}\")");
		if (rc > 0)
			return ETL_OK;
		if (!k->parent)
			return bad(ml, c, NULL, "no Guid qualifier on it or its parent classes");
		const struct mofp_class *up = find_class(ml->ms, k->parent);
		if (!up)
			return bad(ml, c, NULL, "parent class %s is not defined (and no Guid before it)", k->parent);
		k = up;
	}
	return bad(ml, c, NULL, "more than %u parent classes, or a loop", MOF_MAX_DEPTH);
}

/* The event version of event class k: 0..255 into *v and 1, or 0 when it
 * has no EventVersion (the latest); -1 when it is not a small number. */
static int class_version(const struct mofp_class *k, int *v)
{
	const struct mofp_qual *q = etl__mofp_qual(k->q, k->nq, "EventVersion");
	int64_t x;
	if (!q)
		return 0;
	if (!qint(q, &x) || x < 0 || x > 255)
		return -1;
	*v = (int)x;
	return 1;
}

/* Every (GUID, EventVersion) declared by the classes loaded so far, for
 * the version of the classes without one. */
static int collect_versions(struct mload *ml)
{
	size_t n = ml->ms->n_cls;
	ml->vguid = malloc((n ? n : 1) * sizeof *ml->vguid);
	ml->vver = malloc((n ? n : 1) * sizeof *ml->vver);
	if (!ml->vguid || !ml->vver)
		return nomem(ml);
	for (size_t i = 0; i < n; i++) {
		const struct mofp_class *k = ml->ms->cls[i];
		int v;
		if (class_guid(k, &ml->vguid[ml->n_v]) > 0 && class_version(k, &v) > 0)
			ml->vver[ml->n_v++] = v;
	}
	return ETL_OK;
}

static int latest_version(const struct mload *ml, const struct etl_guid *g)
{
	int v = -1;
	for (size_t i = 0; i < ml->n_v; i++)
		if (etl_guid_equal(&ml->vguid[i], g) && ml->vver[i] > v)
			v = ml->vver[i];
	return v < 255 ? v + 1 : 255;
}

/* ---- properties -------------------------------------------------------- */

/* The event-data properties of the event type class chain[0]: those of
 * chain[0..guid_at) (nearest wins by name) with a WmiDataId, sorted by it.
 * *out (malloc'd) / *n. */
static int gather_props(struct mload *ml, const struct mofp_class *const *chain, size_t guid_at,
                        const struct mofp_prop ***out, size_t *n)
{
	size_t cap = 0;
	for (size_t k = 0; k < guid_at; k++)
		cap += chain[k]->np;
	const struct mofp_prop **v = malloc((cap ? cap : 1) * sizeof *v);
	int64_t *ids = malloc((cap ? cap : 1) * sizeof *ids);
	if (!v || !ids) {
		free(v);
		free(ids);
		return nomem(ml);
	}
	size_t m = 0;
	for (size_t k = 0; k < guid_at; k++) {
		for (uint32_t i = 0; i < chain[k]->np; i++) {
			const struct mofp_prop *p = &chain[k]->p[i];
			int shadowed = 0;
			for (size_t j = 0; j < k && !shadowed; j++)   /* a nearer class has it */
				for (uint32_t t = 0; t < chain[j]->np && !shadowed; t++)
					shadowed = etl__mofp_name_eq(chain[j]->p[t].name, p->name);
			int64_t id;
			if (shadowed || !qint(pq(p, "WmiDataId"), &id))
				continue;
			size_t at = m++;                /* insertion sort by id */
			while (at > 0 && ids[at - 1] > id) {
				v[at] = v[at - 1];
				ids[at] = ids[at - 1];
				at--;
			}
			if (at > 0 && ids[at - 1] == id) {
				int rc = bad(ml, chain[0], p, "WmiDataId(%lld) is also %s's", (long long)id,
				             v[at - 1]->name);
				free(v);
				free(ids);
				return rc;
			}
			v[at] = p;
			ids[at] = id;
		}
	}
	free(ids);
	*out = v;
	*n = m;
	return ETL_OK;
}

/* The integer types, by MOF name: in-type, width. */
struct int_type {
	const char *name;
	uint16_t in;
	uint8_t width;
};
static const struct int_type int_types[] = {
	{ "sint8", ETL_IN_INT8, 1 }, { "uint8", ETL_IN_UINT8, 1 },
	{ "sint16", ETL_IN_INT16, 2 }, { "uint16", ETL_IN_UINT16, 2 },
	{ "sint32", ETL_IN_INT32, 4 }, { "uint32", ETL_IN_UINT32, 4 },
	{ "sint64", ETL_IN_INT64, 8 }, { "uint64", ETL_IN_UINT64, 8 },
	{ "char16", ETL_IN_UINT16, 2 },
};

static const struct int_type *int_type(const char *name)
{
	for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++)
		if (etl__mofp_name_eq(int_types[i].name, name))
			return &int_types[i];
	return NULL;
}

/* The value map of p (ValueMap/Values, ValueType("flag"), BitMap/BitValues)
 * into f->map, or none. */
static int make_map(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *p, struct mf_field *f)
{
	const struct mofp_qual *names = pq(p, "Values"), *vals = pq(p, "ValueMap");
	int bits = 0;
	if (!names) {
		names = pq(p, "BitValues");
		vals = pq(p, "BitMap");
		bits = 1;
	}
	if (!names || !names->n)
		return ETL_OK;
	if (vals && vals->n != names->n)
		return bad(ml, c, p, "%u values for %u names", vals->n, names->n);
	const char *vt = qstr(pq(p, "ValueType"));
	struct mf_map *m = etl__mf_pool_alloc(&ml->ms->mf, sizeof *m);
	struct mf_map_entry *e = m ? etl__mf_pool_alloc(&ml->ms->mf, names->n * sizeof *e) : NULL;
	if (!e)
		return nomem(ml);
	m->name = p->name;
	m->is_bitmap = bits || (vt && etl__mofp_name_eq(vt, "flag"));
	m->e = e;
	for (uint32_t i = 0; i < names->n; i++) {
		if (names->v[i].type != MOFV_STR)
			continue;
		uint64_t v = i;
		if (vals) {
			const struct mofp_val *x = &vals->v[i];
			char *end = NULL;
			if (x->type == MOFV_INT)
				v = (uint64_t)x->i;
			else if (x->type != MOFV_STR || ((v = strtoull(x->s, &end, 0)), end == x->s || *end))
				continue;               /* a range or a name: not a value */
		}
		if (bits && v > 63)
			continue;
		e[m->n].value = bits ? (uint64_t)1 << v : v;
		e[m->n].message = names->v[i].s;
		m->n++;
	}
	f->map = m;
	return ETL_OK;
}

/* The count= / length= of an array property: a literal from name[n] or
 * MAX(n), or the earlier property WmiSizeIs names. */
static int array_ref(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *const *props,
                     size_t idx, struct mf_ref *r)
{
	const struct mofp_prop *p = props[idx];
	const char *size_is = qstr(pq(p, "WmiSizeIs"));
	int64_t n = p->array;
	if (size_is) {
		for (size_t j = 0; j < idx; j++) {
			if (!etl__mofp_name_eq(props[j]->name, size_is))
				continue;
			if (props[j]->array != MOFP_NOT_ARRAY || !int_type(props[j]->type))
				return bad(ml, c, p, "WmiSizeIs(\"%s\") does not name an integer", size_is);
			r->kind = 3;
			r->v = (uint32_t)j;
			return ETL_OK;
		}
		return bad(ml, c, p, "WmiSizeIs(\"%s\") does not name an earlier property", size_is);
	}
	if (n == MOFP_ARRAY_OPEN && !qint(pq(p, "MAX"), &n))
		return bad(ml, c, p, "array without a size: give name[N], MAX(N) or WmiSizeIs(\"Count\")");
	if (n < 0 || n > (int64_t)ETL_DEC_MAX_PROPS)
		return bad(ml, c, p, "array size %lld out of range", (long long)n);
	r->kind = 1;
	r->v = (uint32_t)n;
	return ETL_OK;
}

/* The in-type and string rules of a string property. */
static int string_type(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *p, struct mf_field *f)
{
	const char *fmt = qstr(pq(p, "Format"));
	const char *ext = qstr(pq(p, "Extension"));
	const char *term = qstr(pq(p, "StringTermination"));
	int wide = (fmt && etl__mofp_name_eq(fmt, "w")) || (ext && etl__mofp_name_eq(ext, "RWString"));
	if (!term || etl__mofp_name_eq(term, "NullTerminated"))
		f->in_type = wide ? ETL_IN_UNICODESTRING : ETL_IN_ANSISTRING;
	else if (etl__mofp_name_eq(term, "Counted"))
		f->in_type = wide ? ETL_IN_COUNTEDSTRING : ETL_IN_COUNTEDANSISTRING;
	else if (etl__mofp_name_eq(term, "ReverseCounted"))
		f->in_type = wide ? MF_IN_RCOUNTED_STRING : MF_IN_RCOUNTED_ANSISTRING;
	else if (etl__mofp_name_eq(term, "NotCounted"))
		f->in_type = wide ? MF_IN_REST_STRING : MF_IN_REST_ANSISTRING;
	else
		return bad(ml, c, p, "unknown StringTermination(\"%s\")", term);
	return ETL_OK;
}

/* The layout of an object property, by its Extension. */
static int object_type(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *p, struct mf_field *f)
{
	static const struct { const char *ext; uint16_t in, out; } objs[] = {
		{ "Guid", ETL_IN_GUID, 0 },
		{ "IPAddr", ETL_IN_UINT32, ETL_OUT_IPV4 },
		{ "IPAddrV4", ETL_IN_UINT32, ETL_OUT_IPV4 },
		{ "IPAddrV6", ETL_IN_BINARY, ETL_OUT_IPV6 },
		{ "Port", ETL_IN_UINT16, ETL_OUT_PORT },
		{ "SizeT", MF_IN_SIZET, 0 },
		{ "Sid", MF_IN_WBEMSID, 0 },
		{ "WmiTime", ETL_IN_UINT64, 0 },
		{ "RString", ETL_IN_ANSISTRING, 0 },
		{ "RWString", ETL_IN_UNICODESTRING, 0 },
	};
	const char *ext = qstr(pq(p, "Extension"));
	if (!ext)
		return bad(ml, c, p, "object without an Extension qualifier");
	for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
		if (etl__mofp_name_eq(objs[i].ext, ext)) {
			f->in_type = objs[i].in;
			f->out_type = objs[i].out;
			if (objs[i].in == ETL_IN_BINARY) {      /* IN6_ADDR: 16 bytes */
				f->length.kind = 1;
				f->length.v = 16;
			}
			return ETL_OK;
		}
	}
	return bad(ml, c, p, "Extension(\"%s\") is not supported", ext);
}

/* The schema field of property props[idx]. */
static int compile_prop(struct mload *ml, const struct mofp_class *c, const struct mofp_prop *const *props,
                        size_t idx, struct mf_field *f)
{
	const struct mofp_prop *p = props[idx];
	const char *fmt = qstr(pq(p, "Format"));
	const char *ext = qstr(pq(p, "Extension"));
	const struct int_type *it = int_type(p->type);
	int is_array = p->array != MOFP_NOT_ARRAY;
	int rc = ETL_OK;
	f->name = p->name;
	if (p->is_ref)
		return bad(ml, c, p, "references are not event data");
	if (qflag(pq(p, "Pointer")) || qflag(pq(p, "PointerType"))) {
		f->in_type = ETL_IN_POINTER;
	} else if (ext && etl__mofp_name_eq(ext, "Guid") && it && it->width == 1) {
		f->in_type = ETL_IN_GUID;               /* uint8 Id[16], Extension("Guid") */
		is_array = 0;
	} else if (it) {
		int hex = (fmt && etl__mofp_name_eq(fmt, "x")) || qflag(pq(p, "DisplayInHex"));
		f->in_type = it->in;
		if (is_array && (etl__mofp_name_eq(p->type, "char16") || (it->width == 1 && fmt &&
		                                                          etl__mofp_name_eq(fmt, "s")))) {
			/* Characters, NUL-padded: a string of that many. */
			f->in_type = it->width == 2 ? ETL_IN_UNICODESTRING : ETL_IN_ANSISTRING;
			return array_ref(ml, c, props, idx, &f->length);
		}
		if (etl__mofp_name_eq(p->type, "char16") || (it->width == 1 && fmt && etl__mofp_name_eq(fmt, "c")))
			f->out_type = ETL_OUT_STRING;
		else if (hex)
			f->out_type = it->width == 1 ? ETL_OUT_HEXINT8 : it->width == 2 ? ETL_OUT_HEXINT16
			            : it->width == 4 ? ETL_OUT_HEXINT32 : ETL_OUT_HEXINT64;
		else if (ext && it->width == 4 && etl__mofp_name_eq(ext, "IPAddr"))
			f->out_type = ETL_OUT_IPV4;
		else if (ext && it->width == 2 && etl__mofp_name_eq(ext, "Port"))
			f->out_type = ETL_OUT_PORT;
		else if (it->width == 8 && qflag(pq(p, "WmiTimeStamp")))
			f->in_type = ETL_IN_FILETIME;
		rc = make_map(ml, c, p, f);
	} else if (etl__mofp_name_eq(p->type, "boolean")) {
		f->in_type = ETL_IN_BOOLEAN;
	} else if (etl__mofp_name_eq(p->type, "real32")) {
		f->in_type = ETL_IN_FLOAT;
	} else if (etl__mofp_name_eq(p->type, "real64")) {
		f->in_type = ETL_IN_DOUBLE;
	} else if (etl__mofp_name_eq(p->type, "string")) {
		rc = string_type(ml, c, p, f);
	} else if (etl__mofp_name_eq(p->type, "object")) {
		rc = object_type(ml, c, p, f);
	} else {
		return bad(ml, c, p, "type %s is not supported in event data", p->type);
	}
	if (rc == ETL_OK && is_array)
		rc = array_ref(ml, c, props, idx, &f->count);
	return rc;
}

/* ---- event type classes ------------------------------------------------ */

static int add_schema(struct mload *ml, struct mf_event *e)
{
	if (ml->n_ev == ml->cap_ev) {
		size_t cap = ml->cap_ev ? ml->cap_ev * 2 : 16;
		struct mf_event **v = realloc(ml->ev, cap * sizeof *v);
		if (!v)
			return nomem(ml);
		ml->ev = v;
		ml->cap_ev = cap;
	}
	ml->ev[ml->n_ev++] = e;
	return ETL_OK;
}

/* The schemas of event type class c (it has an EventType qualifier). */
static int compile_class(struct mload *ml, const struct mofp_class *c)
{
	const struct mofp_qual *types = etl__mofp_qual(c->q, c->nq, "EventType");
	const struct mofp_qual *names = etl__mofp_qual(c->q, c->nq, "EventTypeName");
	const struct mofp_class *chain[MOF_MAX_DEPTH];
	size_t n_chain = 0;
	struct etl_guid g;
	int rc = class_chain(ml, c, chain, &n_chain, &g);
	if (rc != ETL_OK)
		return rc;
	const struct mofp_class *ec = chain[n_chain - 1];       /* the event class */
	int version = 0;
	int has_v = class_version(ec, &version);
	if (has_v < 0)
		return bad(ml, ec, NULL, "EventVersion is not a number from 0 to 255");
	if (!has_v)
		version = latest_version(ml, &g);
	if (!types->n)
		return bad(ml, c, NULL, "EventType without a value");

	const struct mofp_prop **props = NULL;
	size_t np = 0;
	/* The event class's own properties are not event data; a class
	 * with both the Guid and EventType gives its own. */
	rc = gather_props(ml, chain, n_chain > 1 ? n_chain - 1 : 1, &props, &np);
	if (rc != ETL_OK)
		return rc;
	struct mf_template *t = etl__mf_pool_alloc(&ml->ms->mf, sizeof *t);
	struct mf_field *fields = t && np ? etl__mf_pool_alloc(&ml->ms->mf, np * sizeof *fields) : NULL;
	struct mf_provider *prov = t ? etl__mf_pool_alloc(&ml->ms->mf, sizeof *prov) : NULL;
	if (!t || !prov || (np && !fields)) {
		free(props);
		return nomem(ml);
	}
	for (size_t i = 0; i < np && rc == ETL_OK; i++)
		rc = compile_prop(ml, c, props, i, &fields[i]);
	free(props);
	if (rc != ETL_OK)
		return rc;
	t->tid = c->name;
	t->fields = fields;
	t->n_fields = np;
	prov->name = ec->name;
	prov->guid = g;

	for (uint32_t k = 0; k < types->n; k++) {
		if (types->v[k].type != MOFV_INT || types->v[k].i < 0 || types->v[k].i > 255)
			return bad(ml, c, NULL, "EventType values are numbers from 0 to 255");
		struct mf_event *e = etl__mf_pool_alloc(&ml->ms->mf, sizeof *e);
		if (!e)
			return nomem(ml);
		const char *tn = NULL;
		if (names && k < names->n && names->v[k].type == MOFV_STR)
			tn = names->v[k].s;
		e->guid = g;
		e->id = (uint16_t)types->v[k].i;
		e->version = (uint8_t)version;
		e->prov = prov;
		e->symbol = tn ? tn : c->name;
		e->opcode_text = tn;
		e->tmpl = t;
		if ((rc = add_schema(ml, e)) != ETL_OK)
			return rc;
	}
	return ETL_OK;
}

/* Compiles the classes of this call and adds their schemas (all or none). */
static int compile_call(struct mload *ml)
{
	int rc = collect_versions(ml);
	for (size_t i = ml->first_cls; i < ml->ms->n_cls && rc == ETL_OK; i++) {
		const struct mofp_class *c = ml->ms->cls[i];
		if (etl__mofp_qual(c->q, c->nq, "EventType"))
			rc = compile_class(ml, c);
	}
	for (size_t i = 0; i < ml->n_ev && rc == ETL_OK; i++)
		if (!etl__mf_set_add_event(&ml->ms->mf, ml->ev[i]))
			rc = nomem(ml);
	if (ml->ms->mf.n_events)
		etl__mf_set_index(&ml->ms->mf);
	return rc;
}

/* ---- files ------------------------------------------------------------ */

static int parse_into(void *ctx, const char *name, const char *text, size_t len)
{
	struct mload *ml = ctx;
	const struct mofp_class *cls;
	uint32_t n;
	char err[256];
	/* The file name lives in the pool, as the classes that name it do. */
	size_t nl = strlen(name);
	char *file = etl__mf_pool_alloc(&ml->ms->mf, nl + 1);
	if (!file)
		return nomem(ml);
	memcpy(file, name, nl + 1);
	int rc = etl__mofp_parse(text, len, file, pool_alloc, &ml->ms->mf, &cls, &n, err, sizeof err);
	if (rc == ETL_FATAL)
		return nomem(ml);
	if (rc != ETL_OK) {
		etl__dec_set_error(ml->d, ETL_E_BAD_VALUE, "%s:%s", name, err);
		return ETL_FAILED;
	}
	if (ml->ms->n_cls + n > ml->ms->cap_cls) {
		size_t cap = ml->ms->cap_cls ? ml->ms->cap_cls : 64;
		while (cap < ml->ms->n_cls + n)
			cap *= 2;
		const struct mofp_class **v = realloc(ml->ms->cls, cap * sizeof *v);
		if (!v)
			return nomem(ml);
		ml->ms->cls = v;
		ml->ms->cap_cls = cap;
	}
	for (uint32_t i = 0; i < n; i++)
		ml->ms->cls[ml->ms->n_cls++] = &cls[i];
	return ETL_OK;
}

static int load_one(etl_decoder *d, void *ctx, const char *file)
{
	return etl__dec_load_file(d, file, MOF_FILE_MAX_BYTES, "MOF", parse_into, ctx);
}

/* One call: files (or text) parsed by parse, then compiled. */
static int add_call(etl_decoder *d, const char *path, const char *name, const char *text, size_t len)
{
	struct mload ml;
	memset(&ml, 0, sizeof ml);
	ml.d = d;
	ml.ms = etl__moffile_set(d, 1);
	if (!ml.ms)
		return nomem(&ml);
	ml.first_cls = ml.ms->n_cls;
	int rc;
	if (path) {
		static const char *const suffixes[] = { ".mof", NULL };
		rc = etl__dec_load_path(d, path, suffixes, "*.mof", load_one, &ml);
	} else {
		rc = parse_into(&ml, name, text, len);
	}
	if (rc == ETL_OK)
		rc = compile_call(&ml);
	if (rc != ETL_OK)
		ml.ms->n_cls = ml.first_cls;        /* the pool keeps what was parsed */
	free(ml.ev);
	free(ml.vguid);
	free(ml.vver);
	return rc;
}

int etl__mof_parse_text(etl_decoder *d, const char *name, const char *text, size_t len)
{
	if (!d)
		return ETL_FAILED;
	return add_call(d, NULL, name ? name : "MOF", text ? text : "", text ? len : 0);
}

int etl_decoder_add_mof(etl_decoder *d, const char *path)
{
	if (!d)
		return ETL_FAILED;
	if (!path) {
		etl__dec_set_error(d, ETL_E_MISUSE, "no MOF path given");
		return ETL_FAILED;
	}
	return add_call(d, path, NULL, NULL, 0);
}

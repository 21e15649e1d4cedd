/*
 * lib/decode/xml_lib.c - libxml2 loaded with dlopen() the first time a
 * manifest is loaded, into the table of functions the manifest loader
 * (lib/decode/manifest_load.c) calls.
 *
 * Why: a process linked with libxml2 also loads ICU, libstdc++ and liblzma
 * at start-up, close to a millisecond before main(); on small traces that
 * was a third of a tool's run, paid even when no manifest is loaded.
 *
 * The file dlopen()ed is the SONAME of the libxml2 the build compiled
 * against (ETL_XML_SONAME, found by the Makefile), so the headers and the
 * library agree. The table is filled once under pthread_once(), then
 * xmlInitParser() runs (libxml2 must be initialised before threads parse
 * at the same time); the library is never closed. A failure is kept with
 * its dlerror() text and reported through the decoder's error at each load.
 */
#define ETL_BUILDING_LIB 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "lib/decode/decode_internal.h"
#include "lib/decode/xml_lib.h"

#ifndef ETL_XML_SONAME
#define ETL_XML_SONAME "libxml2.so.2"
#endif

#define XML_ERR_MAX 200

/* One entry per libxml2 symbol: its name and the table slot dlsym() fills. */
#define XML_SYMBOLS(X) \
	X(NewParserCtxt) X(FreeParserCtxt) X(CtxtReadFile) X(CtxtReadMemory) \
	X(CtxtGetLastError) X(FreeDoc) X(DocGetRootElement) X(GetProp) \
	X(GetLineNo) X(Free)

/* Loads soname into *t and initialises the parser. Returns 1, or 0 with
 * the reason in err (the library is closed again). */
static int xml_open(const char *soname, struct etl__xml_fns *t, char *err, size_t n)
{
	/* Lazy binding, as when libxml2 was linked: binding all of libxml2's
	 * and ICU's symbols at once (RTLD_NOW) made the first load about a
	 * quarter slower (some 1.5 ms against 1.2 ms). */
	void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(err, n, "cannot load libxml2 (%s) to read manifests: %s", soname, e ? e : "unknown error");
		return 0;
	}
	void (*init)(void) = (void (*)(void))dlsym(h, "xmlInitParser");
	int found = init != NULL;
#define XML_SYM(name) \
	if (found) \
		found = (t->name = (__typeof__(t->name))dlsym(h, "xml" #name)) != NULL;
	XML_SYMBOLS(XML_SYM)
#undef XML_SYM
	if (!found) {   /* dlerror() names the first missing symbol */
		const char *e = dlerror();
		snprintf(err, n, "libxml2 (%s) lacks functions manifests need: %s", soname, e ? e : "unknown error");
		dlclose(h);
		return 0;
	}
	init();
	return 1;
}

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static struct etl__xml_fns xml_fns;
static int xml_ok;
static char xml_err[XML_ERR_MAX];

static void xml_load_once(void)
{
	xml_ok = xml_open(ETL_XML_SONAME, &xml_fns, xml_err, sizeof xml_err);
}

static _Atomic(const char *) test_soname;

void etl__xml_lib_test_soname(const char *soname)
{
	atomic_store(&test_soname, soname);
}

const struct etl__xml_fns *etl__xml_lib(etl_decoder *d, const char *what)
{
	const char *soname = atomic_load(&test_soname);
	if (soname) {   /* tests only: no cache, no concurrency */
		static struct etl__xml_fns test_fns;
		static char test_err[XML_ERR_MAX];
		if (xml_open(soname, &test_fns, test_err, sizeof test_err))
			return &test_fns;
		etl__dec_set_error(d, ETL_E_UNSUPPORTED, "%s: %s", what, test_err);
		return NULL;
	}
	pthread_once(&xml_once, xml_load_once);
	if (xml_ok)
		return &xml_fns;
	etl__dec_set_error(d, ETL_E_UNSUPPORTED, "%s: %s", what, xml_err);
	return NULL;
}

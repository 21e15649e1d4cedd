/*
 * lib/decode/xml_lib.h - libxml2, loaded with dlopen() the first time a
 * manifest is loaded (lib/decode/xml_lib.c).
 *
 * No libetl tool nor libetl.so links libxml2: linking it costs every
 * process its start-up (libxml2 pulls in ICU, libstdc++ and liblzma), and
 * only the manifest loader (lib/decode/manifest_load.c) needs it. The
 * headers are still libxml2's own, so types and node fields stay as they
 * are; only the calls go through the table below.
 */
#ifndef ETL_DECODE_XML_LIB_H
#define ETL_DECODE_XML_LIB_H

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "etl_decode.h"

/* The libxml2 functions the manifest loader calls, each with the type the
 * headers give it (so a libxml2 whose prototypes differ keeps compiling
 * against the right ones). */
struct etl__xml_fns {
	__typeof__(xmlNewParserCtxt)     *NewParserCtxt;
	__typeof__(xmlFreeParserCtxt)    *FreeParserCtxt;
	__typeof__(xmlCtxtReadFile)      *CtxtReadFile;
	__typeof__(xmlCtxtReadMemory)    *CtxtReadMemory;
	__typeof__(xmlCtxtGetLastError)  *CtxtGetLastError;
	__typeof__(xmlFreeDoc)           *FreeDoc;
	__typeof__(xmlDocGetRootElement) *DocGetRootElement;
	__typeof__(xmlGetProp)           *GetProp;
	__typeof__(xmlGetLineNo)         *GetLineNo;
	/* libxml2 exports xmlFree as a variable holding the free function (an
	 * application may change it with xmlMemSetup): this is its address,
	 * read at each call: (*x->Free)(p). */
	xmlFreeFunc *Free;
};

/* The table, after loading libxml2 and running xmlInitParser() once per
 * process (thread-safe: etlconvert -j loads manifests in several threads).
 * When libxml2 cannot be loaded, returns NULL after setting d's error
 * (ETL_E_UNSUPPORTED, "WHAT: cannot load libxml2 (SONAME) ...: dlerror()");
 * every later call fails the same way. The table lives as long as the
 * process. */
const struct etl__xml_fns *etl__xml_lib(etl_decoder *d, const char *what);

/* Tests only: while soname is not NULL, etl__xml_lib() loads that library
 * instead, at every call and without caching, so that a test can see the
 * failure of a missing library or of one without libxml2's functions, then
 * go back to the real libxml2 with NULL. Not for concurrent use. */
void etl__xml_lib_test_soname(const char *soname);

#endif

/*
 * etl_decode.h - turning an event's payload into named, typed properties.
 *
 * Basic outline:
 *
 *     etl_decoder *d = etl_decoder_new();
 *     etl_decoder_add_manifest(d, "provider.man");      // optional, repeatable
 *     ...
 *     const struct etl_decoded *dec;
 *     int st = etl_decoder_decode(d, ev, &dec);         // ev from etl_reader_next()
 *     // st == ETL_OK: dec->props[] holds the payload's properties;
 *     // otherwise dec->error says why and dec->props is empty: the raw
 *     // payload (ev->payload) is still there to be shown in hex.
 *     etl_decoder_free(d);
 *
 * Properties form a tree kept in one flat array: a property's children
 * (struct members, array elements) follow it at props[first_child ..
 * first_child + n_children), and top-level properties have parent ==
 * ETL_PROP_NO_PARENT. Array elements are named like their array.
 *
 * Schemas are cached: by (provider, event id, version) for manifest and
 * classic events, by the metadata bytes for TraceLogging, so decoding a
 * million events of one kind costs one schema parse.
 *
 * Dispatch (doc/decoding.md §1), in this order: an EVENT_HEADER event with an
 * EVENT_SCHEMA_TL extended item is TraceLogging; system-style, FULL and
 * INSTANCE events of a built-in kernel/classic class are MOF
 * (lib/decode/mof_kernel_classes.c, and the records a trace merge adds:
 * lib/decode/mof_merged_classes.c), else of a class loaded from a .mof file
 * (etl_decoder_add_mof()); other EVENT_HEADER events use a loaded
 * manifest (etl_decoder_add_manifest()), else the schema the trace itself
 * carries in EventMetadata records (below). Every event without a schema
 * fails with errcode ETL_E_UNSUPPORTED and the error
 * "no schema for this event: provider=GUID[ (name)], id=N, version=N".
 *
 * Merged traces (doc/decoding.md §10): xperf, WPR and PerfView add records
 * when they merge a trace for analysis elsewhere. Decoded with built-in
 * layouts (source ETL_DECODE_MOF): KernelTraceControl's ImageId (image
 * identity, PDB GUID/age/path, version resource strings), SystemConfigEx
 * (build, system paths, volume mapping), WinSat (its LZNT1-compressed XML
 * shown as text) and EventMetadata (the TRACE_EVENT_INFO and EVENT_MAP_INFO
 * blobs, as arrays of their entries). An EventMetadata record also teaches
 * the decoder the event it describes: later EVENT_HEADER events of that
 * (provider, id, version) decode as manifest events do (same rules, same
 * kinds; source ETL_DECODE_EVENT_METADATA) with the names of the blob.
 * A loaded manifest wins: it decodes every event it defines in that
 * version, and the older version it falls back to is used only when no
 * EventMetadata record describes the event's own version. The records come
 * before their events in time order (file order may differ); a decoder
 * handed an event before its record fails it as having no schema.
 *
 * TraceLogging (source ETL_DECODE_TRACELOGGING, doc/decoding.md §2):
 *   - provider_name comes from the PROV_TRAITS item (NULL without one),
 *     event_name and tags from the metadata; the level, opcode, task,
 *     channel and keyword names and message stay NULL;
 *   - in_type is the TlgIn type (0-25, equal to TDH's numbering); out_type
 *     is the TlgOut value mapped to TDH numbering (§2.6: HEX becomes
 *     HEXINT8..64 by size or HEXBINARY, SIGNED/UNSIGNED the sized TDH
 *     integer types, FILETIME DATETIME, NOPRINT 301); 0 means "default for
 *     the in-type", except that HEXINT32/HEXINT64 report HEXINT32/HEXINT64;
 *   - kinds: strings ETL_VAL_STRING (UTF-16 converted to UTF-8, unpaired
 *     surrogates as U+FFFD; 8-bit strings as CP1252 unless out_type is UTF8,
 *     XML or JSON, then UTF-8 with invalid bytes as U+FFFD); INT8..64
 *     ETL_VAL_INT; UINT8..64 and HEXINT32/64 ETL_VAL_UINT; BOOL32 and any
 *     integer with out_type BOOLEAN ETL_VAL_BOOL; FILETIME, and 64-bit
 *     integers with out_type DATETIME, ETL_VAL_FILETIME; SYSTEMTIME is
 *     converted to ETL_VAL_FILETIME, or kept as its 16 raw bytes
 *     (ETL_VAL_BINARY) when it is no valid date in 1601..30827; BINARY and
 *     COUNTEDBINARY ETL_VAL_BINARY; SID ETL_VAL_SID;
 *   - a NUL-terminated string that reaches the end of the payload without
 *     its NUL is taken whole; one with no byte left is a truncation;
 *   - Ccount/Vcount arrays are ETL_VAL_ARRAY (in_type/out_type of the
 *     element) whose children are the elements, named like the array. A
 *     char array (INT8/UINT8/UINT16 elements with out_type STRING) stays an
 *     array of integers: showing it as one string is up to the formatter;
 *   - structs are ETL_VAL_STRUCT (in_type ETL_IN_STRUCT) with the members
 *     as children; an array of structs has ETL_VAL_STRUCT elements;
 *   - custom fields (count kind 0x60) are ETL_VAL_BINARY (in_type BINARY,
 *     out_type HEXBINARY) read as a u16 byte count and the bytes;
 *   - with ETL_DECODE_PACKED_ARRAYS (etl_decoder_set_flags()), an array of
 *     integers whose bytes are all in the payload is ETL_VAL_ARRAY_PACKED;
 *   - top-level properties are props[0 .. number of top-level fields);
 *   - malformed metadata or a short payload fails the event (ETL_E_BAD_VALUE,
 *     ETL_E_BAD_SIZE, ETL_E_TRUNCATED; ETL_E_UNSUPPORTED for structs nested
 *     more than 32 deep) with a message naming the field and the offset.
 *     An event yields at most 262144 properties (ETL_E_BAD_SIZE beyond).
 */
#ifndef ETL_DECODE_H
#define ETL_DECODE_H

#include "etl_export.h"

#include <stddef.h>
#include <stdint.h>
#include "etl_errors.h"
#include "etl_event.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_decoder etl_decoder;

/* Where a schema came from (TDH's DECODING_SOURCE, plus NONE). */
enum etl_decode_source {
	ETL_DECODE_NONE = 0,        /* no schema: raw payload only            */
	ETL_DECODE_MANIFEST,        /* instrumentation manifest (XML or in-band EventSource) */
	ETL_DECODE_MOF,             /* classic / kernel class: built in, or
	                               loaded from a .mof file                */
	ETL_DECODE_WPP,             /* TMF                                     */
	ETL_DECODE_TRACELOGGING,    /* self-describing metadata (ext 0x0B)    */
	ETL_DECODE_EVENT_METADATA   /* the trace's own EventMetadata records
	                               (TRACE_EVENT_INFO of a merged trace)   */
};

/* How a property's value is held. */
enum etl_val_kind {
	ETL_VAL_NULL = 0,
	ETL_VAL_BOOL,               /* v.u: 0 or 1                              */
	ETL_VAL_INT,                /* v.i                                      */
	ETL_VAL_UINT,               /* v.u                                      */
	ETL_VAL_FLOAT,              /* v.f                                      */
	ETL_VAL_STRING,             /* v.str: UTF-8 (converted from UTF-16 or
	                               the 8-bit code page), not NUL-terminated  */
	ETL_VAL_BINARY,             /* v.bin: raw bytes                         */
	ETL_VAL_GUID,               /* v.guid                                   */
	ETL_VAL_FILETIME,           /* v.i: FILETIME (SYSTEMTIME is converted)  */
	ETL_VAL_SID,                /* v.bin: the SID bytes                     */
	ETL_VAL_STRUCT,             /* children are the members                 */
	ETL_VAL_ARRAY,              /* children are the elements                */
	ETL_VAL_ARRAY_PACKED        /* an array of integers kept as its bytes:
	                               only with ETL_DECODE_PACKED_ARRAYS (see
	                               etl_decoder_set_flags())                 */
};

/* TDH input types (win:* manifest types, TraceLogging in-types 0-25). */
enum etl_in_type {
	ETL_IN_NULL = 0, ETL_IN_UNICODESTRING = 1, ETL_IN_ANSISTRING = 2, ETL_IN_INT8 = 3,
	ETL_IN_UINT8 = 4, ETL_IN_INT16 = 5, ETL_IN_UINT16 = 6, ETL_IN_INT32 = 7, ETL_IN_UINT32 = 8,
	ETL_IN_INT64 = 9, ETL_IN_UINT64 = 10, ETL_IN_FLOAT = 11, ETL_IN_DOUBLE = 12,
	ETL_IN_BOOLEAN = 13, ETL_IN_BINARY = 14, ETL_IN_GUID = 15, ETL_IN_POINTER = 16,
	ETL_IN_FILETIME = 17, ETL_IN_SYSTEMTIME = 18, ETL_IN_SID = 19, ETL_IN_HEXINT32 = 20,
	ETL_IN_HEXINT64 = 21, ETL_IN_COUNTEDSTRING = 22, ETL_IN_COUNTEDANSISTRING = 23,
	ETL_IN_STRUCT = 24, ETL_IN_COUNTEDBINARY = 25
};

/* Output types that change how a value is shown (TDH_OUTTYPE numbering). */
enum etl_out_type {
	ETL_OUT_NULL = 0, ETL_OUT_STRING = 1, ETL_OUT_DATETIME = 2, ETL_OUT_BYTE = 3,
	ETL_OUT_UNSIGNEDBYTE = 4, ETL_OUT_SHORT = 5, ETL_OUT_UNSIGNEDSHORT = 6, ETL_OUT_INT = 7,
	ETL_OUT_UNSIGNEDINT = 8, ETL_OUT_LONG = 9, ETL_OUT_UNSIGNEDLONG = 10, ETL_OUT_FLOAT = 11,
	ETL_OUT_DOUBLE = 12, ETL_OUT_BOOLEAN = 13, ETL_OUT_GUID = 14, ETL_OUT_HEXBINARY = 15,
	ETL_OUT_HEXINT8 = 16, ETL_OUT_HEXINT16 = 17, ETL_OUT_HEXINT32 = 18, ETL_OUT_HEXINT64 = 19,
	ETL_OUT_PID = 20, ETL_OUT_TID = 21, ETL_OUT_PORT = 22, ETL_OUT_IPV4 = 23, ETL_OUT_IPV6 = 24,
	ETL_OUT_SOCKETADDRESS = 25, ETL_OUT_CIMDATETIME = 26, ETL_OUT_ETWTIME = 27, ETL_OUT_XML = 28,
	ETL_OUT_ERRORCODE = 29, ETL_OUT_WIN32ERROR = 30, ETL_OUT_NTSTATUS = 31, ETL_OUT_HRESULT = 32,
	ETL_OUT_CULTURE_INSENSITIVE_DATETIME = 33, ETL_OUT_JSON = 34, ETL_OUT_UTF8 = 35,
	ETL_OUT_PKCS7_WITH_TYPE_INFO = 36, ETL_OUT_CODE_POINTER = 37, ETL_OUT_DATETIME_UTC = 38,
	ETL_OUT_NOPRINT = 301
};

#define ETL_PROP_NO_PARENT UINT32_MAX

struct etl_prop {
	const char *name;           /* UTF-8, NUL-terminated                    */
	int kind;                   /* enum etl_val_kind                        */
	uint16_t in_type;           /* enum etl_in_type                         */
	uint16_t out_type;          /* enum etl_out_type (TDH numbering)        */
	union {
		int64_t i;
		uint64_t u;
		double f;
		struct etl_guid guid;
		struct { const char *s; size_t len; } str;
		struct { const uint8_t *p; size_t len; } bin;
	} v;
	const char *map_name;       /* value-map / bit-map text, or NULL        */
	uint32_t parent;            /* index, or ETL_PROP_NO_PARENT             */
	uint32_t first_child;       /* STRUCT / ARRAY: index of the first child */
	uint32_t n_children;
	uint32_t payload_offset;    /* where the value starts in ev->payload    */
};

struct etl_decoded {
	int source;                 /* enum etl_decode_source                   */
	const char *provider_name;  /* from the schema (TraceLogging traits,
	                               manifest, kernel class), or NULL         */
	const char *event_name;     /* TraceLogging event name, manifest
	                               symbol, or kernel class/opcode name      */
	const char *task_name, *opcode_name, *level_name, *channel_name;
	const char *keywords_name;  /* names of the set keyword bits, joined
	                               with spaces, or NULL                     */
	const char *message;        /* rendered message (%1 inserts filled), or
	                               NULL                                     */
	const struct etl_prop *props;
	uint32_t n_props;
	uint32_t tags;              /* TraceLogging event tags (28 bits)        */
	int status;                 /* ETL_OK, or ETL_FAILED with error set     */
	int errcode;                /* enum etl_errcode when status != ETL_OK   */
	const char *error;          /* why the payload could not be decoded     */
};

/*! etl_decoder_new() : @return : a decoder, or NULL on out-of-memory. */
ETL_API etl_decoder *etl_decoder_new(void);

/* Flags of etl_decoder_set_flags(). */
#define ETL_DECODE_PACKED_ARRAYS 0x1u  /* see etl_decoder_set_flags()       */

/*! etl_decoder_set_flags() : sets the decoder's flags (0 by default) for
 *  the events it decodes from now on.
 *  ETL_DECODE_PACKED_ARRAYS: a TraceLogging array of integers (INT8 ..
 *  HEXINT64, BOOL32, with any out_type), or a manifest array of integers
 *  or pointers without a value map (win:Int8 .. win:HexInt64, Pointer,
 *  Boolean, FILETIME), whose bytes are all in the payload comes as one
 *  property of kind ETL_VAL_ARRAY_PACKED instead of an ETL_VAL_ARRAY with
 *  one child per element (a character array holds one element per
 *  character, a stack one per frame, thousands per event, which the
 *  decoder would otherwise store one struct etl_prop each):
 *    - name, in_type, out_type, parent and payload_offset as the ARRAY's;
 *      n_children is the number of elements (at least 1), each of
 *      v.bin.len / n_children bytes (1, 2, 4 or 8), little-endian, at
 *      v.bin.p (in ev->payload);
 *    - exactly one child, props[first_child], is element 0 as the ARRAY
 *      would hold it; element k is that property with the value read from
 *      v.bin.p + k * size as element 0's is (INT sign-extended, BOOL 0 or
 *      1) and payload_offset + k * size;
 *    - etl_decoded_element() gives element k of either kind of array.
 *  Whatever etl_output_event() renders from such a result is the same
 *  bytes as from the unpacked one. A program that walks properties itself
 *  sets the flag only when it handles the kind.
 *  @return : ETL_OK; ETL_FAILED (nothing changed) when d is NULL or flags
 *  holds an unknown bit. */
ETL_API int etl_decoder_set_flags(etl_decoder *d, unsigned flags);

/*! etl_decoded_element() : element k of the array dec->props[i] (kind
 *  ETL_VAL_ARRAY or ETL_VAL_ARRAY_PACKED) copied into *out; a struct or
 *  array element keeps its first_child and n_children into dec->props.
 *  @return : ETL_OK; ETL_FAILED (*out untouched) when an argument is NULL,
 *  i is past dec->n_props or no array, k is not below its n_children, or
 *  its children lie outside dec->props; for a packed array also when its
 *  bytes are not n_children elements of 1, 2, 4 or 8 bytes or element 0
 *  is no integer (INT, UINT, BOOL, FILETIME). The writers of etl_output
 *  write such an array with no element. */
ETL_API int etl_decoded_element(const struct etl_decoded *dec, uint32_t i, uint32_t k, struct etl_prop *out);

/*! etl_decoder_free() : frees the decoder, its schema cache and every
 *  result it handed out. NULL is allowed. */
ETL_API void etl_decoder_free(etl_decoder *d);

/*! etl_decoder_decode() : decodes ev's payload.
 *  @return : ETL_OK with *out filled; ETL_FAILED when no schema fits or the
 *  payload does not match it (*out is still filled, with status, errcode and
 *  error set, props NULL and n_props 0, and whatever metadata names were
 *  found); ETL_FATAL only on out-of-memory (*out filled likewise, errcode
 *  ETL_E_NOMEM; the decoder stays usable). ETL_FAILED without touching
 *  *out when d or out is NULL.
 *  Ownership: *out and every string and property in it belong to the
 *  decoder and stay valid until the next etl_decoder_decode() or
 *  etl_decoder_free(); v.str / v.bin may point into ev->payload. */
ETL_API int etl_decoder_decode(etl_decoder *d, const struct etl_event *ev, const struct etl_decoded **out);

/*! etl_decode_source_name() : the name of a source (enum etl_decode_source):
 *  "none", "manifest", "MOF", "WPP", "TraceLogging", "EventMetadata";
 *  "unknown" for other values. Static text. */
ETL_API const char *etl_decode_source_name(int source);

/*! etl_decoder_schema_event() : 1 when ev carries schemas the decoder
 *  learns for later events (the EventMetadata records of a merged trace,
 *  an EventSource's ManifestData event), else 0. A program that leaves
 *  events out (filters) should still hand these to etl_decoder_decode(),
 *  or the events they describe stay undecoded. */
ETL_API int etl_decoder_schema_event(const struct etl_event *ev);

/*! etl_decoder_errmsg() : sentence describing the last failure of a
 *  function that loads schemas (add_manifest, add_tmf, add_mof). */
ETL_API const char *etl_decoder_errmsg(const etl_decoder *d);

/*! etl_decoder_errcode() : reason (enum etl_errcode) of the last failure
 *  of a function that loads schemas, the one etl_decoder_errmsg()
 *  describes: ETL_E_IO when the path cannot be read, ETL_E_BAD_VALUE for
 *  invalid content (the message names FILE:LINE), ETL_E_NOT_FOUND for a
 *  directory without such files, ETL_E_LIMIT for a file over 64 MiB,
 *  ETL_E_MISUSE for a NULL path, ETL_E_NOMEM when memory is short;
 *  ETL_E_NONE if none failed yet. A later success leaves it as it is. An
 *  event that fails to decode reports its reason in its result (struct
 *  etl_decoded.errcode), not here. ETL_E_MISUSE when d is NULL. */
ETL_API int etl_decoder_errcode(const etl_decoder *d);

/*! etl_decoder_add_manifest() : loads instrumentation manifest XML
 *  (doc/decoding.md §3) into d: a file, or a directory whose every *.man and
 *  *.xml file is loaded (in name order). Repeatable; the first definition
 *  of a (provider GUID, event id, version) wins. External entities and
 *  network access are never used; files over 64 MiB are refused.
 *  Manifest events (source ETL_DECODE_MANIFEST): EVENT_HEADER events
 *  without an EVENT_SCHEMA_TL item are looked up by (provider, id,
 *  version); when the provider defines the id but not that version, the
 *  highest defined version below it is used (newer versions append fields);
 *  the payload bytes its template does not read (the appended fields) are
 *  then the last top-level property, "ExtraData" (ETL_VAL_BINARY, in_type
 *  BINARY, out_type HEXBINARY; after any struct or array children). With
 *  the exact version, trailing payload bytes are ignored, except that a
 *  last top-level field that is an array of a literal count of integers or
 *  pointers takes the whole elements left (CLRStackWalk's Stack, declared
 *  count="2", holds FrameCount frames). Without a
 *  definition (no version of that id at or below the event's) the event
 *  fails with the "no schema for this event" error above. Results:
 *    - provider_name from the provider element; event_name is the event's
 *      symbol, else "Task/Opcode" by name (or the task); task, opcode,
 *      level and channel names are their rendered texts as RenderingInfo
 *      shows them: the element's message ($(string.X) resolved) when the
 *      manifest gives one, winmeta's text for predefined values
 *      ("Information" for win:Informational, "Info" for win:Info), else
 *      the name; keywords_name the provider keywords whose mask bits are
 *      all set in ev->keyword, each by its message (by name when it has
 *      none or the message holds a space), else the event's keywords
 *      attribute;
 *    - message: the event message ($(string.X) resolved through the en-US
 *      string table, else the first) with %1..%n replaced by the text of
 *      the top-level properties (mapped text when there is one; %n!fmt!
 *      applies a printf conversion: s, d, i, u, x, X, o, c with flags,
 *      width and precision), %n newline, %t tab, %r CR, %0 end, %% %;
 *    - kinds as for TraceLogging; win:Boolean is 4 bytes, win:Pointer
 *      ev->ptr_size; strings with length= are that many characters cut at
 *      the first NUL, otherwise NUL-terminated; AnsiString is Latin-1
 *      (UTF-8 for out-types Utf8/Xml/Json); Binary needs length= (16 bytes
 *      for out-type IPv6); SYSTEMTIME as for TraceLogging;
 *      count= makes an ETL_VAL_ARRAY; struct members are children of an
 *      ETL_VAL_STRUCT; map= sets map_name (value maps: the entry's text;
 *      bit maps: texts of the set bits joined with "|");
 *    - a payload shorter than the template fails the event (ETL_E_TRUNCATED,
 *      naming the field and offset).
 *  Note: loaded manifests live in the schema cache; should the cache be
 *  flushed (over 64 MiB of TraceLogging schemas) they must be added again.
 *  @return : ETL_OK; ETL_FAILED with etl_decoder_errmsg() naming the file
 *  and line ("FILE:LINE: reason") for unreadable or invalid manifests (the
 *  events of a failed file are not added); ETL_FAILED with errcode
 *  ETL_E_UNSUPPORTED when libxml2, which the library loads on the first
 *  manifest rather than linking it, cannot be loaded (the message names the
 *  library and the reason); ETL_FATAL on out-of-memory. */
ETL_API int etl_decoder_add_manifest(etl_decoder *d, const char *path);

/*! etl_decoder_add_tmf() : loads WPP trace message format files
 *  (doc/decoding.md §5.2) into d: a .tmf file, or a directory whose every *.tmf
 *  file is loaded (in name order). Repeatable; the first definition of a
 *  (message GUID, message number) wins. Files over 64 MiB are refused.
 *  Accepted syntax, one item per line: `//` comment lines; the GUID line
 *  `<message GUID> <component> [// SRC=...]`, which applies to the messages
 *  after it; `#typev <file_line> <number> "<format>" [// LEVEL=.. FLAGS=..
 *  FUNC=..]`, optionally followed by `{`, one `<name>, Item<Type> -- <N>`
 *  line per argument (in payload order) and `}`; other `#` directives
 *  (with their `{ }` block) are skipped.
 *  Item types: ItemChar, ItemUChar, ItemShort, ItemUShort, ItemLong,
 *  ItemULong, ItemULongX, ItemLongLong, ItemLongLongX, ItemLongLongXX,
 *  ItemLongLongO, ItemULongLong, ItemULongLongX, ItemULongLongXX, ItemPtr
 *  (ev->ptr_size bytes), ItemString (8-bit, Latin-1, NUL-terminated),
 *  ItemWString (UTF-16, NUL-terminated), ItemPString / ItemPWString (u16
 *  byte count + chars), ItemGuid, ItemNTSTATUS, ItemHRESULT, ItemWINERROR
 *  (4 bytes), ItemDouble, ItemIPAddr (4 bytes), ItemPort (2 bytes, network
 *  order), ItemEnum(Name) (4 bytes, shown as a number) and
 *  ItemListByte/Short/Long(a,b=5,c) (1/2/4 bytes; the value's name is the
 *  property's map_name).
 *  WPP events (source ETL_DECODE_WPP): MESSAGE events are looked up by
 *  (ev->provider = message GUID, ev->id = message number); without a
 *  definition (or without a message GUID) the event fails with the "no
 *  schema for this event" error above. Results:
 *    - one top-level property per argument, named by the TMF argument
 *      expression, in TMF order; kinds as for manifests (ItemNTSTATUS,
 *      ItemHRESULT, ItemWINERROR, ItemIPAddr, ItemPort carry the matching
 *      out_type; ItemULongX / ...X hex out-types);
 *    - then the standard prefix fields as top-level properties named as
 *      TDH names WPP properties, each only when known: SequenceNum (u32,
 *      when the record has a sequence number), FunctionName (FUNC=),
 *      ComponentName (COMPNAME=, else the GUID line's component),
 *      SubComponentName (SUBCOMP=), GuidTypeName (the file_line),
 *      FlagsName (FLAGS=), LevelName (LEVEL=), and Prefix: tracefmt's
 *      default prefix "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]" rendered,
 *      e.g. "[1]04D2.1A2B::02/17/2020-12:48:30.123 [comp]". A prefix
 *      property is left out when an argument has its name;
 *    - provider_name is the GUID line's component, event_name the FUNC=
 *      value (else the file_line), level_name the LEVEL= value,
 *      keywords_name the FLAGS= value;
 *    - message: the format string alone (no tracefmt prefix): %0 removed,
 *      %% a percent sign, %N or %N!fmt! the argument whose index is N
 *      (printf conversions d i u x X o c s S p e f g, with flags, width,
 *      precision; length modifiers h l ll I64 I32 w are accepted and
 *      ignored, integers are converted at the argument's size), without
 *      such an argument %1..%9 are tracefmt's prefix fields (component,
 *      file_line, thread id, time, kernel time, user time, sequence,
 *      process id, CPU; the time as MM/DD/YYYY-HH:MM:SS.mmm in UTC, or the
 *      raw timestamp when the event has no UTC time); %!NAME! is the NAME=
 *      value of the #typev comment (%!COMPNAME! defaults to the component,
 *      %!FILE! to the GUID line's SRC= value, %!LINE! to the digits that
 *      end the file_line). Default texts: integers in decimal,
 *      X types 0x-hex, ItemPtr and %p 0x-less zero-padded upper-case hex
 *      (with 0x when shown without %p), status codes 0x%08X, IP addresses
 *      dotted, GUIDs lower-case without braces, doubles %g, list values
 *      their name;
 *    - an argument blob shorter than the argument list fails the event
 *      (ETL_E_TRUNCATED, naming the argument and offset); a NUL-terminated
 *      string reaching the end of the blob without its NUL is taken whole;
 *      trailing bytes are ignored.
 *  @return : ETL_OK; ETL_FAILED with etl_decoder_errmsg() naming the file
 *  and line ("FILE:LINE: reason") for unreadable or invalid files (the
 *  messages of a failed file are not added); ETL_FATAL on out-of-memory. */
ETL_API int etl_decoder_add_tmf(etl_decoder *d, const char *path);

/*! etl_decoder_add_mof() : loads the classic (MOF) event classes of .mof
 *  files (doc/decoding.md §4.5) - the MOF text mofcomp compiles - into d:
 *  a file, or a directory whose every *.mof file is loaded (in name order),
 *  parsed by libetl itself (nothing is compiled or registered on the
 *  machine). Repeatable; a class may derive from a class of an earlier
 *  call; the first definition of a (class GUID, event type, version) wins.
 *  Files over 64 MiB are refused; the text is UTF-8 (UTF-16 files are
 *  refused: convert them).
 *  What is read: classes declared with qualifiers ([Guid("{...}"),
 *  EventVersion(n)], [EventType(n)] or [EventType{n, m}],
 *  [EventTypeName("Start")] or {"Start", "End"}) and their parent, and
 *  their properties with type, array size and qualifiers; #pragma lines,
 *  comments, instance and qualifier declarations, methods, default values
 *  and flavors are skipped. A class with EventType gives the schema of
 *  those event types: GUID and version from the nearest class up its
 *  parents that has a Guid (its own first); a class without EventVersion
 *  is the latest version: one above the highest EventVersion of that GUID
 *  (0 if none). Its properties (and those of its parents below that class)
 *  with WmiDataId, in WmiDataId order, are the payload:
 *    - sint8..uint64 (Format("x") or DisplayInHex: hex out-types;
 *      Format("c") on 8-bit: a character), char16 (a UTF-16 character),
 *      boolean (4 bytes), real32, real64; Pointer or PointerType:
 *      ev->ptr_size bytes in hex; WmiTimeStamp on 64-bit: FILETIME;
 *      Extension("IPAddr") on uint32 and ("Port") on uint16 as for
 *      objects; ValueMap/Values (ValueType("flag") for bits) and
 *      BitMap/BitValues set map_name;
 *    - string: 8-bit (CP1252), UTF-16 with Format("w"); StringTermination
 *      NullTerminated (default), Counted (u16 byte count), ReverseCounted
 *      (big-endian u16 byte count) or NotCounted (the rest of the payload);
 *    - object with Extension Guid (16 bytes), IPAddr / IPAddrV4 (4 bytes,
 *      out-type IPV4), IPAddrV6 (16 bytes, IPV6), Port (u16, PORT),
 *      SizeT (ev->ptr_size bytes, decimal, in_type UINT32/UINT64), Sid
 *      (WBEMSID: ETL_VAL_SID, ETL_VAL_NULL when the event has none),
 *      WmiTime (u64 timestamp, as it is), RString, RWString; uint8
 *      X[16] with Extension("Guid") is a GUID;
 *    - arrays: name[N] or MAX(N) for N elements, WmiSizeIs("Count") for
 *      the value of an earlier integer property; char16 arrays, and 8-bit
 *      arrays with Format("s"), are strings of that many characters cut
 *      at the first NUL; other arrays are ETL_VAL_ARRAY.
 *  Unsupported types (datetime, embedded classes, references, other
 *  Extensions) and malformed text fail the load.
 *  Classic events (source ETL_DECODE_MOF; the built-in kernel classes are
 *  tried first): SYSTEM, COMPACT, PERFINFO, FULL and INSTANCE records are
 *  looked up by (ev->provider = class GUID, ev->opcode = event type,
 *  ev->version), else the highest lower version of that class and type
 *  (the payload bytes it does not read are "ExtraData", as for manifests);
 *  provider_name is the event class's name, event_name the EventTypeName
 *  (else the event type class's name), opcode_name the EventTypeName;
 *  kinds, strings and failures as for manifests.
 *  @return : ETL_OK; ETL_FAILED with etl_decoder_errmsg() naming the file
 *  and line ("FILE:LINE: reason", and the class and property) for
 *  unreadable or invalid files (nothing of that call is added); ETL_FATAL
 *  on out-of-memory. */
ETL_API int etl_decoder_add_mof(etl_decoder *d, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* ETL_DECODE_H */

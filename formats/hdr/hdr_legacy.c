/*
 * hdr_legacy.c - records Windows defines but does not use in practice:
 * TRACE_HEADER_TYPE_ERROR (0x0D), TRACE_HEADER_TYPE_TIMED (0x0C) and blocks
 * that start with a plain WNODE_HEADER (marker bit 31 clear).
 *
 * They are recognised so that a file holding one is read on, and returned
 * as events with ETL_WARN so the caller can report them (doc/format.md
 * §3.1). ERROR and TIMED take their size from the low 16 bits of the
 * marker; a WNODE_HEADER from its first u32 (WNODE_HEADER.BufferSize).
 *
 * WNODE_HEADER (0x30, MS-WNODE): 0x00 u32 BufferSize, 0x04 u32 ProviderId,
 * 0x08 u64 HistoricalContext, 0x10 i64 TimeStamp, 0x18 GUID Guid,
 * 0x28 u32 ClientContext, 0x2C u32 Flags. With WNODE_FLAG_TRACED_GUID
 * (0x00020000) in Flags it is an EVENT_TRACE_HEADER in disguise; either way
 * TimeStamp and Guid sit at the same offsets.
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

#define WNODE_HEADER_SIZE 0x30u
#define WNODE_FLAG_TRACED_GUID 0x00020000u

static int low16_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

static int opaque_decode(struct etl_cur *rec, struct etl_event *ev, int kind,
                         const char *what, struct etl_err *err)
{
	ev->size = etl_cur_u16(rec);
	ev->header_type = etl_cur_u8(rec);
	(void)etl_cur_u8(rec);
	ev->kind = kind;
	ev->ptr_size = 8;
	etl__hdr_payload_rest(rec, ev);
	etl__err_set(err, ETL_E_UNSUPPORTED, 0,
	             "%s record (its layout is undocumented; payload kept as raw bytes): size=%u",
	             what, (unsigned)ev->size);
	return ETL_WARN;
}

static int error_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                        struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	return opaque_decode(rec, ev, ETL_HDR_ERROR, "Logger ERROR", err);
}

static int timed_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                        struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	return opaque_decode(rec, ev, ETL_HDR_TIMED, "TIMED", err);
}

static int wnode_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le32(first);
	return 0;
}

static int wnode_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                        struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	ev->size = etl_cur_u32(rec);
	(void)etl_cur_u32(rec);                /* ProviderId */
	(void)etl_cur_u64(rec);                /* HistoricalContext */
	ev->timestamp = etl_cur_i64(rec);
	etl_cur_guid(rec, &ev->provider);
	(void)etl_cur_u32(rec);                /* ClientContext */
	ev->trace_flags = etl_cur_u32(rec);
	ev->kind = ETL_HDR_WNODE;
	ev->ptr_size = 8;
	ev->present |= ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER;
	if (rec->err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "WNODE_HEADER block shorter than its header: size=%zu", rec->len);
	etl__hdr_payload_rest(rec, ev);
	etl__err_set(err, ETL_E_UNSUPPORTED, 0,
	             "WNODE_HEADER block (legacy, %s): size=%u",
	             (ev->trace_flags & WNODE_FLAG_TRACED_GUID) ? "traced GUID" : "not traced",
	             (unsigned)ev->size);
	return ETL_WARN;
}

/* ---- writer ----------------------------------------------------------
 * ERROR / TIMED: the 4-byte marker (u16 size, type byte, 0xC0) then the
 * payload; a record must reach min_size (8 bytes) to be read back, so a
 * payload under 4 bytes cannot be encoded.
 * WNODE: the 0x30 header then the payload. ProviderId, HistoricalContext
 * and ClientContext are not in the event view: they are copied from
 * ev->record when it is a WNODE block (marker bit 31 clear) and ev->size
 * is the encoded size (an event read from a file), else written as zero; BufferSize, TimeStamp, Guid and
 * Flags always come from the view. BufferSize must keep bit 31 clear (a
 * set bit makes the block a trace header). */
static size_t opaque_encoded_size(const struct etl_event *ev, int kind)
{
	if (ev->kind != kind)
		return 0;
	size_t total = etl__hdr_total(4, ev->payload_size, ETL_HDR_MAX_RECORD16);
	return total < 8 ? 0 : total;
}

static int opaque_encode(uint8_t *out, size_t n, const struct etl_event *ev, int kind,
                         uint8_t type, const char *what, struct etl_err *err)
{
	if (etl__hdr_encode_check(what, n, opaque_encoded_size(ev, kind), ev, err) != ETL_OK)
		return ETL_FAILED;
	etl_put16(out, (uint16_t)n);
	out[2] = type;
	out[3] = 0xC0;
	memcpy(out + 4, ev->payload, ev->payload_size);    /* payload_size >= 4 */
	return ETL_OK;
}

static size_t error_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	return opaque_encoded_size(ev, ETL_HDR_ERROR);
}

static int error_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                        const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	(void)ctx;
	return opaque_encode(out, n, ev, ETL_HDR_ERROR, 0x0D, "Logger ERROR", err);
}

static size_t timed_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	return opaque_encoded_size(ev, ETL_HDR_TIMED);
}

static int timed_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                        const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	(void)ctx;
	return opaque_encode(out, n, ev, ETL_HDR_TIMED, 0x0C, "TIMED", err);
}

static size_t wnode_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	if (ev->kind != ETL_HDR_WNODE)
		return 0;
	return etl__hdr_total(WNODE_HEADER_SIZE, ev->payload_size, 0x7FFFFFFFu);
}

static int wnode_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                        const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	if (etl__hdr_encode_check("WNODE", n, wnode_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (ev->record && ev->size == n && !(ev->record[3] & 0x80u))
		memcpy(out, ev->record, WNODE_HEADER_SIZE);
	else
		memset(out, 0, WNODE_HEADER_SIZE);
	etl_put32(out, (uint32_t)n);
	etl_put64(out + 0x10, (uint64_t)ev->timestamp);
	etl_put_guid(out + 0x18, &ev->provider);
	etl_put32(out + 0x2C, ev->trace_flags);
	if (ev->payload_size)
		memcpy(out + WNODE_HEADER_SIZE, ev->payload, ev->payload_size);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_error = {
	.name = "error",
	.types = { 0x0D, 0 },
	.min_size = 8,
	.peek_size = low16_peek_size,
	.decode = error_decode,
	.encoded_size = error_encoded_size,
	.encode = error_encode,
};

const struct etl_hdr_ops etl__hdr_timed = {
	.name = "timed",
	.types = { 0x0C, 0 },
	.min_size = 8,
	.peek_size = low16_peek_size,
	.decode = timed_decode,
	.encoded_size = timed_encoded_size,
	.encode = timed_encode,
};

const struct etl_hdr_ops etl__hdr_wnode = {
	.name = "wnode",
	.types = { 0, 0 },
	.min_size = WNODE_HEADER_SIZE,
	.peek_size = wnode_peek_size,
	.decode = wnode_decode,
	.encoded_size = wnode_encoded_size,
	.encode = wnode_encode,
};

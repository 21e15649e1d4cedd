/*
 * out_xml.c - Windows event XML (the EvtRender / tracerpt schema,
 * doc/decoding.md §6.1 and §6.3), written with libxml2's xmlTextWriter so the
 * document is always well-formed.
 *
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <Events>
 *   <Event xmlns="http://schemas.microsoft.com/win/2004/08/events/event">
 *     <System>
 *       <Provider Name="..." Guid="{...}"/>     Name only when known
 *       <EventID>, <Version>, <Level>, <Task>, <Opcode>   decimal
 *       <Keywords>0x8000000000000000</Keywords>
 *       <TimeCreated SystemTime="2020-02-17T12:48:30.4203138Z"/>
 *                     (RawTime="N" instead when the time is unknown)
 *       <Correlation ActivityID="{...}" RelatedActivityID="{...}"/>
 *       <Execution ProcessID ThreadID ProcessorID KernelTime UserTime/>
 *       <Channel>, <Computer/>, [<Security UserID="S-..."/>]
 *     </System>
 *     <EventData><Data Name="...">value</Data>...</EventData>
 *       or <ProcessingErrorData><ErrorCode/><DataItemName/>
 *          <EventPayload>HEX</EventPayload><!-- reason --></ProcessingErrorData>
 *     [<RenderingInfo Culture="en-US"><Message/><Level/><Opcode/><Task/>
 *        <Channel/><Provider/><Keywords><Keyword/>...</Keywords>
 *        <EventName xmlns="http://schemas.microsoft.com/win/2004/08/events/trace"/>
 *      </RenderingInfo>]
 *     [<ExtendedTracingInfo xmlns="http://schemas.microsoft.com/win/2004/08/events/trace">
 *        <EventGuid>{...}</EventGuid>      classic and kernel records
 *        [<InstanceID/><ParentInstanceID/><ParentGuid/>]  instance headers
 *      </ExtendedTracingInfo>]
 *   </Event>
 *   ...
 *   </Events>
 *
 * One <Event> per line, no indentation inside. Nested properties are
 * flattened (etl__out_leaves): struct members as <Data Name="s.member">,
 * array elements as <Data Name="a[0]">.
 *
 * Text that XML 1.0 cannot carry is replaced before libxml2 sees it
 * (etl__out_clean): C0 controls other than TAB, LF, CR become the Unicode
 * Control Picture U+2400+c (U+0001 -> U+2401 "␁"), bytes that are not
 * UTF-8 and U+FFFE/U+FFFF become U+FFFD. The comment holding the reason of
 * a ProcessingErrorData has "--" written as "- -".
 */
#define ETL_BUILDING_LIB 1
#include <libxml/xmlwriter.h>
#include <stdlib.h>
#include <string.h>
#include "formats/output/out.h"
#include "lib/decode/decode_output.h"

#define NS_EVENT "http://schemas.microsoft.com/win/2004/08/events/event"
#define NS_TRACE "http://schemas.microsoft.com/win/2004/08/events/trace"

struct xml_priv {
	xmlBufferPtr xb;             /* what the writer produced since the last
	                                flush; passed to the sink and emptied */
	xmlTextWriterPtr w;
	struct etl_outbuf tmp;       /* cleaned text, NUL-terminated          */
	struct etl_outbuf val;       /* a formatted value                     */
	int failed;                  /* a libxml2 call failed                 */
};

/* libxml2 writes into memory (x->xb), never to the sink itself: sink
 * failures are ours to report, and libxml2 prints nothing. */
static int xml_flush(struct etl_render *o)
{
	struct xml_priv *x = o->priv;
	if (xmlTextWriterFlush(x->w) < 0)
		x->failed = 1;
	int n = xmlBufferLength(x->xb);
	int st = ETL_OK;
	if (n > 0)
		st = etl__render_write(o, xmlBufferContent(x->xb), (size_t)n);
	xmlBufferEmpty(x->xb);
	return st;
}

static int xml_open(struct etl_render *o)
{
	struct xml_priv *x = calloc(1, sizeof *x);
	if (!x)
		return ETL_FATAL;
	o->priv = x;
	etl__xml_init();                   /* once, whichever thread comes first */
	x->xb = xmlBufferCreate();
	if (!x->xb)
		return ETL_FATAL;
	x->w = xmlNewTextWriterMemory(x->xb, 0);
	if (!x->w)
		return ETL_FATAL;
	return ETL_OK;
}

static void xml_close(struct etl_render *o)
{
	struct xml_priv *x = o->priv;
	if (!x)
		return;
	if (x->w)
		xmlFreeTextWriter(x->w);
	if (x->xb)
		xmlBufferFree(x->xb);
	etl__ob_free(&x->tmp);
	etl__ob_free(&x->val);
	free(x);
	o->priv = NULL;
}

/* Cleaned, NUL-terminated copy of s in x->tmp. */
static const xmlChar *clean(struct xml_priv *x, const char *s, size_t n)
{
	x->tmp.len = 0;
	etl__out_clean(&x->tmp, s ? s : "", s ? n : 0, 1);
	etl__ob_putc(&x->tmp, 0);
	if (x->tmp.oom) {
		x->failed = 1;
		return BAD_CAST "";
	}
	return BAD_CAST x->tmp.p;
}

static void chk(struct xml_priv *x, int rc)
{
	if (rc < 0)
		x->failed = 1;
}

static void start(struct xml_priv *x, const char *name)
{
	chk(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
}

static void end(struct xml_priv *x)
{
	chk(x, xmlTextWriterEndElement(x->w));
}

static void attr(struct xml_priv *x, const char *name, const char *value)
{
	chk(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, clean(x, value, strlen(value))));
}

static void attr_fmt(struct xml_priv *x, const char *name, const char *fmt, unsigned long long v)
{
	char s[32];
	snprintf(s, sizeof s, fmt, v);
	chk(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST s));
}

static void attr_guid(struct xml_priv *x, const char *name, const struct etl_guid *g)
{
	char s[ETL_GUID_STRLEN], t[ETL_GUID_STRLEN + 2];
	snprintf(t, sizeof t, "{%s}", etl_guid_format(g, s));
	chk(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST t));
}

static void text_n(struct xml_priv *x, const char *s, size_t n)
{
	if (n)
		chk(x, xmlTextWriterWriteString(x->w, clean(x, s, n)));
}

static void elem_text(struct xml_priv *x, const char *name, const char *s)
{
	start(x, name);
	if (s)
		text_n(x, s, strlen(s));
	end(x);
}

static void elem_num(struct xml_priv *x, const char *name, const char *fmt, unsigned long long v)
{
	char s[32];
	snprintf(s, sizeof s, fmt, v);
	elem_text(x, name, s);
}

static int xml_begin(struct etl_render *o)
{
	struct xml_priv *x = o->priv;
	chk(x, xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL));
	start(x, "Events");
	chk(x, xmlTextWriterWriteRaw(x->w, BAD_CAST "\n"));
	if (xml_flush(o) != ETL_OK)
		return ETL_FATAL;
	if (x->failed)
		return etl__render_fail(o, ETL_E_NOMEM, "Cannot start the XML document");
	return ETL_OK;
}

static int data_leaf(void *arg, const char *name, size_t name_len, const struct etl_prop *p)
{
	struct xml_priv *x = arg;
	start(x, "Data");
	chk(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST "Name", clean(x, name, name_len)));
	x->val.len = 0;
	etl__out_value(&x->val, p);
	if (x->val.oom)
		x->failed = 1;
	text_n(x, x->val.p, x->val.len);
	end(x);
	return 0;
}

static void system_part(struct xml_priv *x, const struct etl_out_rec *r)
{
	char t[ETL_TIME_STRLEN];
	start(x, "System");
	start(x, "Provider");
	if (r->provider_name)
		attr(x, "Name", r->provider_name);
	attr_guid(x, "Guid", &r->provider);
	end(x);
	elem_num(x, "EventID", "%llu", r->event_id);
	elem_num(x, "Version", "%llu", r->version);
	elem_num(x, "Level", "%llu", r->level);
	elem_num(x, "Task", "%llu", r->task);
	elem_num(x, "Opcode", "%llu", r->opcode);
	elem_num(x, "Keywords", "0x%llx", (unsigned long long)r->keywords);
	start(x, "TimeCreated");
	if (r->has_time)
		attr(x, "SystemTime", etl_filetime_format(r->utc, t, sizeof t));
	else if (r->has_raw)
		attr_fmt(x, "RawTime", "%lld", (unsigned long long)r->raw);
	end(x);
	start(x, "Correlation");
	if (r->has_activity)
		attr_guid(x, "ActivityID", &r->activity);
	if (r->has_related)
		attr_guid(x, "RelatedActivityID", &r->related);
	end(x);
	if (r->has_exec) {
		start(x, "Execution");
		if (r->has_pid) {
			attr_fmt(x, "ProcessID", "%llu", r->pid);
			attr_fmt(x, "ThreadID", "%llu", r->tid);
		}
		attr_fmt(x, "ProcessorID", "%llu", r->cpu);
		if (r->has_cpu_times) {
			attr_fmt(x, "KernelTime", "%llu", r->kernel_time);
			attr_fmt(x, "UserTime", "%llu", r->user_time);
		}
		end(x);
	}
	elem_num(x, "Channel", "%llu", r->channel);
	start(x, "Computer");
	end(x);
	if (r->user_sid) {
		start(x, "Security");
		attr(x, "UserID", r->user_sid);
		end(x);
	}
	end(x);
}

/* The reason as a comment: no "--" inside, no "-" at the end. */
static void reason_comment(struct xml_priv *x, const char *reason)
{
	struct etl_outbuf c;
	memset(&c, 0, sizeof c);
	etl__ob_putc(&c, ' ');
	clean(x, reason, strlen(reason));
	for (size_t i = 0; x->tmp.p && x->tmp.p[i]; i++) {
		etl__ob_putc(&c, x->tmp.p[i]);
		if (x->tmp.p[i] == '-' && x->tmp.p[i + 1] == '-')
			etl__ob_putc(&c, ' ');
	}
	etl__ob_putc(&c, ' ');
	etl__ob_putc(&c, 0);
	if (c.oom)
		x->failed = 1;
	else
		chk(x, xmlTextWriterWriteComment(x->w, BAD_CAST c.p));
	etl__ob_free(&c);
}

static void rendering_part(struct xml_priv *x, const struct etl_out_rec *r)
{
	start(x, "RenderingInfo");
	attr(x, "Culture", "en-US");
	if (r->r_message)
		elem_text(x, "Message", r->r_message);
	if (r->r_level)
		elem_text(x, "Level", r->r_level);
	if (r->r_opcode)
		elem_text(x, "Opcode", r->r_opcode);
	if (r->r_task)
		elem_text(x, "Task", r->r_task);
	if (r->r_channel)
		elem_text(x, "Channel", r->r_channel);
	if (r->r_provider)
		elem_text(x, "Provider", r->r_provider);
	if (r->r_keywords && *r->r_keywords) {
		start(x, "Keywords");
		const char *s = r->r_keywords;
		while (*s) {
			size_t n = strcspn(s, " ");
			if (n) {
				start(x, "Keyword");
				text_n(x, s, n);
				end(x);
			}
			s += n;
			while (*s == ' ')
				s++;
		}
		end(x);
	}
	if (r->r_event_name) {
		start(x, "EventName");
		attr(x, "xmlns", NS_TRACE);
		text_n(x, r->r_event_name, strlen(r->r_event_name));
		end(x);
	}
	end(x);
}

static void guid_elem(struct xml_priv *x, const char *name, const struct etl_guid *g)
{
	char t[ETL_GUID_STRLEN + 2];
	t[0] = '{';
	etl_guid_format(g, t + 1);
	t[ETL_GUID_STRLEN] = '}';
	t[ETL_GUID_STRLEN + 1] = 0;
	elem_text(x, name, t);
}

/* tracerpt's ExtendedTracingInfo (doc/decoding.md §6.3): the event class GUID
 * of a classic or kernel record, and an instance header's ids. */
static void ext_tracing_part(struct xml_priv *x, const struct etl_out_rec *r)
{
	start(x, "ExtendedTracingInfo");
	attr(x, "xmlns", NS_TRACE);
	guid_elem(x, "EventGuid", &r->event_guid);
	if (r->has_instance) {
		elem_num(x, "InstanceID", "%llu", r->instance_id);
		elem_num(x, "ParentInstanceID", "%llu", r->parent_instance_id);
		guid_elem(x, "ParentGuid", &r->parent_guid);
	}
	end(x);
}

static int xml_event(struct etl_render *o, const struct etl_out_rec *r)
{
	struct xml_priv *x = o->priv;
	if (r->absent)
		return ETL_OK;
	start(x, "Event");
	attr(x, "xmlns", NS_EVENT);
	system_part(x, r);
	if (r->has_data) {
		start(x, "EventData");
		if (etl__out_leaves(r, data_leaf, x) != 0)
			x->failed = 1;
		end(x);
	} else if (r->has_error) {
		start(x, "ProcessingErrorData");
		elem_num(x, "ErrorCode", "%llu", (unsigned)r->error_code);
		start(x, "DataItemName");
		end(x);
		start(x, "EventPayload");
		x->val.len = 0;
		etl__out_hex(&x->val, r->payload, r->payload_len);
		if (x->val.oom)
			x->failed = 1;
		text_n(x, x->val.p, x->val.len);
		end(x);
		if (r->error_reason)
			reason_comment(x, r->error_reason);
		end(x);
	}
	if (r->has_rendering)
		rendering_part(x, r);
	if (r->has_ext_tracing)
		ext_tracing_part(x, r);
	end(x);
	chk(x, xmlTextWriterWriteRaw(x->w, BAD_CAST "\n"));
	if (xml_flush(o) != ETL_OK)
		return ETL_FATAL;
	if (x->failed)
		return etl__render_fail(o, ETL_E_NOMEM, "Cannot format an event as XML");
	return ETL_OK;
}

static int xml_end(struct etl_render *o)
{
	struct xml_priv *x = o->priv;
	end(x);                               /* </Events> */
	chk(x, xmlTextWriterEndDocument(x->w));
	if (xml_flush(o) != ETL_OK)
		return ETL_FATAL;
	if (x->failed)
		return etl__render_fail(o, ETL_E_NOMEM, "Cannot end the XML document");
	return ETL_OK;
}

const struct etl_out_ops etl__out_xml = {
	"xml", xml_open, xml_begin, xml_event, xml_end, xml_close
};

/*
 * lib/common/guid.c - GUID text form and comparison.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <string.h>
#include "etl.h"
#include "lib/common/fmt.h"

char *etl_guid_format(const struct etl_guid *g, char out[ETL_GUID_STRLEN])
{
	etl__fmt_guid(out, g);      /* "%08x-%04x-%04x-%02x%02x-%02x...", by hand */
	out[ETL_FMT_GUID_LEN] = 0;
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Reads n hex digits; 1 on success. */
static int hexn(const char *s, int n, uint32_t *v)
{
	uint32_t x = 0;
	for (int i = 0; i < n; i++) {
		int d = hexval(s[i]);
		if (d < 0)
			return 0;
		x = (x << 4) | (uint32_t)d;
	}
	*v = x;
	return 1;
}

int etl_guid_parse(const char *s, struct etl_guid *out)
{
	size_t n = strlen(s);
	int braced = 0;
	if (n == 38 && s[0] == '{' && s[37] == '}') {
		s++;
		braced = 1;
	} else if (n != 36) {
		return ETL_FAILED;
	}
	(void)braced;
	if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return ETL_FAILED;
	uint32_t a, b, c, d;
	if (!hexn(s, 8, &a) || !hexn(s + 9, 4, &b) || !hexn(s + 14, 4, &c))
		return ETL_FAILED;
	out->data1 = a;
	out->data2 = (uint16_t)b;
	out->data3 = (uint16_t)c;
	for (int i = 0; i < 8; i++) {
		const char *p = i < 2 ? s + 19 + 2 * i : s + 24 + 2 * (i - 2);
		if (!hexn(p, 2, &d))
			return ETL_FAILED;
		out->data4[i] = (uint8_t)d;
	}
	return ETL_OK;
}

int etl_guid_equal(const struct etl_guid *a, const struct etl_guid *b)
{
	return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
	       memcmp(a->data4, b->data4, 8) == 0;
}

int etl_guid_is_null(const struct etl_guid *g)
{
	static const struct etl_guid zero;
	return etl_guid_equal(g, &zero);
}

/* Stick tables: the names and storage of data types, reading and writing an entry's data
 * (its shard's lock held by the caller), rates over a period with HAProxy's sliding
 * window, and keys: conversion of samples and CLI words to keys of a table's type, and
 * their text form as "show table" prints it. No table-wide state is touched here.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/sample.h>
#include <stream/stktable.h>

const struct stk_dt_info stk_dt_info[STK_DT_TYPES] = {
	[STK_DT_SERVER_ID] = { "server_id", STK_STD_SINT, STK_ARG_NONE },
	[STK_DT_GPT0] = { "gpt0", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_GPC0] = { "gpc0", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_GPC0_RATE] = { "gpc0_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_CONN_CNT] = { "conn_cnt", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_CONN_RATE] = { "conn_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_CONN_CUR] = { "conn_cur", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_SESS_CNT] = { "sess_cnt", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_SESS_RATE] = { "sess_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_HTTP_REQ_CNT] = { "http_req_cnt", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_HTTP_REQ_RATE] = { "http_req_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_HTTP_ERR_CNT] = { "http_err_cnt", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_HTTP_ERR_RATE] = { "http_err_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_BYTES_IN_CNT] = { "bytes_in_cnt", STK_STD_ULL, STK_ARG_NONE },
	[STK_DT_BYTES_IN_RATE] = { "bytes_in_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_BYTES_OUT_CNT] = { "bytes_out_cnt", STK_STD_ULL, STK_ARG_NONE },
	[STK_DT_BYTES_OUT_RATE] = { "bytes_out_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_GPC1] = { "gpc1", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_GPC1_RATE] = { "gpc1_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_SERVER_KEY] = { "server_key", STK_STD_PTR, STK_ARG_NONE },
	[STK_DT_HTTP_FAIL_CNT] = { "http_fail_cnt", STK_STD_UINT, STK_ARG_NONE },
	[STK_DT_HTTP_FAIL_RATE] = { "http_fail_rate", STK_STD_RATE, STK_ARG_PERIOD },
	[STK_DT_GPT] = { "gpt", STK_STD_UINT, STK_ARG_NB },
	[STK_DT_GPC] = { "gpc", STK_STD_UINT, STK_ARG_NB },
	[STK_DT_GPC_RATE] = { "gpc_rate", STK_STD_RATE, STK_ARG_NB_PERIOD },
};

int stk_dt_find(const char *name, size_t len)
{
	for (int i = 0; i < STK_DT_TYPES; i++)
		if (strlen(stk_dt_info[i].name) == len && !memcmp(stk_dt_info[i].name, name, len))
			return i;
	return -1;
}

const char *stk_key_type_name(int type)
{
	static const char *const names[STK_KEY_TYPES] = {
		[STK_KEY_IP] = "ip",	  [STK_KEY_IPV6] = "ipv6",  [STK_KEY_INT] = "integer",
		[STK_KEY_STR] = "string", [STK_KEY_BIN] = "binary",
	};

	return type >= 0 && type < STK_KEY_TYPES ? names[type] : "?";
}

/* Keys point into the sample (strings, binaries) or into k->buf (numbers, addresses). */
int stk_key_from_smp(const struct stktable *t, struct sample *smp, struct stk_key *k)
{
	uint32_t u;

	switch (t->type) {
	case STK_KEY_IP:
		if (!sample_cast(smp, SMP_T_IPV4))
			return 0;
		memcpy(k->buf, &smp->data.u.ipv4, 4);
		k->ptr = k->buf;
		k->len = 4;
		return 1;
	case STK_KEY_IPV6:
		if (!sample_cast(smp, SMP_T_IPV6))
			return 0;
		memcpy(k->buf, &smp->data.u.ipv6, 16);
		k->ptr = k->buf;
		k->len = 16;
		return 1;
	case STK_KEY_INT:
		if (!sample_cast(smp, SMP_T_SINT))
			return 0;
		u = (uint32_t)smp->data.u.sint;
		memcpy(k->buf, &u, 4);
		k->ptr = k->buf;
		k->len = 4;
		return 1;
	case STK_KEY_STR:
		if (!sample_cast(smp, SMP_T_STR))
			return 0;
		break;
	default:
		if (!sample_cast(smp, SMP_T_BIN))
			return 0;
		break;
	}
	k->ptr = (const unsigned char *)smp->data.u.str.ptr;
	k->len = (uint32_t)MIN(smp->data.u.str.len, (size_t)t->key_size);
	return 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int stk_key_parse(const struct stktable *t, const char *text, struct stk_key *k, unsigned char *buf,
		  size_t bufsz)
{
	unsigned long v;
	char *end;
	size_t n;

	k->ptr = k->buf;
	switch (t->type) {
	case STK_KEY_IP:
		k->len = 4;
		return inet_pton(AF_INET, text, k->buf) == 1 ? 0 : -1;
	case STK_KEY_IPV6:
		k->len = 16;
		return inet_pton(AF_INET6, text, k->buf) == 1 ? 0 : -1;
	case STK_KEY_INT:
		if (!isdigit((unsigned char)*text))
			return -1;
		v = strtoul(text, &end, 10);
		if (*end || v > UINT32_MAX)
			return -1;
		memcpy(k->buf, &(uint32_t){ (uint32_t)v }, 4);
		k->len = 4;
		return 0;
	case STK_KEY_STR:
		k->ptr = (const unsigned char *)text;
		k->len = (uint32_t)MIN(strlen(text), (size_t)t->key_size);
		return 0;
	}
	n = strlen(text);
	if (n % 2 || n / 2 > bufsz)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(text[2 * i]), lo = hexval(text[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	k->ptr = buf;
	k->len = (uint32_t)MIN(n / 2, (size_t)t->key_size);
	return 0;
}

/* Strings as HAProxy dumps them: spaces, '=', '\' and controls escaped. */
static size_t stk_print_text(const unsigned char *p, size_t len, char *out, size_t sz)
{
	size_t o = 0;

	for (size_t i = 0; i < len && p[i] && o + 5 < sz; i++) {
		unsigned char c = p[i];
		const char *esc = c == ' '    ? "\\ "
				  : c == '='  ? "\\="
				  : c == '\\' ? "\\\\"
				  : c == '\t' ? "\\t"
				  : c == '\n' ? "\\n"
				  : c == '\r' ? "\\r"
				  : c == 0x1b ? "\\e"
					      : NULL;

		if (esc) {
			memcpy(out + o, esc, 2);
			o += 2;
		} else if (isprint(c) && c < 0x80) {
			out[o++] = (char)c;
		} else {
			o += (size_t)snprintf(out + o, sz - o, "\\x%02X", c);
		}
	}
	out[o] = 0;
	return o;
}

void stk_key_print(const struct stktable *t, const struct stksess *ts, char *out, size_t sz)
{
	uint32_t u;
	size_t o = 0;

	if (!sz)
		return;
	out[0] = 0;
	switch (t->type) {
	case STK_KEY_IP:
		inet_ntop(AF_INET, ts->kd, out, (socklen_t)sz);
		return;
	case STK_KEY_IPV6:
		inet_ntop(AF_INET6, ts->kd, out, (socklen_t)sz);
		return;
	case STK_KEY_INT:
		memcpy(&u, ts->kd, 4);
		snprintf(out, sz, "%u", u);
		return;
	case STK_KEY_STR:
		stk_print_text(ts->kd, ts->klen, out, sz);
		return;
	}
	for (uint32_t i = 0; i < ts->klen && o + 3 <= sz; i++)
		o += (size_t)snprintf(out + o, sz - o, "%02X", ts->kd[i]);
}

/* ---- data ---- */

void *stksess_data(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx)
{
	uint16_t ofs = t->data_ofs[dt];

	if (ofs == STK_DT_NONE || idx >= t->data_nb[dt])
		return NULL;
	return ts->kd + t->data_off0 + ofs + idx * stk_std_size(stk_dt_info[dt].std);
}

int stksess_get(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx, uint64_t now,
		long long *v)
{
	void *p = stksess_data(t, ts, dt, idx);

	if (!p)
		return 0;
	switch (stk_dt_info[dt].std) {
	case STK_STD_SINT:
		*v = *(int32_t *)p;
		break;
	case STK_STD_UINT:
		*v = *(uint32_t *)p;
		break;
	case STK_STD_ULL:
		*v = (long long)*(uint64_t *)p;
		break;
	case STK_STD_RATE:
		*v = stk_rate_read(p, t->data_period[dt], now);
		break;
	default:
		*v = 0;
		break;
	}
	return 1;
}

int stksess_add(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx, uint64_t v,
		uint64_t now)
{
	void *p = stksess_data(t, ts, dt, idx);

	if (!p)
		return 0;
	switch (stk_dt_info[dt].std) {
	case STK_STD_SINT:
	case STK_STD_UINT:
		*(uint32_t *)p += (uint32_t)v;
		break;
	case STK_STD_ULL:
		*(uint64_t *)p += v;
		break;
	case STK_STD_RATE:
		stk_rate_add(p, t->data_period[dt], now, (uint32_t)v);
		break;
	default:
		return 0;
	}
	return 1;
}

int stksess_set(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx, long long v,
		uint64_t now)
{
	void *p = stksess_data(t, ts, dt, idx);

	if (!p)
		return 0;
	switch (stk_dt_info[dt].std) {
	case STK_STD_SINT:
		*(int32_t *)p = (int32_t)v;
		break;
	case STK_STD_UINT:
		*(uint32_t *)p = (uint32_t)v;
		break;
	case STK_STD_ULL:
		*(uint64_t *)p = (uint64_t)v;
		break;
	case STK_STD_RATE: /* a rate is set by starting a period with <v> events */
		memset(p, 0, sizeof(struct stk_rate));
		if (v > 0)
			stk_rate_add(p, t->data_period[dt], now, (uint32_t)v);
		break;
	default:
		return 0;
	}
	return 1;
}

void stksess_touch(struct stktable *t, struct stksess *ts, uint64_t now)
{
	if ((int64_t)(now - ts->touch) > 0)
		ts->touch = now;
}

uint32_t stksess_refs(const struct stksess *ts)
{
	return ts->ref;
}

int stksess_expires_in(const struct stktable *t, const struct stksess *ts, uint64_t now)
{
	int64_t left;

	if (!t->expire)
		return 0;
	left = (int64_t)(ts->touch + (uint64_t)t->expire - now);
	if (left > t->expire) /* touched by a thread whose clock is a few ms ahead of ours */
		left = t->expire;
	return left < 0 ? 0 : (int)left;
}

/* ---- rates ---- */

void stk_rate_add(struct stk_rate *r, uint32_t period, uint64_t now, uint32_t inc)
{
	int64_t elapsed = (int64_t)(now - r->tick);

	if (!period)
		period = 1;
	if (!r->tick) {
		r->tick = now ? now : 1;
		r->prev = 0;
		r->curr = inc;
		return;
	}
	if (elapsed < (int64_t)period) { /* a thread whose clock lags counts here too */
		r->curr += inc;
		return;
	}
	r->prev = r->curr;
	r->curr = inc;
	r->tick += period;
	if ((int64_t)(now - r->tick) >= (int64_t)period) { /* two periods or more went by */
		r->prev = 0;
		r->tick = now;
	}
}

uint32_t stk_rate_read(const struct stk_rate *r, uint32_t period, uint64_t now)
{
	uint64_t curr = r->curr, prev = r->prev, remain;
	int64_t elapsed = (int64_t)(now - r->tick);

	if (!r->tick || !period)
		return 0;
	if (elapsed < 0)
		elapsed = 0;
	if (elapsed >= (int64_t)period) {
		/* the current period is over: it is the previous one of the next */
		elapsed -= period;
		if (elapsed >= (int64_t)period)
			return 0;
		prev = curr;
		curr = 0;
	}
	remain = period - (uint64_t)elapsed;
	return (uint32_t)((prev * remain + curr * period) / period);
}

/* Reading the headers compression decides on (include/comp/comp_sel.h): list elements
 * with quoted strings, Accept-Encoding codings and q-values, the User-Agent rule, ETag
 * forms and Content-Type prefixes, each as HAProxy 2.6 reads them (checked against it
 * element by element). Pure: views in, results out.
 */
#include <string.h>

#include <comp/comp_sel.h>

static bool comp_is_lws(char c)
{
	return c == ' ' || c == '\t';
}

/* RFC 9110 tchar */
static bool comp_is_tchar(char c)
{
	unsigned char u = (unsigned char)c;

	if ((u | 0x20) >= 'a' && (u | 0x20) <= 'z')
		return true;
	if (u >= '0' && u <= '9')
		return true;
	return u && strchr("!#$%&'*+-.^_`|~", u) != NULL;
}

bool comp_list_next(struct ist *v, struct ist *elem)
{
	const char *p = v->ptr, *end = v->ptr + v->len, *s, *e;
	bool quoted = false;

	if (!v->len)
		return false;
	for (s = p; p < end; p++) {
		if (quoted && *p == '\\' && p + 1 < end)
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (*p == ',' && !quoted)
			break;
	}
	e = p;
	*v = p < end ? ist2(p + 1, (size_t)(end - p - 1)) : ist2(end, 0);
	while (s < e && comp_is_lws(*s))
		s++;
	while (e > s && comp_is_lws(e[-1]))
		e--;
	*elem = ist2(s, (size_t)(e - s));
	return true;
}

static bool comp_is_digit(struct ist s, size_t i)
{
	return i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9';
}

int comp_qvalue(struct ist s)
{
	int q, mul = 100;
	size_t i = 1;

	if (!comp_is_digit(s, 0))
		return 1000;
	q = (s.ptr[0] - '0') * 1000;
	if (i < s.len && s.ptr[i] == '.')
		for (i++; mul && comp_is_digit(s, i); i++, mul /= 10)
			q += (s.ptr[i] - '0') * mul;
	return q > 1000 ? 1000 : q;
}

/* The q-value of one Accept-Encoding element whose coding ends at <i>: the first
 * parameter that starts with "q=" (a lone "q" at the very end counts), else 1000. */
static int comp_elem_q(struct ist e, size_t i)
{
	for (;;) {
		while (i < e.len && comp_is_lws(e.ptr[i]))
			i++;
		if (i >= e.len || e.ptr[i] != ';')
			return 1000;
		for (i++; i < e.len && comp_is_lws(e.ptr[i]); i++)
			;
		if (i >= e.len)
			return 1000;
		if (e.ptr[i] == 'q' && (i + 1 == e.len || e.ptr[i + 1] == '='))
			return i + 2 <= e.len ? comp_qvalue(ist2(e.ptr + i + 2, e.len - i - 2))
					      : 1000;
		while (i < e.len && e.ptr[i] != ';')
			i++;
	}
}

void comp_ae_scan(struct ist v, const struct comp_algo *const *algos, uint32_t n,
		  const struct comp_algo **best, int *best_q)
{
	struct ist e;

	while (comp_list_next(&v, &e)) {
		size_t tok = 0;
		int q;

		while (tok < e.len && comp_is_tchar(e.ptr[tok]))
			tok++;
		q = comp_elem_q(e, tok);
		if (q <= *best_q)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			if ((e.len && e.ptr[0] == '*') ||
			    ist_ieq(ist2(e.ptr, tok), algos[i]->ua_name)) {
				*best = algos[i];
				*best_q = q;
				break;
			}
		}
	}
}

bool comp_ua_refused(struct ist ua)
{
	const char *p = ua.ptr;

	if (ua.len < 9 || memcmp(p, "Mozilla/4", 9) != 0)
		return false;
	if (ua.len < 31 || memcmp(p + 25, "MSIE ", 5) != 0 || p[30] < '6')
		return true;
	return p[30] == '6' && (ua.len < 54 || memcmp(p + 51, "SV1", 3) != 0);
}

enum comp_etag comp_etag_type(struct ist v)
{
	if (v.len < 2 || v.ptr[v.len - 1] != '"')
		return COMP_ETAG_INVALID;
	if (v.ptr[0] == '"')
		return COMP_ETAG_STRONG;
	if (v.len >= 3 && memcmp(v.ptr, "W/\"", 3) == 0)
		return COMP_ETAG_WEAK;
	return COMP_ETAG_INVALID;
}

bool comp_list_has(struct ist v, struct ist word)
{
	struct ist e;

	while (comp_list_next(&v, &e))
		if (ist_ieq(e, word))
			return true;
	return false;
}

bool comp_type_match(struct ist ctype, const struct ist *types, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ist_istarts(ctype, types[i]))
			return true;
	return false;
}

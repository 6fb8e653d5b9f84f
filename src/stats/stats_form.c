/* The pure parsers of the stats page's client input (include/stats/stats_form.h): the
 * options after the stats uri and the admin form's url-encoded POST body.
 */
#include <stdbool.h>
#include <string.h>

#include <base/parse.h>

#include <stats/stats_form.h>

static bool stats_opt_is(const char *p, size_t n, const char *name)
{
	size_t l = strlen(name);

	return n == l && !memcmp(p, name, l);
}

void stats_opts_parse(const char *p, size_t len, struct stats_opts *o)
{
	const char *end = p + len;

	memset(o, 0, sizeof(*o));
	while (p < end) {
		const char *e = p + 1;
		size_t n;

		while (e < end && *e != ';' && *e != '?' && *e != '&')
			e++;
		n = (size_t)(e - p);
		if (stats_opt_is(p, n, ";csv"))
			o->fmt = STATS_OUT_CSV;
		else if (stats_opt_is(p, n, ";json"))
			o->fmt = STATS_OUT_JSON;
		else if (stats_opt_is(p, n, ";json-schema"))
			o->fmt = STATS_OUT_SCHEMA;
		else if (stats_opt_is(p, n, ";up"))
			o->up = 1;
		else if (stats_opt_is(p, n, ";norefresh"))
			o->norefresh = 1;
		else if (n == 8 && !memcmp(p, ";st=", 4))
			memcpy(o->st, p + 4, 4);
		p = e;
	}
}

/* Decodes %XX and '+' of v[0..len) in place; returns the decoded length. */
static size_t stats_urldecode(char *v, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		int h, l;

		if (v[i] == '+') {
			v[o++] = ' ';
		} else if (v[i] == '%' && i + 2 < len && (h = hex_digit_val(v[i + 1])) >= 0 &&
			   (l = hex_digit_val(v[i + 2])) >= 0) {
			v[o++] = (char)(h * 16 + l);
			i += 2;
		} else {
			v[o++] = v[i];
		}
	}
	return o;
}

int stats_form_parse(char *body, size_t len, struct stats_form *f)
{
	char *p = body, *end = body + len;

	memset(f, 0, sizeof(*f));
	body[len] = 0;
	while (p < end) {
		char *amp = memchr(p, '&', (size_t)(end - p));
		size_t n = (size_t)((amp ? amp : end) - p);
		char *eq = memchr(p, '=', n);

		p[n] = 0; /* the '&', or the terminator at <len> */
		if (eq) {
			*eq++ = 0;
			eq[stats_urldecode(eq, n - (size_t)(eq - p))] = 0;
			if (!strcmp(p, "s")) {
				if (f->nb_srv < STATS_FORM_MAX_SRV)
					f->srv[f->nb_srv++] = eq;
			} else if (!strcmp(p, "action")) {
				f->action = eq;
			} else if (!strcmp(p, "b")) {
				f->backend = eq;
			}
		}
		p += n + 1;
	}
	return f->action && *f->action && f->backend && *f->backend ? 0 : -1;
}

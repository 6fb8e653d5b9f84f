/* The agent-check reply line, as HAProxy 2.6 reads it: pure over (ptr, len), no
 * allocation, views into the input. See check/agent.h.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <check/agent.h>

long agent_line_len(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			return (long)i;
	return -1;
}

static bool agent_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == ',';
}

/* Case-insensitive equality of the word <w> with the NUL-terminated <kw>. */
static bool agent_word_is(struct ist w, const char *kw)
{
	size_t n = strlen(kw);

	return w.len == n && !strncasecmp(w.ptr, kw, n);
}

/* Decimal digits of <w> in [0, <max>] (larger values are clamped); -1 if not digits. */
static int agent_num(struct ist w, int max)
{
	long v = 0;

	if (!w.len)
		return -1;
	for (size_t i = 0; i < w.len; i++) {
		if (!isdigit((unsigned char)w.ptr[i]))
			return -1;
		if (v <= max)
			v = v * 10 + (w.ptr[i] - '0');
	}
	return v > max ? max : (int)v;
}

/* Applies one word to <r>. */
static void agent_word(struct ist w, struct agent_reply *r)
{
	static const char *const down[] = { "down", "fail", "stopped" };

	if (w.len > 1 && w.ptr[w.len - 1] == '%') {
		int v = agent_num(ist2(w.ptr, w.len - 1), 1000000);

		if (v >= 0)
			r->weight_pct = v;
		return;
	}
	if (w.len > 8 && !strncasecmp(w.ptr, "maxconn:", 8)) {
		int v = agent_num(ist2(w.ptr + 8, w.len - 8), 1000000000);

		if (v >= 0)
			r->maxconn = v;
		return;
	}
	if (agent_word_is(w, "up")) {
		r->state = AGENT_ST_UP;
		r->word = w;
		return;
	}
	for (size_t k = 0; k < sizeof(down) / sizeof(down[0]); k++) {
		if (agent_word_is(w, down[k])) {
			r->state = AGENT_ST_DOWN;
			r->word = w;
			return;
		}
	}
	if (agent_word_is(w, "ready"))
		r->admin = AGENT_ADM_READY;
	else if (agent_word_is(w, "drain"))
		r->admin = AGENT_ADM_DRAIN;
	else if (agent_word_is(w, "maint"))
		r->admin = AGENT_ADM_MAINT;
}

void agent_parse(const char *buf, size_t len, struct agent_reply *r)
{
	long ll = agent_line_len(buf, len);
	size_t end = ll < 0 ? len : (size_t)ll, i = 0;

	r->weight_pct = r->maxconn = -1;
	r->state = AGENT_ST_NONE;
	r->admin = AGENT_ADM_NONE;
	r->word = r->desc = ist2(buf, 0);
	while (i < end) {
		size_t start;

		while (i < end && agent_is_sep(buf[i]))
			i++;
		if (i < end && buf[i] == '#') {
			for (i++; i < end && (buf[i] == ' ' || buf[i] == '\t'); i++)
				;
			r->desc = ist2(buf + i, end - i);
			return;
		}
		start = i;
		while (i < end && !agent_is_sep(buf[i]))
			i++;
		if (i > start)
			agent_word(ist2(buf + start, i - start), r);
	}
}

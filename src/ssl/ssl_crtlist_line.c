/* The tokenizer of one crt-list line: certificate, "[options]" and SNI filters. Pure (no
 * allocation, no I/O), shared by the configuration, the runtime API, the unit tests and the
 * fuzzer.
 */
#include <stddef.h>

#include <ssl/ssl_crtlist.h>

/* where the tokenizer is on the line */
enum { CL_BEFORE, CL_IN, CL_AFTER };

static bool crtlist_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A '[' or ']' at this point of the line: 0 or -1 with <err>. */
static int crtlist_bracket(char b, struct crtlist_line *out, int *state, const char **err)
{
	if (b == ']') {
		if (*state != CL_IN) {
			*err = "missing '['";
			return -1;
		}
		*state = CL_AFTER;
		return 0;
	}
	if (*state != CL_BEFORE) {
		*err = "too many '['";
		return -1;
	}
	if (!out->crt) {
		*err = "missing the certificate file name";
		return -1;
	}
	if (out->nb_filters) {
		*err = "malformated line, filters can't be between filename and options!";
		return -1;
	}
	*state = CL_IN;
	out->brackets = true;
	return 0;
}

static int crtlist_word(char *word, struct crtlist_line *out, int state, const char **err)
{
	if (!out->crt) {
		out->crt = word;
		return 0;
	}
	if ((state == CL_IN ? out->nb_opts : out->nb_filters) >= CRTLIST_MAX_WORDS) {
		*err = "too many words on the line";
		return -1;
	}
	if (state == CL_IN)
		out->opts[out->nb_opts++] = word;
	else
		out->filters[out->nb_filters++] = word;
	return 0;
}

int crtlist_tokenize(char *line, struct crtlist_line *out, const char **err)
{
	char *r = line, *w = line; /* read and write cursors: w <= r */
	int state = CL_BEFORE;

	out->crt = NULL;
	out->brackets = false;
	out->nb_opts = out->nb_filters = 0;
	while (crtlist_space(*r))
		r++;
	if (!*r || *r == '#')
		return 0;
	while (*r) {
		char *word, sep;

		if (crtlist_space(*r)) {
			r++;
			w = r;
			continue;
		}
		if (*r == '[' || *r == ']') {
			if (crtlist_bracket(*r, out, &state, err) < 0)
				return -1;
			r++;
			w = r;
			continue;
		}
		/* a word, copied over itself without its escaping backslashes */
		word = w;
		while (*r && !crtlist_space(*r) && *r != '[' && *r != ']') {
			if (*r == '\\' && r[1])
				r++;
			*w++ = *r++;
		}
		sep = *r; /* saved: the terminator may overwrite it when w == r */
		*w = '\0';
		if (crtlist_word(word, out, state, err) < 0)
			return -1;
		if (!sep)
			break;
		if ((sep == '[' || sep == ']') && crtlist_bracket(sep, out, &state, err) < 0)
			return -1;
		r++;
		w = r;
	}
	if (state == CL_IN) {
		*err = "missing ']'";
		return -1;
	}
	return 1;
}

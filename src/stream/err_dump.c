/* The pure parts of "show errors": HAProxy's parser state name for an error position and
 * its escaped dump lines. No I/O, no allocation, no globals (fuzzed: tests/fuzz/
 * fuzz_err_dump.c).
 */
#include <stdio.h>

#include <stream/err_capture.h>

int err_h1_state(const char *buf, size_t len, uint32_t pos, bool resp, const char **name)
{
	static const char *const sl_names[2][3] = {
		{ "MSG_RQMETH", "MSG_RQURI", "MSG_RQVER" },
		{ "MSG_RPVER", "MSG_RPCODE", "MSG_RPREASON" },
	};
	static const int sl_nums[2][3] = { { 2, 4, 6 }, { 10, 12, 14 } };
	size_t i, line = 0, end = pos < len ? pos : len;
	int word = 0;
	bool in_sl = true, colon = false;

	for (i = 0; i < end; i++) {
		if (buf[i] == '\n') {
			in_sl = false;
			colon = false;
			line = i + 1;
		} else if (in_sl && buf[i] == ' ' && word < 2) {
			word++;
		} else if (!in_sl && buf[i] == ':') {
			colon = true;
		}
	}
	if (in_sl) {
		*name = sl_names[resp][word];
		return sl_nums[resp][word];
	}
	if (colon) {
		*name = "MSG_HDR_VAL";
		return 21;
	}
	if (end < len && (end == line || (end == line + 1 && buf[line] == '\r'))) {
		*name = "MSG_LAST_LF";
		return 24;
	}
	*name = "MSG_HDR_NAME";
	return 17;
}

size_t err_dump_line(char *out, size_t outsz, const char *buf, size_t len, size_t *pos,
		     size_t *line_start)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t p = *pos;
	int n = snprintf(out, outsz, "  %05zu%c ", p, p == *line_start ? ' ' : '+');
	size_t o = n > 0 ? (size_t)n : 0;

	/* 79 columns at most, as HAProxy cuts its lines */
	while (p < len) {
		unsigned char c = (unsigned char)buf[p];
		char esc = 0;

		if (c == '\t')
			esc = 't';
		else if (c == '\n')
			esc = 'n';
		else if (c == '\r')
			esc = 'r';
		else if (c == 0x1b)
			esc = 'e';
		else if (c == '\\')
			esc = '\\';
		if (esc) {
			if (o + 2 > 79)
				break;
			out[o++] = '\\';
			out[o++] = esc;
		} else if (c >= 0x20 && c < 0x7f) {
			if (o + 1 > 79)
				break;
			out[o++] = (char)c;
		} else {
			if (o + 4 > 79)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
		p++;
		if (c == '\n') {
			*line_start = p;
			break;
		}
	}
	out[o++] = '\n';
	*pos = p;
	return o;
}

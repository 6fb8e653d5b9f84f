// FUZZ_SRCS: src/stats/stat_out.c src/stats/stat_fields.c
/* libFuzzer target for the stats writers (stats/stat_out.c): the input's NUL-separated
 * pieces become the string fields of a line (names, status, check description) and its
 * bytes the numbers; the line is written as CSV, typed and JSON fields, and as info
 * fields, into a large buffer and into every smaller size: a writer either fails
 * (nothing counted) or writes exactly the large result. CSV cells must unquote and JSON
 * strings unescape back to the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stats/stats.h>

static char fz_big[1 << 16], fz_small[1 << 16];

/* Runs <call_big> into the large buffer, then <call_small> (writing to fz_b of fz_sz bytes)
 * at sizes up to the large result's: each either fails or writes the same bytes. */
#define FZ_SIZES(call_big, call_small)                                                        \
	do {                                                                                  \
		size_t big_len = (call_big), n;                                               \
		if (big_len == (size_t)-1)                                                    \
			break;                                                                \
		for (size_t sz = 1; sz <= big_len + 1; sz += 1 + sz / 8) {                    \
			char *fz_b = fz_small;                                                \
			size_t fz_sz = sz;                                                    \
			(void)fz_b;                                                           \
			(void)fz_sz;                                                          \
			n = (call_small);                                                     \
			if (n != (size_t)-1 && (n != big_len || memcmp(fz_small, fz_big, n))) \
				abort();                                                      \
		}                                                                             \
	} while (0)

/* Unquotes CSV cell <s> (up to the first unquoted comma) into <out>. */
static size_t fz_csv_cell(const char *s, char *out)
{
	size_t n = 0;

	if (*s != '"') {
		while (*s && *s != ',')
			out[n++] = *s++;
		out[n] = 0;
		return n;
	}
	for (s++; *s; s++) {
		if (*s == '"' && s[1] == '"')
			out[n++] = *s++;
		else if (*s == '"')
			break;
		else
			out[n++] = *s;
	}
	out[n] = 0;
	return n;
}

static void fz_check_csv(const struct stat_line *l)
{
	static char cell[1 << 16];
	size_t len = stat_out_value(fz_big, 0, sizeof(fz_big), &l->f[ST_check_desc]);

	if (len == (size_t)-1)
		return;
	fz_csv_cell(fz_big, cell);
	if (strcmp(cell, l->f[ST_check_desc].u.str) != 0)
		abort();
}

/* Finds the JSON string after "value":{"type":"str","value": and unescapes it. */
static void fz_check_json(const struct stat_line *l)
{
	static char out[1 << 16];
	const char *key = "\"type\":\"str\",\"value\":\"", *p;
	size_t len = stat_out_json_field(fz_big, 0, sizeof(fz_big), l, ST_check_desc, true), n = 0;

	if (len == (size_t)-1)
		return;
	p = strstr(fz_big, key);
	if (!p)
		abort();
	for (p += strlen(key); *p && *p != '"'; p++) {
		if (*p != '\\') {
			out[n++] = *p;
		} else if (p[1] == 'u') {
			out[n++] = (char)strtol((char[]){ p[4], p[5], 0 }, NULL, 16);
			p += 5;
		} else {
			out[n++] = *++p;
		}
	}
	out[n] = 0;
	if (*p != '"' || strcmp(out, l->f[ST_check_desc].u.str) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stat_line l;
	char *in = malloc(size + 1);
	const char *piece[4] = { "", "", "", "" };
	size_t np = 0, off = 0;

	if (!in)
		abort();
	memcpy(in, data, size);
	in[size] = 0;
	while (np < 4 && off <= size) {
		piece[np++] = in + off;
		off += strlen(in + off) + 1;
	}
	stat_line_reset(&l);
	l.obj = (enum stat_obj)(size % 4);
	l.iid = (int)size;
	l.sid = size ? data[0] : 0;
	STAT_STR(&l, ST_pxname, piece[0]);
	STAT_STR(&l, ST_svname, piece[1]);
	stat_set_fmt(&l, stat_cols, ST_status, "%s", piece[2]);
	stat_set_fmt(&l, stat_cols, ST_check_desc, "%s", piece[3]);
	for (size_t i = 0; i < size && i < 64; i++)
		if (l.f[ST_qcur + i].type == SF_EMPTY && ST_qcur + i < ST_NCOLS)
			STAT_NUM(&l, (int)(ST_qcur + i), (int64_t)data[i] << (i % 40));
	if (size > 2)
		stat_set_tags(&l, ST_qcur, (const char *)data);
	FZ_SIZES(stat_out_csv_line(fz_big, 0, sizeof(fz_big), &l),
		 stat_out_csv_line(fz_b, 0, fz_sz, &l));
	for (int i = 0; i < ST_NCOLS; i++) {
		FZ_SIZES(stat_out_typed_field(fz_big, 0, sizeof(fz_big), &l, i, i & 1),
			 stat_out_typed_field(fz_b, 0, fz_sz, &l, i, i & 1));
		FZ_SIZES(stat_out_json_field(fz_big, 0, sizeof(fz_big), &l, i, i & 1),
			 stat_out_json_field(fz_b, 0, fz_sz, &l, i, i & 1));
	}
	for (int i = 0; i < INF_NFIELDS; i++) {
		FZ_SIZES(info_out_plain_field(fz_big, 0, sizeof(fz_big), &l, i, i & 1),
			 info_out_plain_field(fz_b, 0, fz_sz, &l, i, i & 1));
		FZ_SIZES(info_out_json_field(fz_big, 0, sizeof(fz_big), &l, i, false),
			 info_out_json_field(fz_b, 0, fz_sz, &l, i, false));
	}
	fz_check_csv(&l);
	fz_check_json(&l);
	free(in);
	return 0;
}

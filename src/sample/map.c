/* Maps and the map* converters. A map file is read once into one block (keys and values
 * cut in place, as HAProxy reads them: '#' in the first column starts a comment, the key
 * is the first word, the value the rest of the line without its surrounding blanks); each
 * (match method, output type) pair used on it gets a pattern set indexing the keys and an
 * array of values converted to that type. Everything is built at config time and freed by
 * map_deinit(); lookups only read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/conv.h>
#include <sample/map.h>
#include <sample/pattern.h>
#include <sample/regex.h>
#include <sample/sample.h>

/* One line of a map file. */
struct map_entry {
	const char *key;
	const char *value; /* "" when the line has no value */
	int line;
};

/* A file as read, shared by every map on it. */
struct map_file {
	struct map_file *next;
	char *path;
	char *text; /* the file, cut in place; entries point into it */
	struct map_entry *ents;
	size_t count;
};

struct map_desc {
	struct map_desc *next;
	struct map_file *file;
	uint8_t match;		  /* PAT_MATCH_* */
	uint8_t out;		  /* SMP_T_STR, SMP_T_SINT, SMP_T_ADDR */
	struct pat_set set;	  /* pattern->value points into vals[] */
	struct sample_data *vals; /* one per entry of the file */
};

static struct map_file *map_files;
static struct map_desc *map_descs;
static unsigned int nb_files_loaded;

/* ---- reading files ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_eol(char c)
{
	return c == '\0' || c == '\r' || c == '\n';
}

/* Reads the whole of <path> into a NUL-terminated block (*len bytes before the NUL). */
static char *map_slurp(const char *path, size_t *len, char *err, size_t errsz)
{
	FILE *f = fopen(path, "r");
	size_t size = 4096, n = 0, got;
	char *buf = NULL, *nb;

	if (!f) {
		snprintf(err, errsz, "failed to open pattern file <%s>", path);
		return NULL;
	}
	while (1) {
		if (n + 1 >= size || !buf) {
			size = buf ? size * 2 : size;
			nb = realloc(buf, size);
			if (!nb)
				goto out_nomem;
			buf = nb;
		}
		got = fread(buf + n, 1, size - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errsz, "failed to read pattern file <%s>: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
out_nomem:
	free(buf);
	fclose(f);
	snprintf(err, errsz, "out of memory");
	return NULL;
}

/* Cuts one line starting at <p> (ending at '\n' or the end) into <e>; returns the start
 * of the next line. Comments and empty lines leave e->key NULL. */
static char *map_cut_line(char *p, char *end, struct map_entry *e)
{
	char *eol = memchr(p, '\n', (size_t)(end - p));
	char *next = eol ? eol + 1 : end;
	char *k, *v, *ve;

	if (eol)
		*eol = '\0';
	e->key = NULL;
	if (*p == '#')
		return next;
	for (k = p; is_blank(*k); k++)
		;
	if (is_eol(*k))
		return next;
	for (v = k; !is_eol(*v) && !is_blank(*v); v++)
		;
	ve = v;
	for (; is_blank(*v); v++)
		;
	e->key = k;
	e->value = v;
	for (; !is_eol(*v); v++)
		;
	while (v > e->value && is_blank(v[-1]))
		v--;
	*v = '\0';
	*ve = '\0';
	return next;
}

static void map_file_free(struct map_file *mf)
{
	if (!mf)
		return;
	free(mf->path);
	free(mf->text);
	free(mf->ents);
	free(mf);
}

static struct map_file *map_file_load(const char *path, char *err, size_t errsz)
{
	struct map_file *mf = calloc(1, sizeof(*mf));
	size_t len, cap = 0, lines = 0;
	char *p, *end;

	if (!mf || !(mf->path = strdup(path)))
		goto out_nomem;
	mf->text = map_slurp(path, &len, err, errsz);
	if (!mf->text)
		goto out_free;
	for (p = mf->text; p < mf->text + len; p++)
		cap += *p == '\n';
	cap++;
	mf->ents = calloc(cap, sizeof(*mf->ents));
	if (!mf->ents)
		goto out_nomem;
	for (p = mf->text, end = mf->text + len; p < end;) {
		struct map_entry *e = &mf->ents[mf->count];

		p = map_cut_line(p, end, e);
		e->line = (int)++lines;
		if (e->key)
			mf->count++;
	}
	nb_files_loaded++;
	return mf;
out_nomem:
	snprintf(err, errsz, "out of memory");
out_free:
	map_file_free(mf);
	return NULL;
}

/* ---- values ---- */

/* HAProxy's dotted quad: four decimal numbers up to 255, leading zeros allowed. */
static bool map_parse_ipv4(const char *s, struct in_addr *a)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned n = 0, digits = 0;

		for (; *s >= '0' && *s <= '9'; s++, digits++) {
			n = n * 10 + (unsigned)(*s - '0');
			if (n > 255)
				return false;
		}
		if (!digits || (i < 3 ? *s++ != '.' : *s != '\0'))
			return false;
		v = v << 8 | n;
	}
	a->s_addr = htonl(v);
	return true;
}

/* Converts the text <s> to <out> (SMP_T_STR keeps a view of it). Returns 0 or -1. */
static int map_parse_value(const char *s, int out, struct sample_data *d)
{
	const char *end;

	switch (out) {
	case SMP_T_SINT:
		d->type = SMP_T_SINT;
		d->u.sint = conv_read_int64(s, strlen(s), &end);
		return *end ? -1 : 0;
	case SMP_T_ADDR:
		if (map_parse_ipv4(s, &d->u.ipv4)) {
			d->type = SMP_T_IPV4;
			return 0;
		}
		d->type = SMP_T_IPV6;
		return inet_pton(AF_INET6, s, &d->u.ipv6) == 1 ? 0 : -1;
	}
	d->type = SMP_T_STR;
	d->u.str = ist_str(s);
	return 0;
}

/* ---- maps ---- */

static void map_desc_free(struct map_desc *m)
{
	pat_set_free(&m->set);
	free(m->vals);
	free(m);
}

static struct map_desc *map_build(struct map_file *mf, int match, int out, char *err, size_t errsz)
{
	struct map_desc *m = calloc(1, sizeof(*m));
	char perr[256];

	if (!m || !(m->vals = calloc(mf->count ? mf->count : 1, sizeof(*m->vals)))) {
		free(m);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	m->file = mf;
	m->match = (uint8_t)match;
	m->out = (uint8_t)out;
	pat_set_init(&m->set, match, 0);
	for (size_t i = 0; i < mf->count; i++) {
		const struct map_entry *e = &mf->ents[i];
		const char *bad;

		if (map_parse_value(e->value, out, &m->vals[i]) < 0) {
			snprintf(err, errsz, "unable to parse '%s' at line %d of file '%s'",
				 e->value, e->line, mf->path);
			goto out_free;
		}
		if (match == PAT_MATCH_REGM && (bad = regex_subst_check(e->value))) {
			snprintf(err, errsz,
				 "invalid escape at offset %d of '%s' at line %d of "
				 "file '%s'",
				 (int)(bad - e->value), e->value, e->line, mf->path);
			goto out_free;
		}
		if (pat_set_add(&m->set, e->key, PAT_OP_NONE, &m->vals[i], perr, sizeof(perr)) <
		    0) {
			snprintf(err, errsz, "%s at line %d of file '%s'", perr, e->line, mf->path);
			goto out_free;
		}
	}
	return m;
out_free:
	map_desc_free(m);
	return NULL;
}

struct map_desc *map_get(const char *path, int match, int out_type, char *err, size_t errsz)
{
	struct map_file *mf;
	struct map_desc *m;

	for (m = map_descs; m; m = m->next)
		if (m->match == match && m->out == out_type && !strcmp(m->file->path, path))
			return m;
	for (mf = map_files; mf; mf = mf->next)
		if (!strcmp(mf->path, path))
			break;
	if (!mf) {
		mf = map_file_load(path, err, errsz);
		if (!mf)
			return NULL;
		mf->next = map_files;
		map_files = mf;
	}
	m = map_build(mf, match, out_type, err, errsz);
	if (!m)
		return NULL;
	m->next = map_descs;
	map_descs = m;
	return m;
}

/* map_regm: the value with \N replaced by the groups of the match */
static int map_lookup_regm(const struct map_desc *m, struct sample *smp)
{
	struct regex_match g[REGEX_MAX_MATCH];
	const struct sample_data *v;
	struct pattern *p;
	char *t;
	int n;

	p = pat_match_regm(&m->set, smp, g, REGEX_MAX_MATCH);
	if (!p)
		return 0;
	v = p->value;
	t = smp_trash();
	if (!t)
		return 0;
	n = regex_expand(t, smp_trash_size(), v->u.str.ptr, smp->data.u.str.ptr, g,
			 REGEX_MAX_MATCH);
	if (n < 0)
		return 0;
	conv_set_str(smp, SMP_T_STR, t, (size_t)n);
	return 1;
}

int map_lookup(const struct map_desc *m, struct sample *smp)
{
	struct pattern *p;

	if (m->match == PAT_MATCH_REGM)
		return map_lookup_regm(m, smp);
	p = pat_match(&m->set, smp); /* the IP tree also finds IPv4 in IPv6 and the reverse */
	if (!p)
		return 0;
	smp->data = *(const struct sample_data *)p->value;
	if (smp->data.type == SMP_T_STR)
		smp->flags |= SMP_F_CONST;
	return 1;
}

size_t map_count(const struct map_desc *m)
{
	return m->set.count;
}

unsigned int map_files_loaded(void)
{
	return nb_files_loaded;
}

void map_deinit(void)
{
	while (map_descs) {
		struct map_desc *m = map_descs;

		map_descs = m->next;
		map_desc_free(m);
	}
	while (map_files) {
		struct map_file *mf = map_files;

		map_files = mf->next;
		map_file_free(mf);
	}
}

/* ---- the converters ---- */

#define MAP_PRIV(match, out) CONV_PRIV((match) | (out) << 8)

/* Loads the map named by the first argument and converts the default value (the second)
 * to the output type. */
static int conv_map_check(struct arg *args, void *private, char *err, size_t errsz)
{
	int match = CONV_PRIV_INT(private) & 0xff, out = CONV_PRIV_INT(private) >> 8;
	struct sample_data d;
	struct map_desc *m;

	m = map_get(args[0].data.str.ptr, match, out, err, errsz);
	if (!m)
		return -1;
	free((char *)args[0].data.str.ptr);
	args[0].owns = ARG_OWN_NONE;
	args[0].data.map = m;
	if (args[1].type != ARGT_STR || out == SMP_T_STR)
		return 0;
	if (map_parse_value(args[1].data.str.ptr, out, &d) < 0) {
		if (out == SMP_T_SINT)
			snprintf(err, errsz,
				 "failed to parse '%s' as type 'integer' at "
				 "position 2",
				 args[1].data.str.ptr);
		else
			snprintf(err, errsz, "map: cannot parse default ip <%s>",
				 args[1].data.str.ptr);
		return -1;
	}
	free((char *)args[1].data.str.ptr);
	args[1].owns = ARG_OWN_NONE;
	if (out == SMP_T_SINT) {
		args[1].type = ARGT_SINT;
		args[1].data.sint = d.u.sint;
	} else if (d.type == SMP_T_IPV4) {
		args[1].type = ARGT_IPV4;
		args[1].data.ipv4 = d.u.ipv4;
	} else {
		args[1].type = ARGT_IPV6;
		args[1].data.ipv6 = d.u.ipv6;
	}
	return 0;
}

/* map*(file[,default]): the value of the first (or finest) matching key, else the
 * default, else the converter fails. */
static int conv_map(const struct arg *args, struct sample *smp, void *private)
{
	if (map_lookup(args[0].data.map, smp))
		return 1;
	switch (args[1].type) {
	case ARGT_STR:
		smp->data.type = SMP_T_STR;
		smp->data.u.str = args[1].data.str;
		smp->flags |= SMP_F_CONST;
		return 1;
	case ARGT_SINT:
		conv_set_sint(smp, SMP_T_SINT, args[1].data.sint);
		return 1;
	case ARGT_IPV4:
		smp->data.type = SMP_T_IPV4;
		smp->data.u.ipv4 = args[1].data.ipv4;
		return 1;
	case ARGT_IPV6:
		smp->data.type = SMP_T_IPV6;
		smp->data.u.ipv6 = args[1].data.ipv6;
		return 1;
	}
	return 0;
}

#define MAP_KW(name, in, match, out)                                                \
	{                                                                           \
		name, conv_map, 1, { ARGT_MAP, ARGT_STR }, conv_map_check, in, out, \
			MAP_PRIV(match, out)                                        \
	}

#define MAP_KW3(base, in, match)                                                        \
	MAP_KW(base, in, match, SMP_T_STR), MAP_KW(base "_int", in, match, SMP_T_SINT), \
		MAP_KW(base "_ip", in, match, SMP_T_ADDR)

static const struct sample_conv map_convs[] = {
	MAP_KW("map", SMP_T_STR, PAT_MATCH_STR, SMP_T_STR),
	MAP_KW3("map_str", SMP_T_STR, PAT_MATCH_STR),
	MAP_KW3("map_beg", SMP_T_STR, PAT_MATCH_BEG),
	MAP_KW3("map_sub", SMP_T_STR, PAT_MATCH_SUB),
	MAP_KW3("map_dir", SMP_T_STR, PAT_MATCH_DIR),
	MAP_KW3("map_dom", SMP_T_STR, PAT_MATCH_DOM),
	MAP_KW3("map_end", SMP_T_STR, PAT_MATCH_END),
	MAP_KW3("map_reg", SMP_T_STR, PAT_MATCH_REG),
	MAP_KW("map_regm", SMP_T_STR, PAT_MATCH_REGM, SMP_T_STR),
	MAP_KW3("map_int", SMP_T_SINT, PAT_MATCH_INT),
	MAP_KW3("map_ip", SMP_T_ADDR, PAT_MATCH_IP),
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(map_convs)

/* Maps and the map* converters, and the references the runtime API changes. A map file is
 * read once into a reference (its entries: key, value, as HAProxy cuts them: '#' in the first
 * column starts a comment, the key is the first word, the value the rest of the line without
 * its surrounding blanks); each (match method, output type) pair used on it gets a pattern
 * set indexing the keys with the values converted to that type. ACL pattern files and inline
 * ACL patterns are references too (acl.c attaches its sets). At run time the CLI (one writer,
 * under map_lock) adds, changes and removes entries in every set of a reference while the
 * converters and ACLs read without a lock (pattern.c); what it removes is retired.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <sample/arg.h>
#include <sample/conv.h>
#include <sample/map.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>
#include <sample/regex.h>
#include <sample/sample.h>

struct map_desc {
	struct map_desc *next;
	struct map_ref *ref;
	uint8_t match;	    /* PAT_MATCH_* */
	uint8_t out;	    /* SMP_T_STR, SMP_T_SINT, SMP_T_ADDR */
	struct pat_set set; /* pattern->value: a struct sample_data (owned by the entry) */
};

static struct map_ref *map_refs, **map_refs_tail = &map_refs;
static struct map_desc *map_descs;
static unsigned int nb_files_loaded;
static int map_next_id;
pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reading files ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
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

/* ---- references ---- */

static void map_elt_free(struct map_elt *el)
{
	struct pattern *p, *n;

	for (p = el->pats; p; p = n) {
		n = p->ref_next;
		free(p->value);
		pat_free_one(p);
	}
	free(el->key);
	free(el->value);
	free(el);
}

static void map_elt_free_v(void *el)
{
	map_elt_free(el);
}

/* Frees an entry still linked in live sets (exit): the sets free their own patterns and
 * the maps their values (the patterns may be gone already). */
static void map_elt_free_bare(struct map_elt *el)
{
	free(el->key);
	free(el->value);
	free(el);
}

static void map_ref_free(struct map_ref *r)
{
	struct map_elt *el, *n;

	for (el = r->head; el; el = n) {
		n = el->next;
		if (el->gen == r->curr_ver)
			map_elt_free_bare(el);
		else
			map_elt_free(el); /* a version not committed: in no set */
	}
	free(r->sets);
	free(r->path);
	free(r->desc);
	free(r);
}

struct map_ref *map_ref_new(const char *path, unsigned flags, const char *desc)
{
	struct map_ref *r = calloc(1, sizeof(*r));

	if (!r || (path && !(r->path = strdup(path))) || !(r->desc = strdup(desc))) {
		if (r)
			free(r->path);
		free(r);
		return NULL;
	}
	r->flags = flags;
	r->id = map_next_id++;
	*map_refs_tail = r;
	map_refs_tail = &r->next;
	return r;
}

struct map_ref *map_ref_find_path(const char *path, unsigned flags)
{
	for (struct map_ref *r = map_refs; r; r = r->next)
		if (r->path && (r->flags & flags) && !strcmp(r->path, path))
			return r;
	return NULL;
}

struct map_ref *map_ref_lookup(const char *name, unsigned flags)
{
	char *end;
	long id;

	if (name[0] != '#')
		return map_ref_find_path(name, flags);
	errno = 0;
	id = strtol(name + 1, &end, 10);
	if (end == name + 1 || *end || errno)
		return NULL;
	for (struct map_ref *r = map_refs; r; r = r->next)
		if (r->id == id && (r->flags & flags))
			return r;
	return NULL;
}

struct map_ref *map_ref_first(void)
{
	return map_refs;
}

void map_ref_mark_indexed(const struct pat_set *ps)
{
	for (struct map_ref *r = map_refs; r; r = r->next)
		for (int i = 0; i < r->nsets; i++)
			if (r->sets[i].ps == ps)
				r->flags |= MAP_REF_F_INDEXED;
}

/* Appends an entry to <r> (not to its sets). */
struct map_elt *map_ref_append(struct map_ref *r, const char *key, const char *value, int op,
			       unsigned gen)
{
	struct map_elt *el = calloc(1, sizeof(*el));

	if (!el || !(el->key = strdup(key)) || !(el->value = strdup(value ? value : ""))) {
		if (el)
			free(el->key);
		free(el);
		return NULL;
	}
	el->op = op;
	el->gen = gen;
	el->prev = r->tail;
	if (r->tail)
		r->tail->next = el;
	else
		r->head = el;
	r->tail = el;
	if (gen == r->curr_ver)
		r->count++;
	return el;
}

static void map_ref_unlink(struct map_ref *r, struct map_elt *el)
{
	if (el->prev)
		el->prev->next = el->next;
	else
		r->head = el->next;
	if (el->next)
		el->next->prev = el->prev;
	else
		r->tail = el->prev;
	if (el->gen == r->curr_ver)
		r->count--;
	r->dels++;
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

/* The value of <s> for set <rs> (NULL for an ACL set), allocated; NULL with err set. */
static struct sample_data *map_value_for(const struct map_ref_set *rs, const char *s, char *err,
					 size_t errsz)
{
	struct sample_data *d;
	const char *bad;

	if (rs->out < 0)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if (map_parse_value(s, rs->out, d) < 0) {
		snprintf(err, errsz, "unable to parse '%s'", s);
		free(d);
		return NULL;
	}
	if (rs->ps->match == PAT_MATCH_REGM && (bad = regex_subst_check(s))) {
		snprintf(err, errsz, "invalid escape at offset %d of '%s'", (int)(bad - s), s);
		free(d);
		return NULL;
	}
	return d;
}

/* Adds entry <el> to set <rs>: its pattern (and value) chained on el->pats. <live>: readers
 * run. 0 or -1 with err. */
static int map_elt_index(struct map_ref_set *rs, struct map_elt *el, bool live, char *err,
			 size_t errsz)
{
	struct sample_data *d = NULL;
	struct pattern *p;

	if (rs->out >= 0 && !(d = map_value_for(rs, el->value, err, errsz)))
		return -1;
	p = pat_set_add_ref(rs->ps, el->key, el->op, d, live, err, errsz);
	if (!p)
		goto out_free;
	p->ref = el;
	p->ref_next = el->pats;
	el->pats = p;
	return 0;
out_free:
	free(d);
	return -1;
}

/* Takes the patterns of <el> out of their sets (they stay on el->pats for the retire). */
static void map_elt_unindex(struct map_elt *el)
{
	for (struct pattern *p = el->pats; p; p = p->ref_next)
		pat_set_del_live(p);
}

int map_ref_attach(struct map_ref *r, struct pat_set *ps, int out, char *err, size_t errsz)
{
	struct map_ref_set *ns = realloc(r->sets, (r->nsets + 1) * sizeof(*ns));

	if (!ns) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	r->sets = ns;
	ns[r->nsets].ps = ps;
	ns[r->nsets].out = out;
	r->nsets++;
	for (struct map_elt *el = r->head; el; el = el->next) {
		if (map_elt_index(&ns[r->nsets - 1], el, false, err, errsz) < 0) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", err);
			if (r->path)
				snprintf(err, errsz, "%s at line %d of file '%s'", msg, el->line,
					 r->path);
			else
				snprintf(err, errsz, "%s", msg);
			return -1;
		}
	}
	return 0;
}

void map_ref_detach(const struct pat_set *ps)
{
	for (struct map_ref *r = map_refs; r; r = r->next)
		for (int i = 0; i < r->nsets; i++)
			if (r->sets[i].ps == ps)
				r->sets[i--] = r->sets[--r->nsets];
}

int map_ref_add(struct map_ref *r, const char *key, const char *value, unsigned gen, char *err,
		size_t errsz)
{
	struct map_elt *el;

	if (pat_retire_reserve(1) < 0 || !(el = map_ref_append(r, key, value, PAT_OP_NONE, gen))) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	for (int i = 0; i < r->nsets && gen != r->curr_ver; i++) {
		struct sample_data *d = NULL;

		if (r->sets[i].out >= 0 && !(d = map_value_for(&r->sets[i], value, err, errsz)))
			goto out_undo;
		free(d);
	}
	for (int i = 0; i < r->nsets && gen == r->curr_ver; i++)
		if (map_elt_index(&r->sets[i], el, true, err, errsz) < 0)
			goto out_undo;
	return 0;
out_undo:
	map_ref_unlink(r, el);
	r->dels--;
	map_elt_unindex(el);
	pat_retire(el, map_elt_free_v); /* readers may hold its patterns */
	return -1;
}

int map_ref_del(struct map_ref *r, struct map_elt *el)
{
	if (pat_retire_reserve(1) < 0)
		return -1;
	map_ref_unlink(r, el);
	if (el->gen == r->curr_ver)
		map_elt_unindex(el);
	pat_retire(el, map_elt_free_v);
	return 0;
}

static void map_value_free_v(void *p)
{
	free(p);
}

int map_ref_set_value(struct map_ref *r, struct map_elt *el, const char *value, char *err,
		      size_t errsz)
{
	struct sample_data **nv = calloc(r->nsets + 1, sizeof(*nv));
	char *ns = strdup(value);
	struct pattern *p;
	int i = 0, rc = -1;

	if (!nv || !ns || pat_retire_reserve(r->nsets + 1) < 0) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	if (el->gen == r->curr_ver) {
		for (p = el->pats; p; p = p->ref_next, i++) {
			const struct map_ref_set *rs = NULL;

			for (int k = 0; k < r->nsets; k++)
				if (r->sets[k].ps == p->set)
					rs = &r->sets[k];
			if (rs && rs->out >= 0 && !(nv[i] = map_value_for(rs, ns, err, errsz)))
				goto out;
		}
		/* every value parsed: now switch them (strings point into <ns>) */
		for (p = el->pats, i = 0; p; p = p->ref_next, i++) {
			if (!nv[i])
				continue;
			pat_retire(p->value, map_value_free_v);
			HA_ATOMIC_STORE(&p->value, (void *)nv[i]);
			nv[i] = NULL;
		}
	}
	pat_retire(el->value, map_value_free_v);
	el->value = ns;
	ns = NULL;
	rc = 0;
out:
	for (int k = 0; nv && k <= r->nsets; k++)
		free(nv[k]);
	free(nv);
	free(ns);
	return rc;
}

int map_ref_commit(struct map_ref *r, unsigned ver, char *err, size_t errsz)
{
	struct map_elt *el, *n;
	int rc = 0;

	/* entries of <ver> go in first, then the older ones go out: readers never see the
	 * map empty in between */
	for (el = r->head; el; el = el->next) {
		if (el->gen != ver)
			continue;
		for (int i = 0; i < r->nsets; i++)
			if (map_elt_index(&r->sets[i], el, true, err, errsz) < 0)
				rc = -1; /* checked by "add": out of memory, it stays out */
	}
	if (pat_retire_reserve(r->count + 1) < 0) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	for (el = r->head; el; el = n) {
		n = el->next;
		if (el->gen == ver || (int)(el->gen - ver) > 0)
			continue;
		map_ref_unlink(r, el);
		if (el->gen == r->curr_ver)
			map_elt_unindex(el);
		pat_retire(el, map_elt_free_v);
	}
	r->curr_ver = ver;
	r->count = 0;
	for (el = r->head; el; el = el->next)
		r->count += el->gen == ver;
	return rc;
}

int map_ref_purge(struct map_ref *r, unsigned gen)
{
	struct map_elt *el, *n;
	size_t k = 0;

	for (el = r->head; el; el = el->next)
		k += el->gen == gen;
	if (pat_retire_reserve(k) < 0)
		return -1;
	for (el = r->head; el; el = n) {
		n = el->next;
		if (el->gen == gen)
			map_ref_del(r, el);
	}
	return 0;
}

struct map_ref *map_ref_load_file(const char *path, unsigned flags, const char *desc, char *err,
				  size_t errsz)
{
	struct map_ref *r;
	char *text, *p, *end, *eol, *key, *value;
	size_t len;
	int line = 0;

	text = map_slurp(path, &len, err, errsz);
	if (!text)
		return NULL;
	r = map_ref_new(path, flags, desc);
	if (!r)
		goto out_nomem;
	for (p = text, end = text + len; p < end; p = eol ? eol + 1 : end) {
		struct map_elt *el;

		eol = memchr(p, '\n', (size_t)(end - p));
		if (eol)
			*eol = '\0';
		line++;
		if (flags & MAP_REF_F_ACLFILE) { /* the whole trimmed line is a pattern */
			for (key = p; is_blank(*key); key++)
				;
			value = key + strlen(key);
			while (value > key && (is_blank(value[-1]) || value[-1] == '\r'))
				*--value = '\0';
			if (!*key || *key == '#')
				continue;
		} else if (!map_cut_line(p, &key, &value)) {
			continue;
		}
		el = map_ref_append(r, key, value, PAT_OP_NONE, 0);
		if (!el)
			goto out_nomem;
		el->line = line;
	}
	free(text);
	nb_files_loaded++;
	return r;
out_nomem:
	free(text);
	snprintf(err, errsz, "out of memory");
	return NULL; /* a half-made reference stays listed and is freed by map_deinit() */
}

/* ---- maps ---- */

static const char *map_cfg_where(char *buf, size_t sz)
{
	const struct smp_parse_ctx *pc = smp_parse_cur;

	if (pc && pc->file)
		snprintf(buf, sz, " at file '%s' line %d", pc->file, pc->line);
	else
		buf[0] = '\0';
	return buf;
}

struct map_desc *map_get(const char *path, int match, int out_type, char *err, size_t errsz)
{
	struct map_ref *r;
	struct map_desc *m;
	char where[300], desc[1024];

	for (m = map_descs; m; m = m->next)
		if (m->match == match && m->out == out_type && !strcmp(m->ref->path, path))
			return m;
	r = map_ref_find_path(path, MAP_REF_F_MAP);
	if (!r) {
		snprintf(desc, sizeof(desc), "pattern loaded from file '%s' used by map%s", path,
			 map_cfg_where(where, sizeof(where)));
		r = map_ref_load_file(path, MAP_REF_F_MAP, desc, err, errsz);
		if (!r)
			return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	m->ref = r;
	m->match = (uint8_t)match;
	m->out = (uint8_t)out_type;
	pat_set_init(&m->set, match, 0);
	m->next = map_descs;
	map_descs = m;
	if (map_ref_attach(r, &m->set, out_type, err, errsz) < 0)
		return NULL;
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
	v = HA_ATOMIC_LOAD(&p->value);
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
	/* acquire: the value was complete before a "set map" published it */
	smp->data = *(const struct sample_data *)HA_ATOMIC_LOAD(&p->value);
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
	pat_retire_flush();
	while (map_descs) {
		struct map_desc *m = map_descs;

		map_descs = m->next;
		for (struct pattern *p = m->set.head; p; p = p->next)
			free(p->value);
		pat_set_free(&m->set);
		free(m);
	}
	while (map_refs) {
		struct map_ref *r = map_refs;

		map_refs = r->next;
		map_ref_free(r);
	}
	map_refs_tail = &map_refs;
	map_next_id = 0;
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
	if (out == SMP_T_SINT) {
		arg_set_sint(&args[1], d.u.sint);
	} else if (d.type == SMP_T_IPV4) {
		arg_drop_str(&args[1], ARGT_IPV4);
		args[1].data.ipv4 = d.u.ipv4;
	} else {
		arg_drop_str(&args[1], ARGT_IPV6);
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

/* crt-list files: one certificate per line with its own TLS options and SNI filters. A
 * file is read once; every bind line naming it gets one certificate instance per line
 * (per file for a directory). Parse time, and the runtime API's add/del ssl crt-list
 * (ssl_crtlist_cli.c). Main thread only.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ssl/ssl.h>
#include <ssl/ssl_crtlist.h>

#include "ssl_int.h"

struct crtlist *crtlists;

struct crtlist *crtlist_find(const char *path)
{
	for (struct crtlist *cl = crtlists; cl; cl = cl->next)
		if (!strcmp(cl->path, path))
			return cl;
	return NULL;
}

static void crtlist_words_free(char **w, int n)
{
	for (int i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

void crtlist_entry_free(struct crtlist_entry *e)
{
	if (!e)
		return;
	free(e->crt);
	crtlist_words_free(e->opts, e->nb_opts);
	crtlist_words_free(e->filters, e->nb_filters);
	free(e);
}

/* A copy of <n> words (lowercased when <lower>: SNI filters), or NULL with n == 0. */
static int crtlist_words_dup(char ***dst, char *const *src, int n, bool lower)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = calloc((size_t)n, sizeof(char *));
	if (!*dst)
		return -1;
	for (int i = 0; i < n; i++) {
		(*dst)[i] = strdup(src[i]);
		if (!(*dst)[i])
			return -1; /* the caller frees the partial copy (calloc'ed) */
		for (char *p = (*dst)[i]; lower && *p; p++)
			*p = (char)tolower((unsigned char)*p);
	}
	return 0;
}

/* Parses the option words of <e> into a new ssl_opts (NULL when the line has none).
 * Returns 0 or -1 with <err>. */
static int crtlist_opts_parse(const struct crtlist_entry *e, struct ssl_opts **out,
			      const char *where, int line, char *err, size_t errlen)
{
	struct ssl_opts *o;
	char msg[400];

	*out = NULL;
	if (!e->nb_opts)
		return 0;
	o = calloc(1, sizeof(*o));
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	o->verify = SSLV_UNSET;
	for (int i = 0; i < e->nb_opts; i++) {
		int ret = ssl_opts_parse(o, e->opts, e->nb_opts, &i, false, msg, sizeof(msg));

		if (ret == 1)
			snprintf(msg, sizeof(msg), "unknown ssl keyword %s", e->opts[i]);
		if (ret != 0) {
			snprintf(err, errlen, "parsing [%s:%d]: %s", where, line, msg);
			ssl_opts_free(o);
			free(o);
			return -1;
		}
	}
	*out = o;
	return 0;
}

struct crtlist_entry *crtlist_entry_new(const struct crtlist_line *tl, const char *where, int line,
					char *err, size_t errlen)
{
	struct crtlist_entry *e = calloc(1, sizeof(*e));
	struct ssl_opts *o;

	if (!e)
		goto oom;
	e->line = line;
	e->brackets = tl->brackets;
	e->crt = ssl_path_join(ssl_set.crt_base, tl->crt);
	if (!e->crt)
		goto oom;
	e->nb_opts = tl->nb_opts;
	if (crtlist_words_dup(&e->opts, tl->opts, tl->nb_opts, false) < 0)
		goto oom;
	e->nb_filters = tl->nb_filters;
	if (crtlist_words_dup(&e->filters, tl->filters, tl->nb_filters, true) < 0)
		goto oom;
	/* the options are checked now, each bind line parses its own copy */
	if (crtlist_opts_parse(e, &o, where, line, err, errlen) < 0) {
		crtlist_entry_free(e);
		return NULL;
	}
	if (o) {
		ssl_opts_free(o);
		free(o);
	}
	return e;
oom:
	crtlist_entry_free(e);
	snprintf(err, errlen, "out of memory");
	return NULL;
}

/* The options in the order HAProxy 2.6 shows them; the others follow as written. */
static const char *const crtlist_show_order[] = {
	"alpn",	 "ca-file", "crl-file",	   "ciphers",	  "ciphersuites", "curves",
	"ecdhe", "verify",  "no-ca-names", "ssl-min-ver", "ssl-max-ver",
};

int crtlist_entry_opts_str(const struct crtlist_entry *e, char *buf, size_t len)
{
	size_t n = 0, nb_order = sizeof(crtlist_show_order) / sizeof(crtlist_show_order[0]);
	bool done[CRTLIST_MAX_WORDS] = { false };

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t pass = 0; pass <= nb_order; pass++) {
		for (int i = 0; i < e->nb_opts && i < CRTLIST_MAX_WORDS; i++) {
			struct ssl_opts o = { .verify = SSLV_UNSET };
			char msg[64];
			int j = i, r;

			if (done[i] ||
			    (pass < nb_order && strcmp(e->opts[i], crtlist_show_order[pass])))
				continue;
			/* how many words the option takes: parse it alone */
			r = ssl_opts_parse(&o, e->opts, e->nb_opts, &j, false, msg, sizeof(msg));
			ssl_opts_free(&o);
			if (r != 0)
				j = i;
			for (int k = i; k <= j; k++) {
				done[k] = true;
				r = snprintf(buf + n, len - n, "%s%s", n ? " " : "", e->opts[k]);
				if (r < 0 || (size_t)r >= len - n)
					return (int)(len - 1);
				n += (size_t)r;
			}
			/* 2.6 shows the ALPN list followed by a space */
			if (!strcmp(e->opts[i], "alpn") && j > i && n + 1 < len) {
				buf[n++] = ' ';
				buf[n] = '\0';
			}
			i = j;
		}
	}
	return (int)n;
}

static bool crtlist_extra_file(const char *name)
{
	static const char *const exts[] = { ".key", ".ocsp", ".issuer", ".sctl" };
	size_t n = strlen(name);

	if (name[0] == '.')
		return true;
	for (size_t k = 0; k < sizeof(exts) / sizeof(exts[0]); k++) {
		size_t l = strlen(exts[k]);

		if (n > l && !strcmp(name + n - l, exts[k]))
			return true;
	}
	return false;
}

/* Removes and frees the instances of line <e> of <cl> on <sb> that were never published
 * (their SNI table does not exist yet): the rollback of a failed instantiation. */
static void crtlist_insts_drop(struct crtlist *cl, const struct crtlist_entry *e,
			       struct ssl_bind *sb)
{
	struct ssl_cert_inst *inst, *tmp;

	list_for_each_entry_safe(inst, tmp, &sb->insts, by_bind)
	{
		if (!inst->crtlist || inst->crtlist_line != e->line ||
		    strcmp(inst->crtlist, cl->path))
			continue;
		list_delete(&inst->by_bind);
		list_delete(&inst->by_cert);
		if (inst->opts) {
			ssl_opts_free(inst->opts);
			free(inst->opts);
		}
		crtlist_words_free(inst->filters, inst->nb_filters);
		free(inst->crtlist);
		SSL_CTX_free(inst->ctx);
		free(inst);
	}
}

/* One certificate file of line <e> on <sb>. Returns 0 or -1 with <err>. */
static int crtlist_add_one(struct crtlist *cl, struct crtlist_entry *e, struct ssl_bind *sb,
			   const char *path, bool build, char *err, size_t errlen)
{
	struct ssl_cert *crt = ssl_cert_get(path, err, errlen);
	struct ssl_opts *o = NULL;
	struct ssl_cert_inst *inst;
	char **filters = NULL, *name = NULL;

	if (!crt)
		return -1;
	if (crtlist_opts_parse(e, &o, cl->path, e->line, err, errlen) < 0)
		return -1;
	name = strdup(cl->path);
	if (!name || crtlist_words_dup(&filters, e->filters, e->nb_filters, false) < 0)
		goto oom;
	inst = ssl_bind_add_cert(sb, crt, o, filters, e->nb_filters);
	if (!inst)
		goto oom;
	inst->crtlist = name;
	inst->crtlist_line = e->line;
	sb->has_crt = true;
	if (!build)
		return 0;
	if (o && ssl_opts_merge(o, &sb->opts) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1; /* the caller drops the line's instances */
	}
	inst->ctx = ssl_ctx_new_bind(inst, crt, err, errlen);
	return inst->ctx ? 0 : -1;
oom:
	free(name);
	if (filters)
		crtlist_words_free(filters, e->nb_filters);
	if (o) {
		ssl_opts_free(o);
		free(o);
	}
	snprintf(err, errlen, "out of memory");
	return -1;
}

int crtlist_entry_instantiate(struct crtlist *cl, struct crtlist_entry *e, struct ssl_bind *sb,
			      bool build, char *err, size_t errlen)
{
	struct stat st;
	struct dirent **de = NULL;
	int n, added = 0, rc = 0;

	if (stat(e->crt, &st) != 0 || !S_ISDIR(st.st_mode)) {
		if (crtlist_add_one(cl, e, sb, e->crt, build, err, errlen) < 0)
			goto fail;
		return 1;
	}
	/* a directory: every certificate file of it, in name order */
	n = scandir(e->crt, &de, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "unable to scan directory '%s'", e->crt);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat fst;

		if (rc == 0 && !crtlist_extra_file(de[i]->d_name) &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", e->crt, de[i]->d_name) <
			    sizeof(path) &&
		    stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) {
			rc = crtlist_add_one(cl, e, sb, path, build, err, errlen);
			added++;
		}
		free(de[i]);
	}
	free(de);
	if (rc < 0)
		goto fail;
	return added;
fail:
	crtlist_insts_drop(cl, e, sb);
	return -1;
}

/* Reads <path> into a new list. Returns it or NULL with <err>. */
static struct crtlist *crtlist_read(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct crtlist *cl;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0;

	if (!f) {
		snprintf(err, errlen, "'crt-list' : cannot open file '%s' : %s", path,
			 strerror(errno));
		return NULL;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl || !(cl->path = strdup(path))) {
		free(cl);
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	list_init(&cl->entries);
	while ((len = getline(&buf, &cap, f)) >= 0) {
		struct crtlist_line tl;
		struct crtlist_entry *e;
		const char *msg = NULL;
		char emsg[512];
		int r;

		line++;
		if ((size_t)len >= CRTLIST_MAX_LINE || strlen(buf) != (size_t)len) {
			snprintf(err, errlen, "'crt-list' : parsing [%s:%d]: %s", path, line,
				 (size_t)len >= CRTLIST_MAX_LINE ? "line too long"
								 : "NUL character in line");
			goto fail;
		}
		r = crtlist_tokenize(buf, &tl, &msg);
		if (r < 0) {
			snprintf(err, errlen, "'crt-list' : parsing [%s:%d]: %s", path, line, msg);
			goto fail;
		}
		if (!r)
			continue;
		e = crtlist_entry_new(&tl, path, line, emsg, sizeof(emsg));
		if (!e) {
			snprintf(err, errlen, "'crt-list' : %s", emsg);
			goto fail;
		}
		list_append(&cl->entries, &e->list);
	}
	cl->last_line = line;
	free(buf);
	fclose(f);
	return cl;
fail:
	free(buf);
	fclose(f);
	while (!list_empty(&cl->entries)) {
		struct crtlist_entry *e = list_elem(cl->entries.next, struct crtlist_entry, list);

		list_delete(&e->list);
		crtlist_entry_free(e);
	}
	free(cl->path);
	free(cl);
	return NULL;
}

int ssl_crtlist_load(struct ssl_bind *sb, const char *path, char *err, size_t errlen)
{
	struct crtlist *cl = crtlist_find(path);
	struct crtlist_entry *e;
	struct crtlist_bind *ref;
	bool fresh = !cl;

	if (!cl) {
		cl = crtlist_read(path, err, errlen);
		if (!cl)
			return -1;
	}
	ref = calloc(1, sizeof(*ref));
	if (!ref) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	list_for_each_entry(e, &cl->entries, list)
	{
		char msg[400];

		if (crtlist_entry_instantiate(cl, e, sb, false, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "'crt-list' : parsing [%s:%d]: %s", path, e->line,
				 msg);
			free(ref);
			goto fail;
		}
	}
	ref->sb = sb;
	{
		struct crtlist_bind **pb = &cl->binds; /* config order */

		while (*pb)
			pb = &(*pb)->next;
		*pb = ref;
	}
	if (fresh) {
		struct crtlist **p = &crtlists;

		while (*p)
			p = &(*p)->next;
		*p = cl;
	}
	return 0;
fail:
	/* the bind line is freed with the configuration; a fresh list is not kept */
	if (fresh) {
		list_for_each_entry(e, &cl->entries, list) crtlist_insts_drop(cl, e, sb);
		while (!list_empty(&cl->entries)) {
			e = list_elem(cl->entries.next, struct crtlist_entry, list);
			list_delete(&e->list);
			crtlist_entry_free(e);
		}
		free(cl->path);
		free(cl);
	}
	return -1;
}

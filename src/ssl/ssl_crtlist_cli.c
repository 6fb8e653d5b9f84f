/* Runtime API of crt-list files: "show ssl crt-list [-n] [FILE]", "add ssl crt-list FILE
 * LINE" (or a "<<" payload) and "del ssl crt-list FILE CERT[:LINE]". Changes apply to every
 * bind line using the list: their SNI tables are rebuilt and published atomically; what a
 * handshake on another thread may still use (the instance, its context and options) is
 * freed after a grace period (event/qsbr.h). Thread 0 only (the CLI's thread).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cli/cli.h>
#include <conn/listener-t.h>
#include <event/qsbr.h>
#include <ssl/ssl.h>
#include <ssl/ssl_crtlist.h>

#include "ssl_int.h"

/* ---- removed instances: freed once no handshake can find them ---- */

struct crtlist_grave {
	struct crtlist_grave *next;
	struct qs_snap snap;
	struct ssl_cert_inst *inst;
};
static struct crtlist_grave *crtlist_graves;

static void crtlist_inst_free(struct ssl_cert_inst *inst)
{
	if (inst->opts) {
		ssl_opts_free(inst->opts);
		free(inst->opts);
	}
	for (int i = 0; i < inst->nb_filters; i++)
		free(inst->filters[i]);
	free(inst->filters);
	free(inst->crtlist);
	free(inst);
}

/* The options of a removed instance belong to its context from then on: a handshake that
 * picked the context before the removal may still read them (ALPN selection, client
 * certificate verification, possibly several loop turns later), and the context lives as
 * long as such connections hold a reference to it. Freed with the context. */
static int crtlist_opts_idx = -1;

static void crtlist_opts_free_cb(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
				 void *argp)
{
	if (ptr) {
		ssl_opts_free(ptr);
		free(ptr);
	}
}

/* Moves the options of <inst> to its context. On failure they stay with <inst>, which
 * the caller must then leak rather than free. Returns 0 or -1. */
static int crtlist_opts_to_ctx(struct ssl_cert_inst *inst)
{
	if (!inst->opts || !inst->ctx)
		return 0;
	if (crtlist_opts_idx < 0)
		crtlist_opts_idx =
			SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, crtlist_opts_free_cb);
	if (crtlist_opts_idx < 0 || !SSL_CTX_set_ex_data(inst->ctx, crtlist_opts_idx, inst->opts))
		return -1;
	inst->opts = NULL;
	return 0;
}

static void crtlist_graves_reap(void)
{
	struct crtlist_grave **pg = &crtlist_graves, *g;

	while ((g = *pg)) {
		if (!qs_passed(&g->snap)) {
			pg = &g->next;
			continue;
		}
		*pg = g->next;
		crtlist_inst_free(g->inst);
		free(g);
	}
}

/* ---- show ssl crt-list ---- */

static int crtlist_show_entry(struct cli_ctx *ctx, const struct crtlist_entry *e, bool lines)
{
	char opts[2048];
	char num[16] = "";
	size_t need;
	char *s;
	int r;

	crtlist_entry_opts_str(e, opts, sizeof(opts));
	if (lines)
		snprintf(num, sizeof(num), ":%d", e->line);
	need = strlen(e->crt) + strlen(num) + strlen(opts) + 8;
	for (int i = 0; i < e->nb_filters; i++)
		need += strlen(e->filters[i]) + 1;
	s = malloc(need);
	if (!s)
		return cli_printf(ctx, "out of memory\n");
	r = snprintf(s, need, "%s%s", e->crt, num);
	if (e->brackets)
		r += snprintf(s + r, need - (size_t)r, " [%s]", opts);
	for (int i = 0; i < e->nb_filters; i++)
		r += snprintf(s + r, need - (size_t)r, " %s", e->filters[i]);
	r += snprintf(s + r, need - (size_t)r, "\n");
	r = cli_write(ctx, s, (size_t)r);
	free(s);
	return r;
}

/* st 0: header; then entries after line n[0]. */
static int crtlist_cli_show(struct cli_ctx *ctx)
{
	int a = 3;
	bool lines = false;
	struct crtlist *cl;
	struct crtlist_entry *e;

	if (a < ctx->nargs && !strcmp(ctx->args[a], "-n")) {
		lines = true;
		a++;
	}
	if (a >= ctx->nargs) {
		if (lines) {
			cli_printf(ctx,
				   "'show ssl crt-list -n' expects a filename or a directory\n");
			return CLI_DONE;
		}
		/* the list files: resumes after the n[0] first ones */
		uint64_t i = 0;

		for (cl = crtlists; cl; cl = cl->next, i++) {
			if (i < ctx->n[0])
				continue;
			if (cli_printf(ctx, "%s\n", cl->path) < 0)
				return CLI_MORE;
			ctx->n[0] = i + 1;
		}
		return CLI_DONE;
	}
	cl = crtlist_find(ctx->args[a]);
	if (!cl) {
		cli_printf(ctx, "didn't find the specified filename\n");
		return CLI_DONE;
	}
	if (ctx->st == 0) {
		if (cli_printf(ctx, "# %s\n", cl->path) < 0)
			return CLI_MORE;
		ctx->st = 1;
	}
	/* lists are never freed and entries are in increasing line order: the last line
	 * shown is a cursor that survives deletions between calls */
	list_for_each_entry(e, &cl->entries, list)
	{
		if ((uint64_t)e->line <= ctx->n[0])
			continue;
		if (crtlist_show_entry(ctx, e, lines) < 0)
			return CLI_MORE;
		ctx->n[0] = (uint64_t)e->line;
	}
	return CLI_DONE;
}

/* ---- add ssl crt-list ---- */

static int crtlist_cli_add(struct cli_ctx *ctx)
{
	struct crtlist *cl;
	struct crtlist_entry *e;
	struct crtlist_bind *b;
	struct crtlist_line tl;
	const char *msg = NULL;
	char err[512], *line = NULL, dots[64];
	size_t len = 0;
	int r, nd = 0;

	crtlist_graves_reap();
	if (ctx->nargs < 4 || (!ctx->payload && ctx->nargs < 5)) {
		cli_printf(ctx, "'add ssl crtlist' expects a filename and a certificate name\n");
		return CLI_DONE;
	}
	cl = crtlist_find(ctx->args[3]);
	if (!cl) {
		cli_printf(ctx, "Can't edit the crt-list: crt-list '%s' does not exist!\n",
			   ctx->args[3]);
		return CLI_DONE;
	}
	if (ctx->payload) {
		char *nl = strchr(ctx->payload, '\n');

		if (nl && nl[1]) {
			cli_printf(ctx, "Can't edit the crt-list: the payload must be one line\n");
			return CLI_DONE;
		}
		line = strdup(ctx->payload);
	} else {
		/* the words after the list name form the line */
		for (int i = 4; i < ctx->nargs; i++)
			len += strlen(ctx->args[i]) + 1;
		line = malloc(len + 1);
		if (line) {
			line[0] = '\0';
			for (int i = 4; i < ctx->nargs; i++) {
				strcat(line, ctx->args[i]);
				strcat(line, " ");
			}
		}
	}
	if (!line) {
		cli_printf(ctx, "Can't edit the crt-list: out of memory\n");
		return CLI_DONE;
	}
	if (strlen(line) >= CRTLIST_MAX_LINE) {
		cli_printf(ctx, "Can't edit the crt-list: parsing [CLI:1]: line too long\n");
		free(line);
		return CLI_DONE;
	}
	r = crtlist_tokenize(line, &tl, &msg);
	if (r <= 0) {
		cli_printf(ctx, "Can't edit the crt-list: parsing [CLI:1]: %s\n",
			   r < 0 ? msg : "missing the certificate file name");
		free(line);
		return CLI_DONE;
	}
	e = crtlist_entry_new(&tl, "CLI", 1, err, sizeof(err));
	free(line);
	if (!e) {
		cli_printf(ctx, "Can't edit the crt-list: %s\n", err);
		return CLI_DONE;
	}
	if (!ssl_cert_lookup(e->crt) && access(e->crt, F_OK) != 0) {
		cli_printf(ctx, "Can't edit the crt-list: certificate '%s' does not exist!\n",
			   e->crt);
		crtlist_entry_free(e);
		return CLI_DONE;
	}
	e->line = cl->last_line + 1;
	/* every bind line first; nothing is published before all of them succeeded */
	for (b = cl->binds; b; b = b->next) {
		if (crtlist_entry_instantiate(cl, e, b->sb, true, err, sizeof(err)) < 0)
			break;
		if (nd < (int)sizeof(dots) - 1)
			dots[nd++] = '.';
	}
	dots[nd] = '\0';
	if (b) {
		struct crtlist_bind *u;

		for (u = cl->binds; u != b; u = u->next) {
			/* unpublished instances of this line: freed now */
			struct ssl_cert_inst *inst, *tmp;

			list_for_each_entry_safe(inst, tmp, &u->sb->insts, by_bind)
			{
				if (inst->crtlist_line != e->line || !inst->crtlist ||
				    strcmp(inst->crtlist, cl->path))
					continue;
				list_delete(&inst->by_bind);
				list_delete(&inst->by_cert);
				SSL_CTX_free(inst->ctx);
				crtlist_inst_free(inst);
			}
		}
		cli_printf(ctx, "Inserting certificate '%s' in crt-list '%s'%s\n%s\nFailed!\n",
			   e->crt, cl->path, dots, err);
		crtlist_entry_free(e);
		return CLI_DONE;
	}
	for (b = cl->binds; b; b = b->next)
		if (ssl_sni_rebuild(b->sb) < 0)
			r = -1;
	cl->last_line = e->line;
	list_append(&cl->entries, &e->list);
	if (r < 0)
		cli_printf(
			ctx,
			"Inserting certificate '%s' in crt-list '%s'%s\nout of memory\nFailed!\n",
			e->crt, cl->path, dots);
	else
		cli_printf(ctx, "Inserting certificate '%s' in crt-list '%s'%s\nSuccess!\n", e->crt,
			   cl->path, dots);
	return CLI_DONE;
}

/* ---- del ssl crt-list ---- */

/* Lists the line numbers of the entries of <cl> for <crt> into <buf> ("2, 6"). */
static void crtlist_lines_of(const struct crtlist *cl, const char *crt, char *buf, size_t len)
{
	const struct crtlist_entry *e;
	size_t n = 0;

	buf[0] = '\0';
	list_for_each_entry(e, &cl->entries, list)
	{
		int r;

		if (strcmp(e->crt, crt))
			continue;
		r = snprintf(buf + n, len - n, "%s%d", n ? ", " : "", e->line);
		if (r < 0 || (size_t)r >= len - n)
			return;
		n += (size_t)r;
	}
}

static bool crtlist_inst_of(const struct ssl_cert_inst *inst, const struct crtlist *cl,
			    const struct crtlist_entry *e)
{
	return inst->crtlist && inst->crtlist_line == e->line && !strcmp(inst->crtlist, cl->path);
}

static int crtlist_cli_del(struct cli_ctx *ctx)
{
	struct crtlist *cl;
	struct crtlist_entry *e, *found = NULL;
	struct crtlist_bind *b;
	char crt[4096], lines[256], *colon;
	long want = -1;
	int nb = 0;
	bool is_default = false;

	crtlist_graves_reap();
	if (ctx->nargs < 5) {
		cli_printf(ctx, "'del ssl crtlist' expects a filename and a certificate name\n");
		return CLI_DONE;
	}
	cl = crtlist_find(ctx->args[3]);
	if (!cl) {
		cli_printf(ctx, "Can't delete the entry: crt-list '%s' does not exist!\n",
			   ctx->args[3]);
		return CLI_DONE;
	}
	if (strlen(ctx->args[4]) >= sizeof(crt)) {
		cli_printf(ctx, "Can't delete the entry: certificate name too long!\n");
		return CLI_DONE;
	}
	strcpy(crt, ctx->args[4]);
	colon = strrchr(crt, ':');
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		*colon = '\0';
		want = strtol(colon + 1, NULL, 10);
	}
	if (!ssl_cert_lookup(crt)) {
		cli_printf(ctx, "Can't delete the entry: certificate '%s' does not exist!\n", crt);
		return CLI_DONE;
	}
	list_for_each_entry(e, &cl->entries, list)
	{
		if (strcmp(e->crt, crt))
			continue;
		nb++;
		if (want < 0 || e->line == want)
			found = e;
	}
	crtlist_lines_of(cl, crt, lines, sizeof(lines));
	if (!nb) {
		cli_printf(ctx,
			   "Can't delete the entry: certificate '%s' can't be found in crt-list "
			   "'%s'!\n",
			   crt, cl->path);
		return CLI_DONE;
	}
	if (want < 0 && nb > 1) {
		cli_printf(ctx,
			   "Can't delete the entry: found the certificate '%s' in several entries, "
			   "please "
			   "specify a line number preceded by colons (%s)!\n",
			   crt, lines);
		return CLI_DONE;
	}
	if (!found) {
		cli_printf(
			ctx,
			"Can't delete the entry: found a certificate '%s' but the line number is "
			"incorrect, please specify a correct line number preceded by colons "
			"(%s)!\n",
			crt, lines);
		return CLI_DONE;
	}
	/* the default certificate of a bind line (its first) stays */
	for (b = cl->binds; b; b = b->next) {
		struct ssl_cert_inst *first;

		if (list_empty(&b->sb->insts))
			continue;
		first = list_elem(b->sb->insts.next, struct ssl_cert_inst, by_bind);
		if (crtlist_inst_of(first, cl, found))
			is_default = true;
	}
	if (is_default) {
		cli_printf(
			ctx,
			"Can't delete the entry: certificate '%s' cannot be deleted, it is used as "
			"default certificate by the following frontends:\n",
			crt);
		for (b = cl->binds; b; b = b->next) {
			struct ssl_cert_inst *first;

			if (list_empty(&b->sb->insts))
				continue;
			first = list_elem(b->sb->insts.next, struct ssl_cert_inst, by_bind);
			if (crtlist_inst_of(first, cl, found))
				cli_printf(ctx, "\t- %s:%d\n", b->sb->bc->file, b->sb->bc->line);
		}
		cli_printf(ctx, "\n");
		return CLI_DONE;
	}
	for (b = cl->binds; b; b = b->next) {
		struct ssl_cert_inst *inst, *tmp;
		struct list dead;

		/* unlinked first (loop threads only read the first instance, which stays),
		 * then the new table is published, then the old instances wait for a grace
		 * period: a handshake may have found them in the previous table */
		list_init(&dead);
		list_for_each_entry_safe(inst, tmp, &b->sb->insts, by_bind)
		{
			if (!crtlist_inst_of(inst, cl, found))
				continue;
			list_delete(&inst->by_bind);
			list_delete(&inst->by_cert);
			list_append(&dead, &inst->by_bind);
		}
		if (ssl_sni_rebuild(b->sb) < 0) {
			/* the old table still points to them: kept for ever rather than freed */
			cli_printf(ctx, "out of memory\n");
			return CLI_DONE;
		}
		list_for_each_entry_safe(inst, tmp, &dead, by_bind)
		{
			struct crtlist_grave *g = calloc(1, sizeof(*g));

			list_delete(&inst->by_bind);
			if (!g || crtlist_opts_to_ctx(inst) < 0 ||
			    ssl_grave_add(NULL, inst->ctx) < 0) {
				free(g); /* no memory to wait: leaking is safe, freeing is not */
				continue;
			}
			inst->ctx = NULL;
			g->inst = inst;
			qs_snapshot(&g->snap);
			g->next = crtlist_graves;
			crtlist_graves = g;
		}
	}
	list_delete(&found->list);
	cli_printf(ctx, "Entry '%s' deleted in crtlist '%s'!\n", crt, cl->path);
	crtlist_entry_free(found);
	return CLI_DONE;
}

static const struct cli_kw crtlist_cli_kws[] = {
	{ { "show", "ssl", "crt-list" },
	  "show ssl crt-list [-n] [<list>]",
	  "show the list of crt-lists or the content of a crt-list file <list>",
	  CLI_LVL_ADMIN,
	  crtlist_cli_show },
	{ { "add", "ssl", "crt-list" },
	  "add ssl crt-list <list> <cert> [opts]*",
	  "add to crt-list file <list> a line <cert> or a payload",
	  CLI_LVL_ADMIN,
	  crtlist_cli_add },
	{ { "del", "ssl", "crt-list" },
	  "del ssl crt-list <list> <cert[:line]>",
	  "delete a line <cert> from crt-list file <list>",
	  CLI_LVL_ADMIN,
	  crtlist_cli_del },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(crtlist_cli_kws)

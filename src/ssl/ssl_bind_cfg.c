/* The TLS options of "bind" lines: "ssl", "crt FILE|DIR" (certificates loaded at parse
 * time, errors on the line), "crt-list", "strict-sni", the shared options of ssl_opts.c,
 * and the check that builds every bind line's contexts once the whole configuration
 * (global defaults included) is known. Parse and check time only.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <backend/server-t.h>
#include <cfg/cfg.h>
#include <conn/listener-t.h>
#include <proxy/proxy.h>
#include <ssl/ssl.h>

#include "ssl_int.h"

/* Options seen on bind lines that stay refused, with the reason. */
static const char *const ssl_bind_refused[][2] = {
	{ "generate-certificates", "certificates generated on the fly are not supported yet" },
	{ "ca-sign-file", "certificates generated on the fly are not supported yet" },
	{ "ca-sign-pass", "certificates generated on the fly are not supported yet" },
	{ "ca-verify-file", "no separate TLS verification store: use 'ca-file'" },
	{ "ktls", "kernel TLS offload is not supported yet" },
	{ "ocsp-update", "automatic OCSP updates are not supported yet" },
};

static const char *ssl_section(const struct cfg_ctx *ctx)
{
	return ctx->section == CFG_SEC_LISTEN ? "listen" : "frontend";
}

/* The TLS side of <bc>, created on first use. */
static struct ssl_bind *ssl_bind_get(struct cfg_ctx *ctx, struct bind_conf *bc)
{
	struct ssl_bind *sb = bc->ssl_cfg;

	if (sb)
		return sb;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->addr = strdup(ctx->args[1]);
	if (!sb->addr) {
		free(sb);
		return NULL;
	}
	sb->bc = bc;
	sb->opts.verify = SSLV_UNSET;
	list_init(&sb->insts);
	bc->ssl_cfg = sb;
	return sb;
}

static bool crt_is_extra_file(const char *name)
{
	static const char *const exts[] = { ".key", ".ocsp", ".issuer", ".sctl" };
	size_t n = strlen(name);

	if (name[0] == '.')
		return true;
	for (size_t k = 0; k < sizeof(exts) / sizeof(exts[0]); k++) {
		size_t e = strlen(exts[k]);

		if (n > e && !strcmp(name + n - e, exts[k]))
			return true;
	}
	return false;
}

/* Adds the certificate file <path> to <sb>. Returns 0 or -1 with <err>. */
static int ssl_bind_add_file(struct ssl_bind *sb, const char *path, char *err, size_t errlen)
{
	struct ssl_cert *crt = ssl_cert_get(path, err, errlen);

	if (!crt)
		return -1;
	if (!ssl_bind_add_cert(sb, crt, NULL, NULL, 0)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sb->has_crt = true;
	return 0;
}

/* "crt DIR": every certificate file of the directory, in name order. */
static int ssl_bind_add_dir(struct ssl_bind *sb, const char *dir, char *err, size_t errlen)
{
	struct dirent **de = NULL;
	int n = scandir(dir, &de, NULL, alphasort), rc = 0;

	if (n < 0) {
		snprintf(err, errlen, "unable to scan directory '%s'", dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (rc == 0 && !crt_is_extra_file(de[i]->d_name) &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, de[i]->d_name) <
			    sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = ssl_bind_add_file(sb, path, err, errlen);
		free(de[i]);
	}
	free(de);
	return rc;
}

int ssl_bind_parse_opt(struct cfg_ctx *ctx, struct bind_conf *bc, int *i)
{
	const char *opt = ctx->args[*i];
	struct ssl_bind *sb;
	char err[512];
	int ret;

	for (size_t k = 0; k < sizeof(ssl_bind_refused) / sizeof(ssl_bind_refused[0]); k++) {
		if (!strcmp(opt, ssl_bind_refused[k][0])) {
			cfg_alert(ctx, "'bind %s' : '%s' is not supported yet (%s).", ctx->args[1],
				  opt, ssl_bind_refused[k][1]);
			return -1;
		}
	}
	if (strcmp(opt, "ssl") && strcmp(opt, "crt") && strcmp(opt, "crt-list") &&
	    strcmp(opt, "strict-sni") && strcmp(opt, "tls-ticket-keys")) {
		struct ssl_opts probe = { .verify = SSLV_UNSET };
		int j = *i;

		/* only a TLS option allocates the bind line's TLS side */
		ret = ssl_opts_parse(&probe, ctx->args, ctx->nargs, &j, false, err, sizeof(err));
		ssl_opts_free(&probe);
		if (ret == 1)
			return 1;
	}
	sb = ssl_bind_get(ctx, bc);
	if (!sb) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (!strcmp(opt, "ssl")) {
		sb->enabled = true;
		return 0;
	}
	if (!strcmp(opt, "strict-sni")) {
		sb->opts.flags |= SSLO_STRICT_SNI;
		sb->opts.flags_set |= SSLO_STRICT_SNI;
		return 0;
	}
	if (!strcmp(opt, "crt") || !strcmp(opt, "crt-list") || !strcmp(opt, "tls-ticket-keys")) {
		struct stat st;
		char *path;

		if (*i + 1 >= ctx->nargs || !*ctx->args[*i + 1]) {
			cfg_alert(ctx, "'bind %s' : '%s' : missing %s path.", ctx->args[1], opt,
				  opt[0] == 't' ? "TLS ticket keys file" : "certificate location");
			return -1;
		}
		if (!strcmp(opt, "crt") &&
		    (ssl_cert_lookup(ctx->args[*i + 1]) || ctx->args[*i + 1][0] == '@')) {
			/* a certificate of a crt-store section */
			if (ssl_bind_add_file(sb, ctx->args[++*i], err, sizeof(err)) < 0 ||
			    !ssl_cert_lookup(ctx->args[*i])) {
				cfg_alert(ctx, "'bind %s' in section '%s' : %s.", ctx->args[1],
					  ssl_section(ctx),
					  ctx->args[*i][0] == '@'
						  ? "no such certificate in a crt-store"
						  : err);
				return -1;
			}
			return 0;
		}
		path = ssl_path_join(opt[0] == 'c' ? ssl_set.crt_base : NULL, ctx->args[++*i]);
		if (!path) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		if (!strcmp(opt, "crt-list"))
			ret = ssl_crtlist_load(sb, path, err, sizeof(err));
		else if (!strcmp(opt, "tls-ticket-keys"))
			ret = ssl_tkeys_load(sb, path, err, sizeof(err));
		else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			ret = ssl_bind_add_dir(sb, path, err, sizeof(err));
		else
			ret = ssl_bind_add_file(sb, path, err, sizeof(err));
		free(path);
		if (ret < 0) {
			cfg_alert(ctx, "'bind %s' in section '%s' : %s.", ctx->args[1],
				  ssl_section(ctx), err);
			return -1;
		}
		return 0;
	}
	ret = ssl_opts_parse(&sb->opts, ctx->args, ctx->nargs, i, false, err, sizeof(err));
	if (ret < 0) {
		cfg_alert(ctx, "'bind %s' in section '%s' : %s.", ctx->args[1], ssl_section(ctx),
			  err);
		return -1;
	}
	return ret;
}

void ssl_bind_free(struct bind_conf *bc)
{
	struct ssl_bind *sb = bc->ssl_cfg;
	struct ssl_cert_inst *inst, *tmp;

	if (!sb)
		return;
	list_for_each_entry_safe(inst, tmp, &sb->insts, by_bind)
	{
		list_delete(&inst->by_bind);
		list_delete(&inst->by_cert);
		if (inst->opts) {
			ssl_opts_free(inst->opts);
			free(inst->opts);
		}
		for (int i = 0; i < inst->nb_filters; i++)
			free(inst->filters[i]);
		free(inst->filters);
		free(inst->crtlist);
		SSL_CTX_free(inst->ctx);
		free(inst);
	}
	if (sb->sni) {
		free(sb->sni->ent);
		free(sb->sni);
	}
	SSL_CTX_free(sb->initial_ctx);
	ssl_tkeys_free(sb);
	ssl_opts_free(&sb->opts);
	free(sb->addr);
	free(sb);
	bc->ssl_cfg = NULL;
	bc->ssl = NULL;
}

/* Builds the contexts of one bind line. Returns the number of errors. */
static int ssl_bind_check(struct proxy *px, struct bind_conf *bc)
{
	struct ssl_bind *sb = bc->ssl_cfg;
	struct ssl_bind_ref *ref;
	char err[512];

	if (!sb->enabled) {
		if (sb->has_crt)
			ha_warning("parsing [%s:%d] : 'bind %s' : certificates are loaded "
				   "but "
				   "TLS is off without the 'ssl' keyword.\n",
				   bc->file, bc->line, sb->addr);
		return 0;
	}
	if (!sb->has_crt) {
		ha_alert("Proxy '%s': no SSL certificate specified for bind '%s' at "
			 "[%s:%d] "
			 "(use 'crt').\n",
			 px->id, sb->addr, bc->file, bc->line);
		return 1;
	}
	if (ssl_opts_merge(&sb->opts, &ssl_set.bind_def) < 0 ||
	    ssl_bind_build(sb, err, sizeof(err)) < 0) {
		ha_alert("Proxy '%s': %s for bind '%s' at [%s:%d].\n", px->id, err, sb->addr,
			 bc->file, bc->line);
		return 1;
	}
	ref = calloc(1, sizeof(*ref));
	if (!ref) {
		ha_alert("out of memory.\n");
		return 1;
	}
	ref->sb = sb;
	ref->next = ssl_binds;
	ssl_binds = ref;
	bc->ssl = sb;
	return 0;
}

int ssl_cfg_check_all(void)
{
	struct proxy *px;
	struct bind_conf *bc;
	int errs = 0;

	for (px = proxies; px; px = px->next) {
		list_for_each_entry(bc, &px->binds, list) if (bc->ssl_cfg) errs +=
			ssl_bind_check(px, bc);
		for (struct server *srv = px->srv; srv; srv = srv->next)
			if (srv->ssl)
				errs += ssl_srv_check(srv);
	}
	return errs;
}

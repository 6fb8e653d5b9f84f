/* Runtime API of TLS ticket keys: "show tls-keys [id|*]" lists the keys files loaded by
 * bind lines or dumps their keys, "set ssl tls-key <id|file> <key>" rotates one (the new
 * key becomes the newest, the former newest encrypts). Layout and messages of HAProxy
 * 2.6. Thread 0 (the CLI's); the handshakes see a rotation through ssl_tkeys_push().
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include <base/atomic.h>
#include <cli/cli.h>
#include <ssl/tkeys.h>

/* The reference named "#<id>" or by its file, NULL if none. */
static struct ssl_tkeys *tkeys_cli_find(const char *ref)
{
	struct ssl_tkeys *tk;
	char *end;
	long id = -1;

	if (ref[0] == '#' && ref[1]) {
		id = strtol(ref + 1, &end, 10);
		if (*end || id < 0)
			id = -1;
	}
	for (tk = ssl_tkeys_refs; tk; tk = tk->next)
		if ((ref[0] == '#' && tk->id == id) || !strcmp(tk->path, ref))
			return tk;
	return NULL;
}

/* Writes the keys of <tk> ("# id (file)" then "id.n key" lines) as one block, or nothing.
 * Any level may read them, as in HAProxy 2.6. */
static int tkeys_cli_dump(struct cli_ctx *ctx, const struct ssl_tkeys *tk)
{
	const struct tkey_set *set = HA_ATOMIC_LOAD(&tk->cur);
	char blk[TKEYS_NB * 128 + 4200], b64[TKEY_MAX * 2];
	int n, r;

	n = snprintf(blk, sizeof(blk), "# %d (%s)\n", tk->id, tk->path);
	if (n < 0 || (size_t)n >= sizeof(blk) - TKEYS_NB * 128)
		return cli_printf(ctx, "# %d (...)\n", tk->id);
	for (int i = 0; i < TKEYS_NB; i++) {
		if (tkey_b64_encode(set->key[i], (size_t)set->len, b64, sizeof(b64)) < 0)
			break;
		r = snprintf(blk + n, sizeof(blk) - (size_t)n, "%d.%d %s\n", tk->id, i, b64);
		if (r > 0 && (size_t)r < sizeof(blk) - (size_t)n)
			n += r;
	}
	r = cli_write(ctx, blk, (size_t)n);
	OPENSSL_cleanse(blk, sizeof(blk));
	OPENSSL_cleanse(b64, sizeof(b64));
	return r;
}

/* show tls-keys [id|*]: p[0] is the next reference to write (CLI_MORE). */
static int tkeys_cli_show(struct cli_ctx *ctx)
{
	const char *arg = ctx->nargs > 2 ? ctx->args[2] : NULL;
	bool all = arg && !strcmp(arg, "*");
	const struct ssl_tkeys *tk;

	if (ctx->st == 0) {
		ctx->p[1] = NULL;
		if (arg && !all) {
			tk = tkeys_cli_find(arg);
			if (!tk)
				return cli_printf(ctx,
						  "'show tls-keys' unable to locate referenced "
						  "filename\n") < 0
					       ? CLI_MORE
					       : CLI_DONE;
			ctx->p[1] = tk; /* only this one */
		}
		if (cli_printf(ctx, arg ? "# id secret\n" : "# id (file)\n") < 0)
			return CLI_MORE;
		ctx->p[0] = ctx->p[1] ? ctx->p[1] : ssl_tkeys_refs;
		ctx->st = 1;
	}
	for (tk = ctx->p[0]; tk; tk = ctx->p[1] ? NULL : tk->next) {
		int r;

		if (arg)
			r = tkeys_cli_dump(ctx, tk);
		else
			r = cli_printf(ctx, "%d (%s)\n", tk->id, tk->path);
		if (r < 0) {
			ctx->p[0] = tk;
			return CLI_MORE;
		}
	}
	return CLI_DONE;
}

/* set ssl tls-key <id|file> <key> */
static int tkeys_cli_set(struct cli_ctx *ctx)
{
	unsigned char key[TKEY_MAX];
	struct ssl_tkeys *tk;
	const char *msg;
	int len, r;

	if (ctx->nargs < 5 || !*ctx->args[3] || !*ctx->args[4])
		msg = "'set ssl tls-key' expects a filename and the new TLS key in base64 "
		      "encoding.\n";
	else if (!(tk = tkeys_cli_find(ctx->args[3])))
		msg = "'set ssl tls-key' unable to locate referenced filename\n";
	else if ((len = tkey_b64_decode(ctx->args[4], strlen(ctx->args[4]), key, sizeof(key))) < 0)
		msg = "'set ssl tls-key' received invalid base64 encoded TLS key.\n";
	else if ((r = ssl_tkeys_push(tk, key, len)) == -1)
		msg = "'set ssl tls-key' received a key of wrong size.\n";
	else if (r < 0)
		msg = "'set ssl tls-key' : out of memory.\n";
	else
		msg = "TLS ticket key updated!\n";
	OPENSSL_cleanse(key, sizeof(key));
	return cli_printf(ctx, "%s", msg) < 0 ? CLI_MORE : CLI_DONE;
}

/* clang-format off */
static const struct cli_kw tkeys_cli_kws[] = {
	{ { "show", "tls-keys" },
	  "show tls-keys [id|*]",
	  "show tls keys references or dump tls ticket keys when id specified",
	  CLI_LVL_USER,
	  tkeys_cli_show },
	{ { "set", "ssl", "tls-key" },
	  "set ssl tls-key [id|file] <key>",
	  "set the next TLS key for the <id> or <file> listener to <key>",
	  CLI_LVL_ADMIN,
	  tkeys_cli_set },
	{ { NULL }, NULL, NULL, 0, NULL },
};
/* clang-format on */

CLI_REGISTER_KWS(tkeys_cli_kws)

/* The command registry and its help texts: registration, lookup of a command from its
 * words, "help [words]" and the reply to an unknown command (all commands after an empty
 * one, else the commands starting with the words given, else the closest ones), in
 * HAProxy's "  %-40s: %s" layout with help, prompt and quit last.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cli/cli.h>
#include "cli_int.h"

#define CLI_HELP_MAX   256        /* commands listed at most */
#define CLI_HELP_CLOSE 5          /* closest commands suggested for an unknown one */

static struct cli_kw_list *cli_kw_lists;
static const struct cli_kw **cli_sorted;
static int cli_nsorted = -1;

static const char *const cli_builtin_help[] = {
	"  help [<command>]                        : list matching or all commands\n",
	"  prompt                                  : toggle interactive mode with prompt\n",
	"  quit                                    : disconnect\n",
};

void cli_register_kws(struct cli_kw_list *kwl)
{
	kwl->next = cli_kw_lists;
	cli_kw_lists = kwl;
	cli_nsorted = -1;
}

static int cli_kw_nwords(const struct cli_kw *kw)
{
	int n = 0;

	while (n < CLI_MAX_WORDS && kw->words[n])
		n++;
	return n;
}

const struct cli_kw *cli_kw_find(char **args, int nargs)
{
	const struct cli_kw *best = NULL;
	int best_n = 0;

	for (struct cli_kw_list *l = cli_kw_lists; l; l = l->next) {
		for (const struct cli_kw *kw = l->kws; kw->words[0]; kw++) {
			int n = cli_kw_nwords(kw), i;

			if (n > nargs || n <= best_n)
				continue;
			for (i = 0; i < n && strcmp(kw->words[i], args[i]) == 0; i++)
				;
			if (i == n) {
				best = kw;
				best_n = n;
			}
		}
	}
	return best;
}

static int cli_kw_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct cli_kw *const *)a)->usage,
		      (*(const struct cli_kw *const *)b)->usage);
}

const struct cli_kw *const *cli_kws_sorted(int *n)
{
	int count = 0;

	if (cli_nsorted >= 0)
		goto out;
	for (struct cli_kw_list *l = cli_kw_lists; l; l = l->next)
		for (const struct cli_kw *kw = l->kws; kw->words[0]; kw++)
			count += kw->usage != NULL;
	free(cli_sorted);
	cli_sorted = calloc((size_t)count + 1, sizeof(*cli_sorted));
	if (!cli_sorted) {
		cli_nsorted = -1;
		*n = 0;
		return NULL;
	}
	count = 0;
	for (struct cli_kw_list *l = cli_kw_lists; l; l = l->next)
		for (const struct cli_kw *kw = l->kws; kw->words[0]; kw++)
			if (kw->usage)
				cli_sorted[count++] = kw;
	qsort(cli_sorted, (size_t)count, sizeof(*cli_sorted), cli_kw_cmp);
	cli_nsorted = count;
out:
	*n = cli_nsorted;
	return cli_sorted;
}

/* Commands whose words start with all of <args>. */
static bool cli_kw_prefixed(const struct cli_kw *kw, char **args, int nargs)
{
	for (int i = 0; i < nargs; i++)
		if (i >= CLI_MAX_WORDS || !kw->words[i] || strcmp(kw->words[i], args[i]) != 0)
			return false;
	return true;
}

/* Similarity of two strings: shared character pairs (bigrams), 0 when none. */
static int cli_similarity(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int score = 0;

	for (size_t i = 0; i + 1 < la; i++)
		for (size_t j = 0; j + 1 < lb; j++)
			if (a[i] == b[j] && a[i + 1] == b[j + 1]) {
				score++;
				break;
			}
	return score;
}

static void cli_join(char *dst, size_t sz, const char *const *w, int n)
{
	size_t len = 0;

	dst[0] = '\0';
	for (int i = 0; i < n && w[i] && len + 1 < sz; i++) {
		int r = snprintf(dst + len, sz - len, "%s%s", i ? " " : "", w[i]);

		if (r < 0)
			break;
		len += (size_t)r < sz - len ? (size_t)r : sz - len - 1;
	}
}

/* The commands of <ctx>'s level to list: all (nargs 0), else those starting with the
 * words, else up to CLI_HELP_CLOSE closest ones, in sorted order. Returns their number.
 */
static int cli_help_select(struct cli_ctx *ctx, char **args, int nargs,
			   const struct cli_kw **sel)
{
	int n, cnt = 0, scores[CLI_HELP_MAX];
	const struct cli_kw *const *all = cli_kws_sorted(&n);
	char want[256], have[256];

	if (!all)
		return 0;
	n = n < CLI_HELP_MAX ? n : CLI_HELP_MAX;
	for (int i = 0; i < n; i++)
		if (all[i]->level <= ctx->level && cli_kw_prefixed(all[i], args, nargs))
			sel[cnt++] = all[i];
	if (cnt || !nargs)
		return cnt;
	cli_join(want, sizeof(want), (const char *const *)args, nargs);
	for (int i = 0; i < n; i++) {
		cli_join(have, sizeof(have), all[i]->words, CLI_MAX_WORDS);
		scores[i] = all[i]->level <= ctx->level ? cli_similarity(want, have) : 0;
	}
	/* the best CLI_HELP_CLOSE scores, listed in sorted order */
	for (int k = 0; k < CLI_HELP_CLOSE; k++) {
		int best = -1;

		for (int i = 0; i < n; i++)
			if (scores[i] > 0 && (best < 0 || scores[i] > scores[best]))
				best = i;
		if (best < 0)
			break;
		scores[best] = -scores[best];   /* chosen: negative */
	}
	for (int i = 0; i < n; i++)
		if (scores[i] < 0)
			sel[cnt++] = all[i];
	return cnt;
}

/* Writes <header>, the selected commands and the built-ins; resumable (st, n[0]). */
static int cli_help_list(struct cli_ctx *ctx, const char *header, char **args, int nargs)
{
	const struct cli_kw *sel[CLI_HELP_MAX];
	int cnt;

	if (ctx->st == 0) {
		if (cli_printf(ctx, "%s\n", header) < 0)
			return CLI_MORE;
		ctx->st = 1;
	}
	cnt = cli_help_select(ctx, args, nargs, sel);
	for (; ctx->st == 1 && ctx->n[0] < (uint64_t)cnt; ctx->n[0]++) {
		const struct cli_kw *kw = sel[ctx->n[0]];

		/* a command without help text (Lua's) shows its usage alone, as 2.6 */
		if ((kw->help ? cli_printf(ctx, "  %-40s: %s\n", kw->usage, kw->help)
			      : cli_printf(ctx, "  %s\n", kw->usage)) < 0)
			return CLI_MORE;
	}
	ctx->st = 2;
	for (; ctx->n[1] < 3; ctx->n[1]++) {
		const char *l = cli_builtin_help[ctx->n[1]];

		if (cli_write(ctx, l, strlen(l)) < 0)
			return CLI_MORE;
	}
	return CLI_DONE;
}

int cli_help_fn(struct cli_ctx *ctx)
{
	return cli_help_list(ctx, "The following commands are valid at this level:",
			     ctx->args + 1, ctx->nargs - 1);
}

int cli_unknown_fn(struct cli_ctx *ctx)
{
	if (!ctx->nargs)
		return cli_help_list(ctx, "Unknown command. Please enter one of the following "
				     "commands only:", ctx->args, 0);
	return cli_help_list(ctx, "Unknown command, but maybe one of the following ones is a "
			     "better match:", ctx->args, ctx->nargs);
}

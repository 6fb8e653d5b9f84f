/* "show info [typed|json] [desc]": the process-wide fields of the stats data model
 * (stat_info.c) as HAProxy's "Name: value" lines, typed lines or a JSON array.
 */
#include <stdbool.h>
#include <string.h>

#include <cli/cli.h>
#include <stats/stats.h>

static int info_show(struct cli_ctx *ctx)
{
	enum stat_fmt fmt = STAT_FMT_CSV;
	bool desc = false, first = true;
	struct stat_line l;
	char b[16384];
	size_t len = 0;

	for (int i = 2; i < ctx->nargs; i++) {
		if (strcmp(ctx->args[i], "typed") == 0)
			fmt = STAT_FMT_TYPED;
		else if (strcmp(ctx->args[i], "json") == 0)
			fmt = STAT_FMT_JSON;
		else if (strcmp(ctx->args[i], "desc") == 0)
			desc = true;
		/* "float" changes nothing: every value here is an integer */
	}
	stats_fill_info(&l);
	if (fmt == STAT_FMT_JSON)
		len = stat_out_str(b, sizeof(b), "[");
	for (int i = 0; i < INF_NFIELDS && len != (size_t)-1; i++) {
		if (fmt == STAT_FMT_TYPED)
			len = info_out_typed_field(b, len, sizeof(b), &l, i, desc);
		else if (fmt == STAT_FMT_JSON)
			len = info_out_json_field(b, len, sizeof(b), &l, i, first);
		else
			len = info_out_plain_field(b, len, sizeof(b), &l, i, desc);
		first = first && l.f[i].type == SF_EMPTY;
	}
	if (fmt == STAT_FMT_JSON && len != (size_t)-1)
		len = len + 2 < sizeof(b) ? (memcpy(b + len, "]\n", 2), len + 2) : (size_t)-1;
	if (len == (size_t)-1) /* cannot happen with these fields: keep the session sane */
		return cli_printf(ctx, "Output too large.\n") < 0 ? CLI_MORE : CLI_DONE;
	return cli_write(ctx, b, len) < 0 ? CLI_MORE : CLI_DONE;
}

static const struct cli_kw info_kws[] = {
	{ { "show", "info" },
	  "show info [desc|json|typed|float]*",
	  "report information about the running process",
	  CLI_LVL_USER,
	  info_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(info_kws)

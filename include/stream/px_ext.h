/* What the HTTP rule layers attach to a proxy (px_ext.c): creation on first use at config
 * time, the lookups that follow a proxy's defaults sections, and freeing.
 */
#ifndef STREAM_PX_EXT_H
#define STREAM_PX_EXT_H

#include <proxy/proxy-t.h>
#include <stream/px_ext-t.h>

/* The extension of <px>, created on first use. NULL when out of memory. Config time. */
struct px_rules_ext *px_ext_get(struct proxy *px);

/* The extension of <px>, or NULL when it has none. Any thread (read-only at run time). */
static inline const struct px_rules_ext *px_ext(const struct proxy *px)
{
	return px ? (const struct px_rules_ext *)px->rules_ext : NULL;
}

/* The unique-id format of <px>: its own, else the one of the defaults section it was
 * created from (and so on up). NULL when none. */
const struct lf_expr *px_ext_uid_fmt(const struct proxy *px);
/* The same for unique-id-header (an empty view when none). */
struct ist px_ext_uid_hdr(const struct proxy *px);

/* Frees the extension of <px> and everything it owns (proxy_free, through the rule
 * layer's hook). */
void px_ext_free(struct proxy *px);

#endif

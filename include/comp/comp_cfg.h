/* The configuration side of the compression filter kind (comp/comp_cfg.c), called by the
 * kind itself (comp/comp_flt.c). Config time only.
 */
#ifndef COMP_COMP_CFG_H
#define COMP_COMP_CFG_H

#include <cfg/cfg.h>
#include <stream/filter.h>

/* "filter compression": 0, or -1 after an alert (an argument, a second one). */
int comp_flt_parse(struct cfg_ctx *ctx, struct flt_conf *fc);
/* Resolves the settings of <px> and declares a filter of <kind> when it compresses
 * without one. Returns the number of errors printed. */
int comp_flt_implicit(struct proxy *px, const struct flt_kind *kind);

#endif

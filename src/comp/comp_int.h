/* Private to comp/: the counting allocator of the compressors' memory (comp_algo.c) and
 * the level-1 engine over the fast encoder (comp_fast.c).
 */
#ifndef COMP_COMP_INT_H
#define COMP_COMP_INT_H

#include <stddef.h>
#include <comp/comp.h>

/* <n> bytes counted in ZlibMemUsage, or NULL when maxzlibmem would be passed or malloc
 * fails; comp_mem_free() gives them back. Any thread. */
void *comp_mem_alloc(size_t n);
void comp_mem_free(void *p);

/* The level-1 engine (tune.comp.maxlevel 1): the fast encoder, with stored blocks while
 * the limits hold the level at 0. Same contracts as comp_ctx_init/step/end. */
int comp_fast_init(struct comp_ctx *c);
long comp_fast_step(struct comp_ctx *c, const char *in, size_t len, struct flt_out *out, bool end);
void comp_fast_end(struct comp_ctx *c);

#endif

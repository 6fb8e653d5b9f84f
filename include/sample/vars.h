/* Variables (vars.c): names compiled at config time ("proc.x", "sess.x", "txn.x",
 * "req.x", "res.x", "check.x"), storage per scope, and the var() fetch and the
 * set-var/unset-var converters. proc variables are shared by all threads behind a
 * read-write lock (written by global set-var, the CLI and rules that choose to; a
 * process-wide value has no cheaper consistent form); every other scope belongs to one
 * thread's connection or stream and takes no lock.
 */
#ifndef SAMPLE_VARS_H
#define SAMPLE_VARS_H

#include <stddef.h>
#include <sample/sample-t.h>
#include <sample/vars-t.h>

/* Parses "scope.name" into <d>, registering the name. 0 or -1 with a message. Config
 * time. */
int vars_parse_desc(const char *text, struct var_desc *d, char *err, size_t errsz);
/* Looks a name up without registering it (run time, Lua, CLI); 0 or -1 if unknown. */
int vars_lookup_desc(const char *text, size_t len, struct var_desc *d);
/* "txn.name" of a descriptor, for messages. */
const char *vars_name(const struct var_desc *d);

/* Sets the variable to smp's value (copied); returns 1, or 0 when there is no scope here
 * or no memory/room. Loop thread of the scope's owner. */
int vars_set(const struct smp_ctx *ctx, const struct var_desc *d, const struct sample *smp);
/* Fills smp with the value (a view into the variable's storage, SMP_F_CONST); 1 if set. */
int vars_get(const struct smp_ctx *ctx, const struct var_desc *d, struct sample *smp);
void vars_unset(const struct smp_ctx *ctx, const struct var_desc *d);
/* Frees every variable of a scope's storage (end of a stream or a connection). */
void vars_prune(struct vars *v);

/* The check.* / sess.* storage of the health check evaluating on this thread, or NULL
 * (set and cleared by check/tcpcheck_vars.c around each evaluation). */
extern __thread struct vars *vars_check_cur;

/* tune.vars.*-max-size, 0 = unlimited. */
extern uint32_t vars_max_size[VS_SCOPES];

void vars_deinit(void);

#endif

/* Variables (vars.c): names compiled at config time ("proc.x", "sess.x", "txn.x",
 * "req.x", "res.x", "check.x"), storage per scope, and the var() fetch and the
 * set-var/unset-var converters. proc variables are shared by all threads behind a
 * read-write lock (written by global set-var, the CLI and rules that choose to; a
 * process-wide value has no cheaper consistent form); every other scope belongs to one
 * thread's connection or stream and takes no lock.
 */
#ifndef SAMPLE_VARS_H
#define SAMPLE_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* set-var conditions (set-var(NAME,COND...)): the bit of condition <name>, 0 if unknown;
 * true when every condition of <conds> holds for setting <d> to <in> (a proc variable
 * exists from the start, as HAProxy creates them while parsing). */
#define VARCOND_IFEXISTS 0x01
#define VARCOND_IFNOTEXISTS 0x02
#define VARCOND_IFEMPTY 0x04
#define VARCOND_IFNOTEMPTY 0x08
#define VARCOND_IFSET 0x10
#define VARCOND_IFNOTSET 0x20
#define VARCOND_IFGT 0x40
#define VARCOND_IFLT 0x80
uint32_t vars_cond_bit(const char *name);
bool vars_conds_hold(const struct smp_ctx *ctx, const struct var_desc *d, uint32_t conds,
		     const struct sample *in);

/* tune.vars.*-max-size, 0 = unlimited. */
extern uint32_t vars_max_size[VS_SCOPES];

void vars_deinit(void);

#endif

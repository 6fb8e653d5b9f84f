/* Types of variables: a scope's storage is a short list of entries taken from a pool.
 * Included by the objects that own a scope (connection: sess; stream: txn, req, res).
 */
#ifndef SAMPLE_VARS_T_H
#define SAMPLE_VARS_T_H

#include <stdint.h>

struct var;

struct vars {
	struct var *head; /* most recently created first */
	uint32_t size;	  /* bytes of values held, for tune.vars.*-max-size */
};

#endif

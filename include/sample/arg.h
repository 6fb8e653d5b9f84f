/* Arguments of fetches and converters (arg.c): type names and the resolvers that modules
 * above this layer register for the names they own (stick tables, userlists).
 */
#ifndef SAMPLE_ARG_H
#define SAMPLE_ARG_H

#include <stddef.h>
#include <sample/sample-t.h>

/* Replaces the name <name> in <a> by the object (a->data); <px> is the proxy of the rule
 * (for an empty name: "this proxy"). Returns 0, or -1 with a message in err. Check time. */
typedef int (*arg_resolve_fn)(struct arg *a, const char *name, struct proxy *px, char *err,
			      size_t errsz);

void arg_register_resolver(int type, arg_resolve_fn fn);
const char *arg_type_name(int type);

/* Check time: <a>'s string (freed when owned) gives way to a value of <type>; the caller
 * fills the data. */
void arg_drop_str(struct arg *a, int type);

/* Check time: <a>'s string (freed when owned) becomes the integer <v>. */
static inline void arg_set_sint(struct arg *a, long long v)
{
	arg_drop_str(a, ARGT_SINT);
	a->data.sint = v;
}

#endif

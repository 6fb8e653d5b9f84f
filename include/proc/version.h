/* Version strings and build facts: "-v", "-vv", and the facts "-cc"/".if" test. */
#ifndef PROC_VERSION_H
#define PROC_VERSION_H

#include <stdbool.h>
#include <cfg/cond.h>

#define HAPROXY_COMPAT_VERSION "3.2.0"   /* the HAProxy release whose behaviour we match */
#define PRODUCT_NAME "hapx"        /* this project's name on the -v line */

/* Prints the "-v" (verbose false) or "-vv" (verbose true) output to stdout. */
void version_print(bool verbose);

/* Facts for cond_eval(): version, built-in features, TLS library. Static storage. */
const struct cond_facts *version_cond_facts(void);

#endif

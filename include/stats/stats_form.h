/* Pure parsers of what a client sends to the stats page (stats/stats_form.c): the options
 * after the stats uri (";csv", ";json", ";up", ";norefresh", ";st=CODE") and the admin
 * form's POST body ("s=SRV&...&action=A&b=BACKEND", url-encoded). No I/O, no allocation,
 * no globals: any thread.
 */
#ifndef STATS_STATS_FORM_H
#define STATS_STATS_FORM_H

#include <stddef.h>
#include <stdint.h>

#define STATS_FORM_MAX_SRV 64 /* servers of one admin POST (more are ignored) */

/* stats_opts->fmt */
#define STATS_OUT_HTML 0
#define STATS_OUT_CSV 1
#define STATS_OUT_JSON 2
#define STATS_OUT_SCHEMA 3 /* ;json-schema */

struct stats_opts {
	uint8_t fmt;	   /* STATS_OUT_* */
	uint8_t up;	   /* ;up: usable servers only */
	uint8_t norefresh; /* ;norefresh */
	char st[5];	   /* ;st=XXXX of a previous admin action, "" when none */
};

/* Parses the text following the stats uri in the request's path and query (<p>, <len>).
 * Unknown options are ignored, as HAProxy does. */
void stats_opts_parse(const char *p, size_t len, struct stats_opts *o);

struct stats_form {
	const char *srv[STATS_FORM_MAX_SRV]; /* "s" values, NUL-terminated, into the body */
	int nb_srv;
	const char *action;  /* "action", or NULL */
	const char *backend; /* "b" ("#IID" or a name), or NULL */
};

/* Parses the url-encoded body <body> of <len> bytes in place: the buffer must hold
 * <len> + 1 bytes (values are decoded and NUL-terminated in it). Returns 0, or -1 when
 * the action or the backend is missing or empty. */
int stats_form_parse(char *body, size_t len, struct stats_form *f);

#endif

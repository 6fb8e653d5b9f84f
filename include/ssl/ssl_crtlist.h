/* crt-list files: the pure tokenizer of one line (certificate, "[options]", SNI filters),
 * the lists loaded from the configuration with their lines, and which bind lines use each
 * list (the runtime API adds and removes lines on all of them at once). Main thread only.
 */
#ifndef SSL_SSL_CRTLIST_H
#define SSL_SSL_CRTLIST_H

#include <stdbool.h>
#include <base/list.h>

#define CRTLIST_MAX_WORDS 64   /* options plus filters of one line */
#define CRTLIST_MAX_LINE 65536 /* bytes of one line */

/* One line split by crtlist_tokenize: pointers into the (modified) line. */
struct crtlist_line {
	char *crt;     /* the certificate file (or directory) */
	bool brackets; /* "[...]" was given (maybe empty) */
	int nb_opts, nb_filters;
	char *opts[CRTLIST_MAX_WORDS];
	char *filters[CRTLIST_MAX_WORDS];
};

/* Splits <line> (NUL-terminated, modified in place) into <out>: words are separated by
 * spaces, tabs, CR or LF, a backslash makes the next character part of the word (quotes
 * are ordinary characters, as in HAProxy 2.6), "[" and "]" delimit the options wherever
 * they appear. Returns 1 for a line with a certificate, 0 for a blank or '#' comment line,
 * -1 with a static message in <err>. */
int crtlist_tokenize(char *line, struct crtlist_line *out, const char **err);

/* One line of a crt-list file, as loaded (or added at run time). */
struct crtlist_entry {
	struct list list; /* in crtlist.entries, increasing line numbers */
	char *crt;	  /* certificate path, crt-base applied */
	char **opts;	  /* option words, or NULL */
	int nb_opts;
	bool brackets;
	char **filters; /* SNI filters, or NULL */
	int nb_filters;
	int line; /* line in the file; added ones get the next numbers */
};

/* A bind line using a list. */
struct crtlist_bind {
	struct crtlist_bind *next;
	struct ssl_bind *sb;
};

struct crtlist {
	struct crtlist *next; /* in crtlists, load order */
	char *path;
	struct list entries;
	struct crtlist_bind *binds;
	int last_line; /* the highest line number given so far */
};

extern struct crtlist *crtlists;

/* The list loaded from <path>, or NULL. */
struct crtlist *crtlist_find(const char *path);

/* Parses the tokens of <tl> into a new entry (options checked, crt-base applied); <where>
 * and <line> name the line in messages. Returns it or NULL with <err>. */
struct crtlist_entry *crtlist_entry_new(const struct crtlist_line *tl, const char *where, int line,
					char *err, size_t errlen);
void crtlist_entry_free(struct crtlist_entry *e);

/* Adds the certificates of <e> to bind <sb> (contexts built when <build>: at run time).
 * Returns the number of instances added, or -1 with <err> (none added). */
int crtlist_entry_instantiate(struct crtlist *cl, struct crtlist_entry *e, struct ssl_bind *sb,
			      bool build, char *err, size_t errlen);

/* Writes the options of <e> as HAProxy 2.6 shows them ("alpn h2  ssl-min-ver TLSv1.3")
 * into <buf>. Returns the length (truncated to <len> - 1). */
int crtlist_entry_opts_str(const struct crtlist_entry *e, char *buf, size_t len);

#endif

/* Texts of a server's "show stat" line that the check and agent threads write and any
 * thread reads (last_chk, last_agt): copies under one lock (stats/stat_text.c).
 */
#ifndef STATS_STAT_TEXT_H
#define STATS_STAT_TEXT_H

#include <stddef.h>

/* Copies <src> (NULL: empty) into <dst> of <size> bytes, cut to fit. Any thread. */
void stats_text_set(char *dst, size_t size, const char *src);
/* Copies <src> of <size> bytes (a text stats_text_set wrote) into <out> of the same
 * size. Any thread. */
void stats_text_get(char *out, const char *src, size_t size);

#endif

/* Texts of a server's "show stat" line written by the check and agent threads (last_chk,
 * last_agt) and read by the stats writers on any thread. A text is several bytes that a
 * reader must see whole: both sides copy under one lock, taken once per check result and
 * once per line shown, never on the request path.
 */
#include <pthread.h>
#include <string.h>

#include <stats/stat_text.h>

static pthread_mutex_t stats_text_lock = PTHREAD_MUTEX_INITIALIZER;

void stats_text_set(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	pthread_mutex_lock(&stats_text_lock);
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
	pthread_mutex_unlock(&stats_text_lock);
}

void stats_text_get(char *out, const char *src, size_t size)
{
	pthread_mutex_lock(&stats_text_lock);
	memcpy(out, src, size);
	pthread_mutex_unlock(&stats_text_lock);
	out[size - 1] = '\0';
}

/* OpenSSL's memory through a per-thread cache of its record buffers. With
 * SSL_MODE_RELEASE_BUFFERS (an idle TLS connection holds no buffer, like a plain one),
 * OpenSSL allocates and frees a ~17 KB buffer around nearly every read and write; from
 * glibc's bins that costs about a thousand instructions per request. Blocks of that size
 * class are kept in a small per-thread list instead (no lock: a block freed by another
 * thread simply joins that thread's list). Every other size goes to malloc. Each block
 * carries a 16-byte header with its size, so realloc and free need nothing else.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include <ssl/ssl.h>

#include "ssl_int.h"

#define MEM_HDR 16	  /* keeps the caller's block 16-byte aligned */
#define MEM_CLS_MIN 16384 /* the record buffers' sizes fall in [MIN, MAX] */
#define MEM_CLS_MAX 18432
#define MEM_CACHE_MAX 8 /* cached blocks per thread at most */

struct mem_hdr {
	size_t size; /* usable size */
	size_t cls;  /* 1: a MEM_CLS_MAX block that may be cached */
};

_Static_assert(sizeof(struct mem_hdr) <= MEM_HDR, "the header fits its room");

struct mem_free {
	struct mem_free *next;
};

static __thread struct mem_free *mem_cache;
static __thread int mem_cached;

static void *ssl_mem_alloc(size_t size, const char *file, int line)
{
	struct mem_hdr *h;
	bool cls = size >= MEM_CLS_MIN && size <= MEM_CLS_MAX;

	(void)file;
	(void)line;
	if (cls && mem_cache) {
		h = (struct mem_hdr *)mem_cache;
		mem_cache = mem_cache->next;
		mem_cached--;
	} else {
		if (size > SIZE_MAX - MEM_HDR - MEM_CLS_MAX)
			return NULL;
		h = malloc(MEM_HDR + (cls ? MEM_CLS_MAX : size));
		if (!h)
			return NULL;
	}
	h->size = cls ? MEM_CLS_MAX : size;
	h->cls = cls;
	return (char *)h + MEM_HDR;
}

static void ssl_mem_free(void *ptr, const char *file, int line)
{
	struct mem_hdr *h;

	(void)file;
	(void)line;
	if (!ptr)
		return;
	h = (struct mem_hdr *)((char *)ptr - MEM_HDR);
	if (h->cls && mem_cached < MEM_CACHE_MAX) {
		struct mem_free *f = (struct mem_free *)h;

		f->next = mem_cache;
		mem_cache = f;
		mem_cached++;
		return;
	}
	free(h);
}

static void *ssl_mem_realloc(void *ptr, size_t size, const char *file, int line)
{
	struct mem_hdr *h;
	void *n;

	if (!ptr)
		return ssl_mem_alloc(size, file, line);
	h = (struct mem_hdr *)((char *)ptr - MEM_HDR);
	if (h->cls && size <= h->size)
		return ptr;
	if (!h->cls && !(size >= MEM_CLS_MIN && size <= MEM_CLS_MAX)) {
		if (size > SIZE_MAX - MEM_HDR)
			return NULL;
		h = realloc(h, MEM_HDR + size);
		if (!h)
			return NULL;
		h->size = size;
		return (char *)h + MEM_HDR;
	}
	n = ssl_mem_alloc(size, file, line);
	if (!n)
		return NULL;
	memcpy(n, ptr, h->size < size ? h->size : size);
	ssl_mem_free(ptr, file, line);
	return n;
}

int ssl_mem_init(void)
{
	/* refused once OpenSSL allocated anything: then it keeps its own (plain malloc) */
	return CRYPTO_set_mem_functions(ssl_mem_alloc, ssl_mem_realloc, ssl_mem_free) ? 0 : -1;
}

void ssl_mem_thread_release(void)
{
	ssl_sock_thread_release();
	while (mem_cache) {
		struct mem_free *f = mem_cache;

		mem_cache = f->next;
		free(f);
	}
	mem_cached = 0;
}

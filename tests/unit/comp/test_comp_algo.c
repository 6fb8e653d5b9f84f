/* Unit tests of the compressors (comp/comp_algo.c): each algorithm's stream decoded by
 * zlib's inflate gives the input back byte for byte, whatever the sizes of the input
 * pieces and of the output room; a pause flushes what is held; zlib's memory is counted
 * and maxzlibmem refuses a context that would pass it; the level falls to 0 while over
 * maxcomprate and the bytes then bypass compression.
 */
#ifdef USE_ZLIB /* without zlib only identity exists (tested by the integration tests) */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <comp/comp.h>
#include "../test.h"

/* Text that compresses like a web page: words from a small dictionary, pseudo-random. */
static size_t algo_text(char *buf, size_t len)
{
	static const char *w[] = { "<p>",	  "the", "proxy", "compresses", "html", "</p>\n",
				   "class=\"x\"", "of",	 "and",	  "response",	"body", "<div>" };
	uint32_t r = 12345;
	size_t n = 0;

	while (n < len) {
		const char *s;
		size_t l;

		r = r * 1103515245 + 12345;
		s = w[(r >> 16) % (sizeof(w) / sizeof(w[0]))];
		l = strlen(s);
		if (l > len - n)
			l = len - n;
		memcpy(buf + n, s, l);
		n += l;
		if (n < len)
			buf[n++] = ' ';
	}
	return n;
}

/* Runs <in> through a context of <a> in pieces of <piece> bytes into rooms of <room>
 * bytes, pausing after each piece when <pause>. Returns the output length (-1 on error). */
static long algo_run(const struct comp_algo *a, const char *in, size_t len, size_t piece,
		     size_t room, bool pause, char *out, size_t outsz)
{
	struct comp_ctx c;
	size_t off = 0, o = 0;
	int guard = 0;

	if (comp_ctx_init(&c, a) < 0)
		return -1;
	for (;;) {
		size_t give = len - off < piece ? len - off : piece;
		bool end = off + give == len;
		struct flt_out fo = { out + o, room < outsz - o ? room : outsz - o, 0, false };
		long took = comp_ctx_step(&c, in + off, give, &fo, end);

		if (took < 0 || ++guard > 1000000)
			break;
		off += (size_t)took;
		o += fo.len;
		if (end && (size_t)took == give && !fo.more)
			break;
		if (pause && !end && (size_t)took == give) {
			struct flt_out po = { out + o, room < outsz - o ? room : outsz - o, 0,
					      false };

			if (comp_ctx_step(&c, NULL, 0, &po, false) < 0)
				break;
			o += po.len;
		}
	}
	comp_ctx_end(&c);
	return (long)o;
}

/* Inflates <in> with the window bits of <a>; returns the length (-1 on error). */
static long algo_inflate(const struct comp_algo *a, const char *in, size_t len, char *out,
			 size_t outsz)
{
	z_stream z = { 0 };
	int wb = a->wbits_mode < 0 ? -15 : a->wbits_mode == 2 ? 31 : 15;
	long n;

	if (inflateInit2(&z, wb) != Z_OK)
		return -1;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)outsz;
	n = inflate(&z, Z_FINISH) == Z_STREAM_END ? (long)z.total_out : -1;
	inflateEnd(&z);
	return n;
}

static void algo_roundtrip(const char *name, size_t len, size_t piece, size_t room, bool pause)
{
	const struct comp_algo *a = comp_algo_find(name);
	char *in = malloc(len + 1), *out = malloc(len * 2 + 1024), *back = malloc(len + 1);
	long o, b;

	CHECK(a && in && out && back);
	if (!a || !in || !out || !back)
		goto end;
	algo_text(in, len);
	o = algo_run(a, in, len, piece, room, pause, out, len * 2 + 1024);
	CHECK(o > 0);
	if (o <= 0)
		goto end;
	if (a->id == COMP_IDENTITY) {
		CHECK_INT(o, (long)len);
		CHECK(memcmp(in, out, len) == 0);
		goto end;
	}
	/* text compresses (the level-1 encoder looks for matches in runs of up to 16 kB:
	 * small output rooms and pauses cut them shorter) */
	CHECK(len < 4096 || room < 16384 || (pause && piece < 16384) || o < (long)len / 3);
	b = algo_inflate(a, out, (size_t)o, back, len + 1);
	CHECK_INT(b, (long)len);
	CHECK(b == (long)len && memcmp(in, back, len) == 0);
end:
	free(in);
	free(out);
	free(back);
}

TEST(comp_algo_roundtrips)
{
	static const char *names[] = { "gzip", "deflate", "raw-deflate", "identity" };

	for (size_t i = 0; i < 8; i++) {
		comp_set.maxlevel = i < 4 ? 1 : 6; /* the fast encoder, then zlib */
		algo_roundtrip(names[i % 4], 100000, 100000, 16384, false);
		algo_roundtrip(names[i % 4], 100000, 4000, 16384, true);
		algo_roundtrip(names[i % 4], 300000, 777, 64, true); /* tiny output rooms */
		algo_roundtrip(names[i % 4], 1, 1, 64, false);
		algo_roundtrip(names[i % 4], 70000, 65536, 100, false);
		algo_roundtrip(names[i % 4], 100000, 1000, 16384, false); /* gathered */
	}
	comp_set.maxlevel = 1;
}

TEST(comp_algo_empty_body)
{
	const struct comp_algo *a = comp_algo_find("gzip");
	char out[256], back[16];
	long o = a ? algo_run(a, "", 0, 1, sizeof(out), false, out, sizeof(out)) : -1;

	CHECK(o >= 20 && o <= 21); /* the gzip header and trailer around an empty stream */
	CHECK_INT(a ? algo_inflate(a, out, (size_t)o, back, sizeof(back)) : -1, 0);
}

TEST(comp_algo_pause_flushes)
{
	const struct comp_algo *a = comp_algo_find("gzip");
	struct comp_ctx c;
	char out[4096], back[64];
	struct flt_out fo = { out, sizeof(out), 0, false };
	long took;
	z_stream z = { 0 };

	if (!a || comp_ctx_init(&c, a) < 0) {
		CHECK(0);
		return;
	}
	took = comp_ctx_step(&c, "hello hello hello", 17, &fo, false);
	CHECK_INT(took, 17);
	fo = (struct flt_out){ out + fo.len, sizeof(out) - fo.len, 0, false };
	CHECK_INT(comp_ctx_step(&c, NULL, 0, &fo, false), 0);
	CHECK(fo.len > 0);
	/* what went out so far inflates to the whole input without the end of the stream */
	inflateInit2(&z, 31);
	z.next_in = (Bytef *)out;
	z.avail_in = (uInt)(fo.p - out + fo.len);
	z.next_out = (Bytef *)back;
	z.avail_out = sizeof(back);
	CHECK(inflate(&z, Z_SYNC_FLUSH) == Z_OK);
	CHECK_INT(z.total_out, 17);
	CHECK(memcmp(back, "hello hello hello", 17) == 0);
	inflateEnd(&z);
	/* a second pause holds nothing */
	fo = (struct flt_out){ out, sizeof(out), 0, false };
	CHECK_INT(comp_ctx_step(&c, NULL, 0, &fo, false), 0);
	CHECK_INT(fo.len, 0);
	comp_ctx_end(&c);
}

/* The memory of a context at tune.comp.maxlevel <lvl> is counted and capped. */
static void algo_memory(int lvl, uint64_t at_least)
{
	const struct comp_algo *a = comp_algo_find("gzip");
	struct comp_ctx c1, c2;
	uint64_t base = comp_zmem_used(), one;

	comp_set.maxlevel = lvl;
	if (!a || comp_ctx_init(&c1, a) < 0) {
		CHECK(0);
		goto out;
	}
	one = comp_zmem_used() - base;
	CHECK(one >= at_least);
	comp_set.maxzlibmem = base + one + one / 2;
	CHECK(comp_ctx_init(&c2, a) < 0); /* a second one would pass the ceiling */
	CHECK(comp_zmem_used() == base + one);
	comp_set.maxzlibmem = 0;
	CHECK(comp_ctx_init(&c2, a) == 0);
	comp_ctx_end(&c2);
	comp_ctx_end(&c1);
	CHECK(comp_zmem_used() == base);
	CHECK(comp_ctx_init(&c1, comp_algo_find("identity")) == 0); /* holds nothing */
	CHECK(comp_zmem_used() == base);
	comp_ctx_end(&c1);
out:
	comp_set.maxlevel = 1;
}

TEST(comp_algo_memory_counted_and_capped)
{
	algo_memory(1, 32768);	/* the fast encoder's hash table */
	algo_memory(2, 200000); /* zlib: window, hash chains, pending buffer (about 260 kB) */
}

TEST(comp_algo_level_falls_over_the_rate)
{
	const struct comp_algo *a = comp_algo_find("deflate");
	size_t len = 200000;
	char *in = malloc(len), *out = malloc(len * 2), *back = malloc(len);
	struct comp_ctx c;
	size_t off = 0, o = 0;
	int zero_seen = 0;

	if (!a || !in || !out || !back || comp_ctx_init(&c, a) < 0) {
		CHECK(0);
		goto end;
	}
	algo_text(in, len);
	comp_set.rate_lim = 1; /* anything is over it */
	comp_rate_out(1000000);
	for (int i = 0; off < len && i < 1000; i++) {
		struct flt_out fo = { out + o, len * 2 - o, 0, false };
		long took = comp_ctx_step(&c, in + off, 10000, &fo, false);

		CHECK(took == 10000);
		off += 10000;
		o += fo.len;
		fo = (struct flt_out){ out + o, len * 2 - o, 0, false };
		comp_ctx_step(&c, NULL, 0, &fo, false); /* a flush: the level goes down */
		o += fo.len;
		zero_seen |= c.level == 0;
	}
	{
		struct flt_out fo = { out + o, len * 2 - o, 0, false };

		comp_ctx_step(&c, NULL, 0, &fo, true);
		o += fo.len;
	}
	comp_set.rate_lim = 0;
	CHECK(zero_seen);
	CHECK(o > len / 2); /* mostly stored as it came */
	CHECK_INT(algo_inflate(a, out, o, back, len), (long)len);
	CHECK(memcmp(in, back, len) == 0);
	comp_ctx_end(&c);
end:
	free(in);
	free(out);
	free(back);
}

TEST(comp_algo_list_line)
{
	CHECK_STR(comp_algos_line(),
		  "Compression algorithms supported : identity(\"identity\"), "
		  "deflate(\"deflate\"), raw-deflate(\"deflate\"), gzip(\"gzip\")");
	CHECK(comp_algo_find("br") == NULL);
	CHECK(comp_algo_find("raw-deflate")->ua_name.len == 7);
}

#endif /* USE_ZLIB */

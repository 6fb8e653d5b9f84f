/* `make bench-pick`: nanoseconds per server pick of each load-balancing algorithm with 4,
 * 64 and 1,000 equal servers, on one thread, without taking slots (the pick alone). The
 * servers carry a fixed, uneven number of connections so that leastconn and random(2)
 * compare real loads. Output: one line per algorithm and server count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <backend/backend.h>
#include <backend/lb_load.h>
#include <backend/server.h>
#include <base/tinfo.h>

#define PICKS_MIN 200000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct algo {
	const char *name;
	int lbalgo;
	int hash_type;
};

static const struct algo algos[] = {
	{ "roundrobin", LB_ALGO_ROUNDROBIN, 0 },
	{ "leastconn", LB_ALGO_LEASTCONN, 0 },
	{ "random(2)", LB_ALGO_RANDOM, 0 },
	{ "first", LB_ALGO_FIRST, 0 },
	{ "source (map-based)", LB_ALGO_SOURCE, LB_HASH_MAP },
	{ "source (consistent)", LB_ALGO_SOURCE, LB_HASH_CONSISTENT },
};

/* One pick of <a> in <px>; <h> varies the key of the hash algorithms. */
static struct server *pick(const struct algo *a, struct proxy *px, uint32_t h)
{
	bool full;

	switch (a->lbalgo) {
	case LB_ALGO_LEASTCONN:
		return lb_lc_pick(px, NULL, &full);
	case LB_ALGO_RANDOM:
		return lb_rand_pick(px, NULL, &full);
	case LB_ALGO_FIRST:
		return lb_first_pick(px, NULL, &full);
	case LB_ALGO_SOURCE:
		return lb_hash_pick(px, h * 2654435761u, NULL, &full);
	default:
		return lb_rr_pick(px, NULL, &full);
	}
}

static int run(const struct algo *a, int nsrv)
{
	struct server *srv = calloc((size_t)nsrv, sizeof(*srv));
	struct proxy px;
	uint64_t t0, t1, best = UINT64_MAX;
	uintptr_t sink = 0;

	if (!srv)
		return -1;
	memset(&px, 0, sizeof(px));
	for (int i = 0; i < nsrv; i++) {
		srv[i].weight = 1;
		srv[i].puid = i + 1;
		srv[i].cur_conns = (i * 7) % 5 + 1; /* uneven, fixed loads */
		srv[i].next = i + 1 < nsrv ? &srv[i + 1] : NULL;
	}
	px.srv = srv;
	px.lbalgo = a->lbalgo;
	px.hash_type = (uint8_t)a->hash_type;
	px.lb_draws = 2;
	if ((a->lbalgo >= LB_ALGO_FIRST && lb_hash_build(&px) < 0) || lb_rr_build(&px) < 0 ||
	    ((a->lbalgo == LB_ALGO_LEASTCONN || a->lbalgo == LB_ALGO_RANDOM) &&
	     lb_load_build(&px) < 0)) {
		free(srv);
		return -1;
	}
	for (int rep = 0; rep < 5; rep++) {
		t0 = now_ns();
		for (uint32_t i = 0; i < PICKS_MIN; i++)
			sink += (uintptr_t)pick(a, &px, i);
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	printf("%-20s %5d servers %9.1f ns/pick\n", a->name, nsrv, (double)best / PICKS_MIN);
	if (!sink) { /* a build out of step with the servers' layout would pick nothing */
		fprintf(stderr, "bench-pick: %s picked no server\n", a->name);
		exit(1);
	}
	lb_hash_free(&px);
	lb_rr_free(&px);
	lb_load_free(&px);
	free(srv);
	return 0;
}

int main(void)
{
	static const int counts[] = { 4, 64, 1000 };

	tid = 0;
	tgid = 1;
	printf("# one pick on one thread, best of 5 runs of %d picks\n", PICKS_MIN);
	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			if (run(&algos[a], counts[c]) < 0) {
				fprintf(stderr, "bench-pick: out of memory\n");
				return 1;
			}
	return 0;
}

/* Listening sockets: one SO_REUSEPORT socket per shard (by default one per thread group),
 * each polled by the threads of its group that serve the bind (EPOLLEXCLUSIVE, so one of
 * them wakes). The thread that wakes accepts a batch and gives each connection to the
 * least loaded of those threads, itself on ties, through the target's inbox. Limits
 * (global, frontend, bind maxconn) pause a thread's registration; the end of a connection
 * anywhere resumes every paused registration, through the inboxes of their threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <base/pool.h>
#include <conn/listener.h>
#include <conn/listener_fds.h>
#include <conn/sockopt.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <thread/thread-t.h>

int actconn; /* process-wide: read and written with atomics */
struct freq_ctr conn_rate; /* connections accepted per second, process-wide (atomic) */
uint32_t conn_rate_max;    /* highest conn_rate seen at an accept (atomic) */
static bool rate_limited;  /* a rate limit is configured: set before threads start, or by
			    * the CLI (listeners_limits_changed(), atomic) */

/* A connection accepted by one thread for another. */
struct accept_item {
	struct inbox_item it;
	struct listener *li;
	int fd;
	struct sockaddr_storage peer;
};

#define RESUME_RETRY_MS 100 /* paused registrations are retried this often */

DECLARE_POOL(pool_accept_item, "accept_item", sizeof(struct accept_item))
DECLARE_POOL(pool_li_reg, "listener_reg", sizeof(struct li_reg))

static __thread struct li_reg *thread_regs;  /* this thread's registrations */
static int paused_regs;                      /* paused registrations, all threads (atomic) */
static int sig_paused;                       /* SIGTTOU received, no SIGTTIN since (atomic) */

/* One resume request per thread, pushed at most once until it runs. */
static struct resume_item {
	struct inbox_item it;
	int pending;                          /* atomic */
} resume_items[MAX_THREADS];

/* ---- binding ---- */

static bool li_shardable(const struct listener *li)
{
	return li->inherited_fd < 0 && li->addr.ss_family != AF_UNIX;
}

static int sock_adopt(struct listener *li, char *err, size_t errsz)
{
	int fd = li->inherited_fd, acc = 0;
	socklen_t l = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 || !acc) {
		snprintf(err, errsz, "fd@%d is not a listening socket", fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* An inherited listening socket for the same address (seamless reload): listens again
 * with the new backlog. Returns <fd>, or -1 (errno set, fd closed). */
static int sock_reuse(int fd, int backlog)
{
	int e;

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 &&
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && listen(fd, backlog > 0 ? backlog : 1024) == 0)
		return fd;
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* A new listening socket for <li>; returns the fd or -1 (errno set). */
static int sock_listen(struct listener *li, int backlog)
{
	int fam = li->addr.ss_family, one = 1, fd, e;

	fd = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (fam != AF_UNIX) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* shards of one address, and a new process next to an old one (-sf) */
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	} else {
		const struct sockaddr_un *un = (const void *)&li->addr;

		if (un->sun_path[0])
			unlink(un->sun_path);
	}
	if (fam != AF_UNIX) { /* inherited by the accepted sockets: nothing per connection */
		if (li->bind->px->options & PR_O_CLITCPKA)
			sock_set_keepalive(fd, &li->bind->px->clitcpka);
		if (li->bind->tcp_ut)
			sock_set_user_timeout(fd, li->bind->tcp_ut);
	}
	if (fam == AF_INET6) {
		int v6only = li->bind->v6only ? 1 : 0;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
	}
	if (bind(fd, (const struct sockaddr *)&li->addr, li->addrlen) == 0 &&
	    listen(fd, backlog > 0 ? backlog : 1024) == 0)
		return fd;
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Threads of group <g> serving <bc> (group-relative bits); all of them when the bind's
 * thread set was not resolved. */
static uint64_t bind_group_mask(const struct bind_conf *bc, int g)
{
	uint64_t all = thread_cfg.groups[g].count >= 64 ? ~0ULL
			: (1ULL << thread_cfg.groups[g].count) - 1;
	bool any = false;

	for (int i = 0; i < thread_cfg.ngroups; i++)
		any |= bc->thr_masks[i] != 0;
	return any ? bc->thr_masks[g] & all : all;
}

/* Lays out the shards of <li> in out[] (fd not set): one per group (by-group, and for
 * sockets that cannot be sharded), one per thread (by-thread), or N spread over the
 * threads in order, never across a group boundary. Returns the count. */
static int shard_plan(const struct listener *li, struct li_shard *out)
{
	const struct bind_conf *bc = li->bind;
	int mode = bc->shards ? bc->shards : thread_cfg.default_shards;
	int ngroups = thread_cfg.ngroups > 0 ? thread_cfg.ngroups : 1;
	int total = 0, n = 0, k = 0, prev = -1;

	if (!li_shardable(li))
		mode = SHARDS_BY_GROUP;
	for (int g = 0; g < ngroups; g++)
		total += __builtin_popcountll(bind_group_mask(bc, g));
	for (int g = 0; g < ngroups; g++) {
		uint64_t m = bind_group_mask(bc, g);

		prev = -1;
		for (int t = 0; t < 64 && m; t++, m >>= 1) {
			int idx;

			if (!(m & 1))
				continue;
			idx = mode == SHARDS_BY_GROUP ? 0 : mode == SHARDS_BY_THREAD ? k
			      : (int)((long)k * mode / total);
			k++;
			if (idx != prev) {
				out[n] = (struct li_shard){ .li = (struct listener *)li, .fd = -1,
							    .tgid = g + 1 };
				n++;
				prev = idx;
			}
			out[n - 1].thr_mask |= 1ULL << t;
		}
	}
	return n;
}

int listener_bind(struct listener *li, int backlog, char *err, size_t errsz)
{
	struct li_shard plan[MAX_THREADS];
	int n = shard_plan(li, plan);

	if (global.maxconnrate || global.maxsessrate || li->bind->px->sess_rate_lim ||
	    (li->bind->ssl && listener_tls_wait))
		rate_limited = true;

	li->shards = calloc((size_t)n, sizeof(*li->shards));
	if (!li->shards) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int fd;

		if (i == 0 && li->inherited_fd >= 0) {
			fd = sock_adopt(li, err, errsz);
		} else {
			if (i > 0 && !li_shardable(li)) /* an fd belongs to one group: dup it */
				fd = fcntl(li->shards[0].fd, F_DUPFD_CLOEXEC, 0);
			else if ((fd = lfds_take(&li->addr, li->addrlen, li->bind->v6only,
						 plan[i].tgid)) >= 0)
				fd = sock_reuse(fd, backlog); /* handed over by the old process */
			else
				fd = sock_listen(li, backlog);
			if (fd < 0)
				snprintf(err, errsz, "%s", strerror(errno));
		}
		if (fd < 0) {
			listener_close(li);
			return -1;
		}
		li->shards[i] = plan[i];
		li->shards[i].fd = fd;
		li->nb_shards = i + 1;
	}
	li->fd = li->shards[0].fd;
	if (li_shardable(li)) { /* TCP: new connections and queues come to us (-sf) */
		int fds[MAX_THREADS];

		for (int i = 0; i < n; i++)
			fds[i] = li->shards[i].fd;
		sock_reuseport_take_over(fds, n); /* best effort: needs CAP_BPF */
	}
	return 0;
}

void listener_close(struct listener *li)
{
	for (int i = 0; i < li->nb_shards; i++)
		if (li->shards[i].fd >= 0 && li->shards[i].fd != li->inherited_fd) {
			close(li->shards[i].fd);
			li->shards[i].fd = -1;
		}
	if (li->inherited_fd >= 0 && li->nb_shards) {
		close(li->inherited_fd);
		li->shards[0].fd = -1;
	}
	free(li->shards);
	li->shards = NULL;
	li->nb_shards = 0;
	li->fd = -1;
}

/* ---- accepting ---- */

bool (*listener_tls_full)(void);
uint32_t (*listener_tls_wait)(uint64_t now);

static bool listener_full(const struct listener *li)
{
	const struct proxy *px = li->bind->px;
	int pxmax = HA_ATOMIC_LOAD_RLX(&px->maxconn); /* "set maxconn frontend" writes it */

	int gmax = HA_ATOMIC_LOAD_RLX(&global.maxconn); /* the CLI may change it */

	if (gmax && HA_ATOMIC_LOAD_RLX(&actconn) >= gmax)
		return true;
	if (pxmax && HA_ATOMIC_LOAD_RLX(&px->feconn) >= pxmax)
		return true;
	if (unlikely(li->bind->ssl) && listener_tls_full && listener_tls_full()) /* maxsslconn */
		return true;
	return li->bind->maxconn && HA_ATOMIC_LOAD_RLX(&li->nbconn) >= li->bind->maxconn;
}

/* Milliseconds before <li> may accept one more connection under the rate limits
 * (maxconnrate, maxsessrate, the frontend's rate-limit sessions); 0 = now. */
static int listener_rate_wait(const struct listener *li)
{
	const struct proxy *px = li->bind->px;
	uint64_t now = now_ms();
	uint32_t w = 0, x;
	int crate = HA_ATOMIC_LOAD_RLX(&global.maxconnrate); /* the CLI may change them */
	int srate = HA_ATOMIC_LOAD_RLX(&global.maxsessrate);

	if (crate && (x = freq_ctr_wait(&conn_rate, (uint32_t)crate, now)) > w)
		w = x;
	if (srate && (x = freq_ctr_wait(&conn_rate, (uint32_t)srate, now)) > w)
		w = x;
	if (px->sess_rate_lim &&
	    (x = freq_ctr_wait(&px->sess_rate, (uint32_t)px->sess_rate_lim, now)) > w)
		w = x;
	if (li->bind->ssl && listener_tls_wait && (x = listener_tls_wait(now)) > w) /* maxsslrate */
		w = x;
	return (int)w;
}

/* Counts an event in <f> at <now> and raises <max> to the new rate if it is higher. */
static void rate_count(struct freq_ctr *f, uint32_t *max, uint64_t now)
{
	uint32_t r, m;

	freq_ctr_inc(f, now);
	r = freq_ctr_rate(f, now);
	m = HA_ATOMIC_LOAD_RLX(max);
	while (r > m && !HA_ATOMIC_CAS(max, &m, r))
		;
}

/* Counts an accepted connection in the process's and the frontend's rates. */
static void conn_rate_count(struct listener *li)
{
	struct proxy *px = li->bind->px;
	uint64_t now = now_ms();

	rate_count(&conn_rate, &conn_rate_max, now);
	rate_count(&px->sess_rate, &px->sess_rate_max, now);
}

/* Stops polling <reg> until a connection ends somewhere: pending connections wait in the
 * kernel's backlog meanwhile. */
static void resume_local(void);

/* Retries paused registrations when no connection end will (EMFILE with none open, a
 * rate limit). */
static __thread struct timer resume_tmr;

static void resume_tmr_cb(struct timer *t)
{
	resume_local();
}

/* Arms the retry in <ms> unless it is due sooner already. */
static void resume_arm(int ms)
{
	uint64_t when = tick_add(ms > 0 ? ms : 1);

	resume_tmr.cb = resume_tmr_cb;
	if (!resume_tmr.expire || resume_tmr.expire > when)
		timer_set(&resume_tmr, when);
}

/* Pauses <reg> because of a maxconn limit (<retry_ms> 0: a connection end resumes it), of
 * a lack of fds or memory or of a rate limit (retried in <retry_ms>). */
static void reg_pause(struct li_reg *reg, int retry_ms)
{
	if (reg->paused)
		return;
	epoll_ctl(th_ctx->epfd, EPOLL_CTL_DEL, reg->h.fd, NULL);
	reg->paused = true;
	HA_ATOMIC_INC(&paused_regs);
	if (!retry_ms && !listener_full(reg->sh->li)) {
		/* the last connection ended between the limit check and the increment,
		 * seeing no paused registration: nobody else will resume it */
		resume_local();
		return;
	}
	resume_arm(retry_ms ? retry_ms : RESUME_RETRY_MS);
}

static int reg_add(struct li_reg *reg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &reg->h };

	/* several threads poll this socket: wake only one of them per connection */
	if (__builtin_popcountll(reg->sh->thr_mask) > 1)
		ev.events |= EPOLLEXCLUSIVE;
	return epoll_ctl(th_ctx->epfd, EPOLL_CTL_ADD, reg->h.fd, &ev);
}

/* The least loaded thread serving <sh>, the calling thread on ties. */
static int pick_thread(const struct li_shard *sh)
{
	int base = thread_cfg.ngroups > 0 ? thread_cfg.groups[sh->tgid - 1].base : 0;
	int best = (int)tid, best_load = -1;
	uint64_t m = sh->thr_mask;

	if ((int)tgid == sh->tgid && (m >> (tid - (unsigned)base)) & 1)
		best_load = HA_ATOMIC_LOAD_RLX(&th_ctx->sh.load);
	for (int t = base; m; t++, m >>= 1) {
		int load;

		struct thread_ctx *tc;

		if (!(m & 1) || t == (int)tid || !(tc = HA_ATOMIC_LOAD(&ha_thread_ctx[t])))
			continue;
		load = HA_ATOMIC_LOAD_RLX(&tc->sh.load);
		if (best_load < 0 || load < best_load) {
			best = t;
			best_load = load;
		}
	}
	return best;
}

static void accept_here(struct listener *li, int fd, const struct sockaddr_storage *peer)
{
	if (li->accept(li, fd, peer) < 0) {
		close(fd);
		HA_ATOMIC_DEC(&th_ctx->sh.load);
		listener_release(li);
	}
}

static void accept_item_run(struct inbox_item *it)
{
	struct accept_item *ai = container_of(it, struct accept_item, it);

	accept_here(ai->li, ai->fd, &ai->peer);
	pool_free(&pool_accept_item, ai);
}

/* Hands an accepted connection to thread <t>; on memory shortage serves it here. */
static void accept_dispatch(struct listener *li, int fd, const struct sockaddr_storage *peer,
			    int t)
{
	struct accept_item *ai;

	if (t != (int)tid && (ai = pool_alloc(&pool_accept_item))) {
		ai->it.fn = accept_item_run;
		ai->li = li;
		ai->fd = fd;
		ai->peer = *peer;
		HA_ATOMIC_INC(&ha_thread_ctx[t]->sh.load);
		HA_OWNER_INC(&activity[tid].accq_pushed);
		inbox_push(t, &ai->it);
		return;
	}
	HA_ATOMIC_INC(&th_ctx->sh.load);
	accept_here(li, fd, peer);
}

static void listener_iocb(struct fd_handler *h, uint32_t events)
{
	struct li_reg *reg = container_of(h, struct li_reg, h);
	struct listener *li = reg->sh->li;
	int budget = global.tune_maxaccept > 0 ? global.tune_maxaccept : 64;

	while (budget--) {
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		int fd;

		int wait;

		if (listener_full(li)) {
			reg_pause(reg, 0);
			return;
		}
		if (unlikely(HA_ATOMIC_LOAD_RLX(&rate_limited)) && (wait = listener_rate_wait(li)) > 0) {
			reg_pause(reg, wait);
			return;
		}
		fd = accept4(h->fd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM ||
			    errno == EINVAL) /* EINVAL: paused by SIGTTOU, not unregistered yet */
				reg_pause(reg, RESUME_RETRY_MS); /* or a connection end resumes it */
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		HA_ATOMIC_INC(&actconn);
		HA_ATOMIC_INC(&li->nbconn);
		HA_ATOMIC_UPDATE_MAX(&li->bind->px->feconn_max,
				     HA_ATOMIC_INC(&li->bind->px->feconn));
		conn_rate_count(li);
		CNT_INC(li->cnt, cum_conn);
		CNT_INC(li->bind->px->fe_cnt, cum_conn);
		HA_OWNER_INC(&activity[tid].accepted);
		accept_dispatch(li, fd, &peer, pick_thread(reg->sh));
	}
}

/* ---- registration, pause and resume ---- */

int listener_enable(struct listener *li)
{
	int ltid = (int)tid - (thread_cfg.ngroups > 0 ? thread_cfg.groups[tgid - 1].base : 0);

	for (int i = 0; i < li->nb_shards; i++) {
		struct li_shard *sh = &li->shards[i];
		struct li_reg *reg;

		if (sh->tgid != (int)tgid || !((sh->thr_mask >> ltid) & 1))
			continue;
		reg = pool_alloc(&pool_li_reg);
		if (!reg)
			return -1;
		memset(reg, 0, sizeof(*reg));
		tasklet_init(&reg->release, NULL);
		reg->h.fd = sh->fd;
		reg->h.iocb = listener_iocb;
		reg->sh = sh;
		if (reg_add(reg) < 0) {
			pool_free(&pool_li_reg, reg);
			return -1;
		}
		reg->next = thread_regs;
		thread_regs = reg;
	}
	return 0;
}

static void reg_release(struct tasklet *tl)
{
	pool_free(&pool_li_reg, container_of(tl, struct li_reg, release));
}

/* An event of the current batch may still name a registration: it is marked dead (fd -1,
 * skipped by the loop) and freed after the batch. */
void listeners_thread_disable(void)
{
	while (thread_regs) {
		struct li_reg *reg = thread_regs;

		thread_regs = reg->next;
		if (reg->paused)
			HA_ATOMIC_DEC(&paused_regs);
		else
			epoll_ctl(th_ctx->epfd, EPOLL_CTL_DEL, reg->h.fd, NULL);
		reg->h.fd = -1;
		loop_defer_release(&reg->release, reg_release);
	}
}

/* Re-adds the calling thread's paused registrations whose limits allow it. */
static void resume_local(void)
{
	if (HA_ATOMIC_LOAD(&sig_paused)) /* only SIGTTIN resumes them */
		return;
	for (struct li_reg *reg = thread_regs; reg; reg = reg->next) {
		int wait = 0;

		if (!reg->paused)
			continue;
		if (!listener_full(reg->sh->li) &&
		    (!HA_ATOMIC_LOAD_RLX(&rate_limited) || !(wait = listener_rate_wait(reg->sh->li))) &&
		    reg_add(reg) == 0) {
			reg->paused = false;
			HA_ATOMIC_DEC(&paused_regs);
		} else {
			/* a rate limit says when; an fd shortage with nothing to release
			 * is retried regularly */
			resume_arm(wait ? wait : RESUME_RETRY_MS);
		}
	}
}

static void resume_item_run(struct inbox_item *it)
{
	struct resume_item *ri = container_of(it, struct resume_item, it);

	HA_ATOMIC_STORE(&ri->pending, 0);
	resume_local();
}

/* Asks every thread to retry its paused registrations (this one at once). */
static void resume_all(void)
{
	resume_local();
	for (int t = 0; t < global.nbthread && t < MAX_THREADS; t++) {
		struct resume_item *ri = &resume_items[t];

		if (t == (int)tid || !HA_ATOMIC_LOAD(&ha_thread_ctx[t]) ||
		    HA_ATOMIC_XCHG(&ri->pending, 1))
			continue;
		ri->it.fn = resume_item_run;
		inbox_push(t, &ri->it);
	}
}

void listener_release(struct listener *li)
{
	HA_ATOMIC_DEC(&actconn);
	HA_ATOMIC_DEC(&li->nbconn);
	HA_ATOMIC_DEC(&li->bind->px->feconn);
	if (HA_ATOMIC_LOAD_RLX(&paused_regs))
		resume_all();
}

void listeners_limits_changed(void)
{
	if (HA_ATOMIC_LOAD_RLX(&global.maxconnrate) || HA_ATOMIC_LOAD_RLX(&global.maxsessrate) ||
	    listener_tls_wait)
		HA_ATOMIC_STORE_RLX(&rate_limited, true);
	if (HA_ATOMIC_LOAD_RLX(&paused_regs))
		resume_all();
}

/* ---- pause and resume (SIGTTOU, SIGTTIN) ---- */

void listeners_set_paused(bool paused)
{
	HA_ATOMIC_STORE(&sig_paused, paused ? 1 : 0);
}

/* A TCP socket that stops listening stays bound; a unix one is only unregistered (its
 * connections wait in its backlog), HAProxy having no way to pause those either.
 */
void listener_pause_sock(struct listener *li)
{
	for (int i = 0; i < li->nb_shards; i++)
		if (li->addr.ss_family != AF_UNIX && li->shards[i].fd >= 0)
			shutdown(li->shards[i].fd, SHUT_RD);
}

void listener_resume_sock(struct listener *li, int backlog)
{
	int fds[MAX_THREADS], n = 0;

	if (li->addr.ss_family == AF_UNIX)
		return;
	for (int i = 0; i < li->nb_shards; i++)
		if (li->shards[i].fd >= 0 && listen(li->shards[i].fd, backlog > 0 ? backlog : 1024) == 0)
			fds[n++] = li->shards[i].fd;
	if (n && li_shardable(li)) /* the group was left: steer to these sockets again */
		sock_reuseport_take_over(fds, n);
}

void listeners_thread_pause(void)
{
	for (struct li_reg *reg = thread_regs; reg; reg = reg->next) {
		if (reg->paused)
			continue;
		epoll_ctl(th_ctx->epfd, EPOLL_CTL_DEL, reg->h.fd, NULL);
		reg->paused = true;
		HA_ATOMIC_INC(&paused_regs);
	}
}

void listeners_thread_resume(void)
{
	resume_local();
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(listener_iocb, "listener_accept")
PROF_NAME(accept_item_run, "accept_queue_process")
PROF_NAME(resume_item_run, "listener_resume")

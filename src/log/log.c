/* Sending log messages: the header of each format, truncation to "len", and the
 * non-blocking send to UDP syslog, a unix datagram socket or a file descriptor. Each
 * thread has its own datagram sockets (one per family, made on first use), so sending
 * takes no lock; a message that cannot leave at once (full socket buffer, no listener) is
 * dropped and counted.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <base/atomic.h>
#include <base/ev_report.h>
#include <base/tinfo.h>
#include <log/log.h>
#include <log/ring.h>
#include <proxy/proxy-t.h>

struct list global_loggers = LIST_HEAD_INIT(global_loggers);
char *global_log_tag;
bool global_log_hostname;
char *global_log_host;

const char *const log_level_names[8] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

static uint64_t log_drops; /* atomic: messages dropped, all threads */
static pid_t log_pid;	   /* cached: reset in a forked child */

/* Per-thread sending state: one datagram socket per family, made on first use, and the
 * date strings of the current second. */
struct log_thr {
	int fd_inet, fd_inet6, fd_unix;
	time_t sec;	   /* second of the cached dates, 0: none */
	char date3164[16]; /* "Mmm dd hh:mm:ss" */
	char iso[32];	   /* "YYYY-MM-DDThh:mm:ss" */
	char tz[7];	   /* "+hh:mm" */
};

static __thread struct log_thr log_thr = { -1, -1, -1, 0, "", "", "" };

static void log_atfork_child(void)
{
	log_pid = 0;
}

static void log_ev_send(const struct proxy *px, int level, const char *msg, size_t len);

__attribute__((constructor)) static void log_init(void)
{
	pthread_atfork(NULL, NULL, log_atfork_child);
	ev_log_hook = log_ev_send; /* runtime events reach the proxies' loggers */
}

static pid_t log_getpid(void)
{
	pid_t p = HA_ATOMIC_LOAD_RLX(&log_pid);

	if (!p) {
		p = getpid();
		HA_ATOMIC_STORE_RLX(&log_pid, p);
	}
	return p;
}

uint64_t log_dropped(void)
{
	return HA_ATOMIC_LOAD_RLX(&log_drops);
}

static void log_drop(void)
{
	HA_ATOMIC_ADD(&log_drops, 1);
}

bool log_px_enabled(const struct proxy *px)
{
	return !list_empty(&px->loggers);
}

/* Writes <v> in decimal at <p>; returns the end. */
static char *log_utoa(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *log_2d(char *p, int v)
{
	*p++ = (char)('0' + v / 10 % 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

/* Refreshes the thread's date strings when the second changed. */
static void log_dates(struct log_thr *lt, time_t sec)
{
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;
	long off;
	char *p;

	if (lt->sec == sec)
		return;
	localtime_r(&sec, &tm);
	p = lt->date3164;
	memcpy(p, mon[tm.tm_mon], 3);
	p += 3;
	*p++ = ' ';
	*p++ = tm.tm_mday < 10 ? ' ' : (char)('0' + tm.tm_mday / 10);
	*p++ = (char)('0' + tm.tm_mday % 10);
	*p++ = ' ';
	p = log_2d(p, tm.tm_hour);
	*p++ = ':';
	p = log_2d(p, tm.tm_min);
	*p++ = ':';
	p = log_2d(p, tm.tm_sec);
	*p = '\0';
	snprintf(lt->iso, sizeof(lt->iso), "%04d-%02d-%02dT%02d:%02d:%02d",
		 (tm.tm_year + 1900) % 10000, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec);
	off = tm.tm_gmtoff / 60;
	p = lt->tz;
	*p++ = off < 0 ? '-' : '+';
	if (off < 0)
		off = -off;
	p = log_2d(p, (int)(off / 60 % 100));
	*p++ = ':';
	p = log_2d(p, (int)(off % 60));
	*p = '\0';
	lt->sec = sec;
}

/* "YYYY-MM-DDThh:mm:ss.uuuuuu+hh:mm" */
static char *log_iso_date(char *p, const struct log_thr *lt, long usec)
{
	size_t n = strlen(lt->iso);

	memcpy(p, lt->iso, n);
	p += n;
	*p++ = '.';
	for (long d = 100000; d; d /= 10)
		*p++ = (char)('0' + usec / d % 10);
	memcpy(p, lt->tz, 6);
	return p + 6;
}

static const char *log_hostname(void)
{
	return global_log_host ? global_log_host : "";
}

/* Builds the header of <lg>'s format for a message at <level> into <hdr> (LOG_HDR_MAX
 * bytes). Returns its length. */
#define LOG_HDR_MAX 512
static size_t log_header(const struct logger *lg, int level, const char *tag, struct ist sd,
			 char *hdr, const struct timespec *ts)
{
	struct log_thr *lt = &log_thr;
	int pri = lg->facility * 8 + level;
	char *p = hdr, *end = hdr + LOG_HDR_MAX;
	const char *host = NULL;
	size_t n;

	if (lg->fmt != LOG_FMT_RAW && lg->fmt != LOG_FMT_ISO) {
		*p++ = '<';
		p = log_utoa(p, lg->fmt == LOG_FMT_SHORT || lg->fmt == LOG_FMT_TIMED
					? (unsigned long)level
					: (unsigned long)pri);
		*p++ = '>';
	}
	switch (lg->fmt) {
	case LOG_FMT_RFC3164:
	case LOG_FMT_LOCAL:
		log_dates(lt, ts->tv_sec);
		memcpy(p, lt->date3164, 15);
		p += 15;
		*p++ = ' ';
		/* the default format names the host only with "log-send-hostname"; explicit
		 * "rfc3164" always does, "localhost" when none is set (as HAProxy 2.6) */
		if (lg->fmt == LOG_FMT_RFC3164 && (global_log_hostname || lg->explicit_fmt))
			host = global_log_hostname ? log_hostname() : "localhost";
		if (host && *host) {
			n = strnlen(host, 255);
			memcpy(p, host, n);
			p += n;
			*p++ = ' ';
		}
		n = strnlen(tag, 255);
		memcpy(p, tag, n);
		p += n;
		*p++ = '[';
		p = log_utoa(p, (unsigned long)log_getpid());
		memcpy(p, "]: ", 3);
		p += 3;
		break;
	case LOG_FMT_RFC5424:
		*p++ = '1';
		*p++ = ' ';
		log_dates(lt, ts->tv_sec);
		p = log_iso_date(p, lt, ts->tv_nsec / 1000);
		*p++ = ' ';
		host = global_log_hostname && *log_hostname() ? log_hostname() : "-";
		n = strnlen(host, 255);
		memcpy(p, host, n);
		p += n;
		*p++ = ' ';
		n = strnlen(tag, 48);
		memcpy(p, tag, n);
		p += n;
		*p++ = ' ';
		p = log_utoa(p, (unsigned long)log_getpid());
		memcpy(p, " - ", 3);
		p += 3;
		if (sd.len && sd.len < (size_t)(end - p - 2)) {
			memcpy(p, sd.ptr, sd.len);
			p += sd.len;
		} else {
			*p++ = '-';
		}
		*p++ = ' ';
		break;
	case LOG_FMT_TIMED:
	case LOG_FMT_ISO:
		log_dates(lt, ts->tv_sec);
		p = log_iso_date(p, lt, ts->tv_nsec / 1000);
		*p++ = ' ';
		break;
	case LOG_FMT_PRIO:
	case LOG_FMT_SHORT:
	case LOG_FMT_RAW:
		break;
	}
	return (size_t)(p - hdr);
}

/* The last header each thread built, reused while nothing in it changes: same format,
 * facility, level, tag and pid, same second, and a format without sub-second time. One
 * entry is enough for the usual single target; a miss only costs the build. */
struct log_hdr_cache {
	int fmt; /* enum log_fmt + 1 (explicit_fmt in bit 8), 0: empty */
	int facility;
	const char *tag;
	pid_t pid;
	int level;
	time_t sec;
	size_t len;
	char hdr[LOG_HDR_MAX];
};

static __thread struct log_hdr_cache log_hc;

static size_t log_header_cached(const struct logger *lg, int level, const char *tag, struct ist sd,
				const struct timespec *ts, const char **hp)
{
	struct log_hdr_cache *c = &log_hc;
	int fmt = (int)lg->fmt + 1 + (lg->explicit_fmt ? 256 : 0);
	pid_t pid;

	if (lg->fmt == LOG_FMT_RFC5424 || lg->fmt == LOG_FMT_TIMED || lg->fmt == LOG_FMT_ISO) {
		c->fmt = 0; /* the buffer is reused below */
		*hp = c->hdr;
		return log_header(lg, level, tag, sd, c->hdr, ts);
	}
	pid = log_getpid();
	if (c->fmt != fmt || c->facility != lg->facility || c->level != level ||
	    c->sec != ts->tv_sec || c->tag != tag || c->pid != pid) {
		c->len = log_header(lg, level, tag, sd, c->hdr, ts);
		c->fmt = fmt;
		c->facility = lg->facility;
		c->level = level;
		c->sec = ts->tv_sec;
		c->tag = tag;
		c->pid = pid;
	}
	*hp = c->hdr;
	return c->len;
}

/* The thread's datagram socket for <family>, made on first use. -1 if none. */
static int log_sock(int family)
{
	struct log_thr *lt = &log_thr;
	int *fdp = family == AF_INET	? &lt->fd_inet
		   : family == AF_INET6 ? &lt->fd_inet6
					: &lt->fd_unix;

	if (*fdp < 0)
		*fdp = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	return *fdp;
}

/* true when the <n>-th message (0-based) of <lg> is in its "sample" ranges */
static bool log_sampled(struct logger *lg)
{
	uint32_t n = HA_ATOMIC_ADD(&lg->smp_count, 1) - 1;
	uint32_t pos = n % lg->smp_period + 1;

	for (int i = 0; i < lg->smp_nb; i++)
		if (pos >= lg->smp_lo[i] && pos <= lg->smp_hi[i])
			return true;
	return false;
}

static void log_send_one(struct logger *lg, int level, const char *tag, const char *msg, size_t len,
			 struct ist sd, const struct timespec *ts)
{
	const char *hp;
	struct iovec iov[3];
	struct msghdr mh;
	size_t hlen, max = (size_t)lg->maxlen;
	ssize_t ret;
	int fd;

	if (level < lg->minlevel)
		level = lg->minlevel;
	hlen = log_header_cached(lg, level, tag, sd, ts, &hp);
	/* header and text are cut to "len" (the final newline comes after, as in 2.6): a
	 * message is cut, never split */
	if (hlen > max)
		hlen = max;
	if (hlen + len > max)
		len = max - hlen;
	iov[0].iov_base = (void *)hp;
	iov[0].iov_len = hlen;
	iov[1].iov_base = (void *)msg;
	iov[1].iov_len = len;
	iov[2].iov_base = "\n";
	iov[2].iov_len = 1;

	switch (lg->dst) {
	case LOG_DST_UDP:
	case LOG_DST_UNIX:
		fd = log_sock(lg->addr.ss_family);
		if (fd < 0) {
			log_drop();
			return;
		}
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &lg->addr;
		mh.msg_namelen = lg->addrlen;
		mh.msg_iov = iov;
		mh.msg_iovlen = 3;
		ret = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		break;
	case LOG_DST_RING:
		/* stored without the newline: the ring's servers frame it their way */
		ring_write(lg->ring, iov, 2);
		return;
	case LOG_DST_FD:
		/* one writev: atomic on pipes up to PIPE_BUF, the fd is non-blocking */
		ret = writev(lg->fd, iov, 3);
		break;
	default:
		ret = -1;
		break;
	}
	if (ret < 0)
		log_drop();
}

void log_send(const struct list *loggers, int level, const char *tag, const char *msg, size_t len,
	      struct ist sd)
{
	struct logger *lg;
	struct timespec ts = { 0, 0 };

	if (!tag)
		tag = global_log_tag ? global_log_tag : program_invocation_short_name;
	list_for_each_entry(lg, loggers, list)
	{
		if (level > lg->level)
			continue;
		if (lg->smp_period && !log_sampled(lg))
			continue;
		if (!ts.tv_sec)
			clock_gettime(CLOCK_REALTIME, &ts);
		log_send_one(lg, level, tag, msg, len, sd, &ts);
	}
}

void log_send_px(const struct proxy *px, int level, const char *msg, size_t len, struct ist sd)
{
	log_send(&px->loggers, level, px->log_tag, msg, len, sd);
}

/* ev_report()'s way into the logs: the proxy's own loggers only, none falling back to the
 * global ones (as 2.6: a backend without "log" logs no server event). */
static void log_ev_send(const struct proxy *px, int level, const char *msg, size_t len)
{
	/* a proxy not made by the config parser (unit tests) has a zeroed list */
	if (px->loggers.next && !list_empty(&px->loggers))
		log_send_px(px, level, msg, len, (struct ist){ NULL, 0 });
}

void log_sendf(const struct proxy *px, int level, const char *fmt, ...)
{
	static __thread char buf[1024];
	const struct list *ll = px ? &px->loggers : &global_loggers;
	va_list ap;
	int n;

	if (list_empty(ll))
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	while (n && buf[n - 1] == '\n')
		n--;
	log_send(ll, level, px ? px->log_tag : NULL, buf, (size_t)n, (struct ist){ NULL, 0 });
}

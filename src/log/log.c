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
#include <log/syslog_parse.h>
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

/* Copies at most <max> bytes of <s> to <p> followed by <sep>; returns the end. */
static char *log_put_word(char *p, const char *s, size_t max, char sep)
{
	size_t n = strnlen(s, max);

	memcpy(p, s, n);
	p[n] = sep;
	return p + n + 1;
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
		if (host && *host)
			p = log_put_word(p, host, 255, ' ');
		p = log_put_word(p, tag, 255, '[');
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
		p = log_put_word(p, host, 255, ' ');
		p = log_put_word(p, tag, 48, ' ');
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

/* Sends iov[0..n) cut to <lg>'s "len" (a message is cut, never split; the final newline
 * comes after, as in 2.6). <iov> has room for one more entry (the newline). */
static void log_emit(struct logger *lg, struct iovec *iov, int n)
{
	size_t room = (size_t)lg->maxlen;
	struct msghdr mh;
	ssize_t ret;
	int i, fd;

	for (i = 0; i < n; i++) {
		if (iov[i].iov_len > room)
			iov[i].iov_len = room;
		room -= iov[i].iov_len;
	}
	iov[n].iov_base = "\n";
	iov[n].iov_len = 1;

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
		mh.msg_iovlen = (size_t)n + 1;
		ret = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		break;
	case LOG_DST_RING:
		/* stored without the newline: the ring's servers frame it their way */
		ring_write(lg->ring, iov, n);
		return;
	case LOG_DST_FD:
		/* one writev: atomic on pipes up to PIPE_BUF, the fd is non-blocking */
		ret = writev(lg->fd, iov, n + 1);
		break;
	default:
		ret = -1;
		break;
	}
	if (ret < 0)
		log_drop();
}

static void log_send_one(struct logger *lg, int level, const char *tag, const char *msg, size_t len,
			 struct ist sd, const struct timespec *ts)
{
	const char *hp;
	struct iovec iov[3];

	if (level < lg->minlevel)
		level = lg->minlevel;
	iov[0].iov_len = log_header_cached(lg, level, tag, sd, ts, &hp);
	iov[0].iov_base = (void *)hp;
	iov[1].iov_base = (void *)msg;
	iov[1].iov_len = len;
	log_emit(lg, iov, 2);
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

/* Forwarded messages (log-forward): the header of each format is rebuilt from the received
 * message's fields; the text is relayed byte for byte. */

static const char log_mon[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

/* "Mmm dd hh:mm:ss" from a 5424 "YYYY-MM-DDThh:mm:ss..." into <d> (16 bytes). false if
 * <ts> is not of that form. */
static bool log_ts_to_3164(struct ist ts, char *d)
{
	const char *t = ts.ptr;
	int mon;

	if (ts.len < 19 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' ||
	    t[16] != ':' || t[5] < '0' || t[5] > '1' || t[6] < '0' || t[6] > '9')
		return false;
	mon = (t[5] - '0') * 10 + (t[6] - '0');
	if (mon < 1 || mon > 12)
		return false;
	memcpy(d, log_mon + (mon - 1) * 3, 3);
	d[3] = ' ';
	d[4] = t[8] == '0' ? ' ' : t[8];
	d[5] = t[9];
	d[6] = ' ';
	memcpy(d + 7, t + 11, 8);
	return true;
}

/* "YYYY-MM-DDThh:mm:ss-00:00" (this year) from a 3164 "Mmm dd hh:mm:ss" into <d> (32). */
static size_t log_ts_to_5424(struct ist ts, char *d, const struct log_thr *lt)
{
	int mon = 0;

	for (int i = 0; i < 12; i++)
		if (memcmp(ts.ptr, log_mon + i * 3, 3) == 0)
			mon = i + 1;
	memcpy(d, lt->iso, 4); /* the year of "now" */
	d[4] = '-';
	log_2d(d + 5, mon);
	d[7] = '-';
	d[8] = ts.ptr[4] == ' ' ? '0' : ts.ptr[4];
	d[9] = ts.ptr[5];
	d[10] = 'T';
	memcpy(d + 11, ts.ptr + 7, 8);
	memcpy(d + 19, "-00:00", 6);
	return 25;
}

#define LOG_ADD(p, l)                          \
	do {                                   \
		iov[n].iov_base = (void *)(p); \
		iov[n++].iov_len = (l);        \
	} while (0)
#define LOG_ADD_IST(v, dflt)                             \
	do {                                             \
		if ((v).len)                             \
			LOG_ADD((v).ptr, (v).len);       \
		else                                     \
			LOG_ADD(dflt, sizeof(dflt) - 1); \
	} while (0)

static void log_fwd_one(struct logger *lg, const struct syslog_msg *m, int level, int pri,
			const struct timespec *now)
{
	struct log_thr *lt = &log_thr;
	struct iovec iov[20];
	char prib[8], d3164[16], d5424[48];
	size_t plen, d5len = 0;
	enum log_fmt fmt = lg->fmt;
	int n = 0;

	/* no "format": the header the message came with, rebuilt from its fields (as 2.6):
	 * 3164, 5424 with a timestamp, else "<PRI>" alone, nothing without PRI */
	if (!lg->explicit_fmt) {
		if (m->kind == SYSLOG_5424 && m->ts.len)
			fmt = LOG_FMT_RFC5424;
		else if (m->kind == SYSLOG_RAW)
			fmt = LOG_FMT_RAW;
		else if (m->kind != SYSLOG_3164)
			fmt = LOG_FMT_PRIO;
	}
	prib[0] = '<';
	plen = (size_t)(log_utoa(prib + 1, (unsigned long)pri) - prib);
	prib[plen++] = '>';
	log_dates(lt, now->tv_sec);
	if (fmt == LOG_FMT_RFC3164 || fmt == LOG_FMT_LOCAL) {
		if (m->kind == SYSLOG_3164)
			memcpy(d3164, m->ts.ptr, 15);
		else if (m->kind != SYSLOG_5424 || !log_ts_to_3164(m->ts, d3164))
			memcpy(d3164, lt->date3164, 15);
	} else if (fmt == LOG_FMT_RFC5424 || fmt == LOG_FMT_TIMED || fmt == LOG_FMT_ISO) {
		if (m->kind == SYSLOG_5424 && (m->ts.len || fmt == LOG_FMT_RFC5424)) {
			d5len = 0; /* as received; 5424's "-" stays "-" */
		} else if (m->kind == SYSLOG_3164) {
			d5len = log_ts_to_5424(m->ts, d5424, lt);
		} else {
			d5len = (size_t)(log_iso_date(d5424, lt, now->tv_nsec / 1000) - d5424);
		}
	}
	switch (fmt) {
	case LOG_FMT_RFC3164:
	case LOG_FMT_LOCAL:
		LOG_ADD(prib, plen);
		LOG_ADD(d3164, 15);
		LOG_ADD(" ", 1);
		if (fmt == LOG_FMT_RFC3164) {
			LOG_ADD_IST(m->host, "localhost");
			LOG_ADD(" ", 1);
		}
		if (m->tag.len) {
			LOG_ADD(m->tag.ptr, m->tag.len);
			if (m->pid.len) {
				LOG_ADD("[", 1);
				LOG_ADD(m->pid.ptr, m->pid.len);
				LOG_ADD("]", 1);
			}
			LOG_ADD(": ", 2);
		}
		break;
	case LOG_FMT_RFC5424:
		LOG_ADD(prib, plen);
		LOG_ADD("1 ", 2);
		if (d5len)
			LOG_ADD(d5424, d5len);
		else
			LOG_ADD_IST(m->ts, "-");
		LOG_ADD(" ", 1);
		LOG_ADD_IST(m->host, "-");
		LOG_ADD(" ", 1);
		LOG_ADD_IST(m->tag, "-");
		LOG_ADD(" ", 1);
		LOG_ADD_IST(m->pid, "-");
		LOG_ADD(" ", 1);
		LOG_ADD_IST(m->msgid, "-");
		LOG_ADD(" ", 1);
		LOG_ADD_IST(m->sd, "-");
		LOG_ADD(" ", 1);
		break;
	case LOG_FMT_TIMED:
	case LOG_FMT_SHORT:
		prib[0] = '<';
		prib[1] = (char)('0' + level);
		prib[2] = '>';
		LOG_ADD(prib, 3);
		if (fmt == LOG_FMT_SHORT)
			break;
		/* fallthrough */
	case LOG_FMT_ISO:
		if (d5len)
			LOG_ADD(d5424, d5len);
		else
			LOG_ADD(m->ts.ptr, m->ts.len);
		LOG_ADD(" ", 1);
		break;
	case LOG_FMT_PRIO:
		LOG_ADD(prib, plen);
		break;
	case LOG_FMT_RAW:
		break;
	}
	LOG_ADD(m->msg.ptr, m->msg.len);
	log_emit(lg, iov, n);
}

void log_send_fields(const struct list *loggers, const struct syslog_msg *m)
{
	struct timespec ts = { 0, 0 };
	struct logger *lg;

	list_for_each_entry(lg, loggers, list)
	{
		/* a message without PRI: the target's facility, level emerg (as 2.6) */
		int level = m->level >= 0 ? m->level : 0;
		int pri = (m->level >= 0 ? m->facility : lg->facility) * 8 + level;

		if (level > lg->level)
			continue;
		if (lg->smp_period && !log_sampled(lg))
			continue;
		if (!ts.tv_sec)
			clock_gettime(CLOCK_REALTIME, &ts);
		log_fwd_one(lg, m, level, pri, &ts);
	}
}

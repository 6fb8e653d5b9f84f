/* Types of log targets ("log" lines of global, defaults and proxies): where a message goes
 * (UDP syslog, a unix datagram socket, a file descriptor, a ring), how its header is
 * written (the format), and which levels and facility it carries. Built at config time,
 * read-only once threads run except for the counters named below.
 */
#ifndef LOG_LOG_T_H
#define LOG_LOG_T_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <base/list.h>

struct ring;

/* syslog levels, as in <syslog.h> */
#define LOG_LVL_EMERG 0
#define LOG_LVL_ALERT 1
#define LOG_LVL_CRIT 2
#define LOG_LVL_ERR 3
#define LOG_LVL_WARNING 4
#define LOG_LVL_NOTICE 5
#define LOG_LVL_INFO 6
#define LOG_LVL_DEBUG 7

enum log_fmt {
	LOG_FMT_RFC3164 = 0, /* "<PRI>Mmm dd hh:mm:ss [host ]tag[pid]: " (the default) */
	LOG_FMT_LOCAL,	     /* rfc3164 without the host name */
	LOG_FMT_RFC5424,     /* "<PRI>1 ISO-TIME host tag pid - SD " */
	LOG_FMT_PRIO,	     /* "<PRI>" */
	LOG_FMT_SHORT,	     /* "<LEVEL>" */
	LOG_FMT_TIMED,	     /* "<LEVEL>ISO-TIME " */
	LOG_FMT_ISO,	     /* "ISO-TIME " */
	LOG_FMT_RAW,	     /* the message alone */
};

enum log_dst {
	LOG_DST_UDP = 0, /* syslog over UDP (IPv4 or IPv6) */
	LOG_DST_UNIX,	 /* a unix datagram socket ("/dev/log") */
	LOG_DST_FD,	 /* stdout, stderr, fd@N: one write per message + "\n" */
	LOG_DST_RING,	 /* ring@NAME, tcp@ADDR (an implicit ring): log/ring.h */
};

struct logger {
	struct list list; /* in a proxy's or the global list */
	enum log_dst dst;
	enum log_fmt fmt;
	struct sockaddr_storage addr; /* LOG_DST_UDP, LOG_DST_UNIX */
	socklen_t addrlen;
	int fd;			   /* LOG_DST_FD */
	int facility;		   /* 0..23 */
	int level;		   /* highest level sent (default debug) */
	int minlevel;		   /* a more severe message is sent at this level (default emerg:
				    * no change) */
	int maxlen;		   /* "len": whole message, header included (default 1024) */
	uint32_t smp_period;	   /* "sample R:S": S, 0 when every message is sent */
	int smp_nb;		   /* ranges in smp_lo/hi */
	uint32_t *smp_lo, *smp_hi; /* the n-th message (1-based, modulo S) of a range is sent;
				    * owned */
	uint32_t smp_count;	   /* messages seen (atomic), for "sample" only */
	bool explicit_fmt;	   /* "format" was given (rfc3164 then always names a host) */
	char *conf_file;	   /* where it was declared, for messages */
	int conf_line;
	struct ring *ring; /* LOG_DST_RING: shared, owned by the ring list (log/ring.h) */
};

#endif

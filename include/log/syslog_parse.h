/* Pure parsing of received syslog messages (log/syslog_parse.c), for the
 * "log-forward" sections: the TCP framing (RFC 6587 octet counting or a newline) and the
 * RFC 3164 / RFC 5424 header fields, as views into the input. No I/O, no allocation.
 */
#ifndef LOG_SYSLOG_PARSE_H
#define LOG_SYSLOG_PARSE_H

#include <stddef.h>
#include <base/ist.h>

enum syslog_kind {
	SYSLOG_RAW = 0, /* no valid "<PRI>": the whole input is the message */
	SYSLOG_PRI,	/* "<PRI>" then text that is neither of the formats below */
	SYSLOG_3164,	/* "<PRI>Mmm dd hh:mm:ss [host ]tag[pid]: msg" */
	SYSLOG_5424,	/* "<PRI>1 TS HOST APP PID MSGID SD msg" */
};

struct syslog_msg {
	enum syslog_kind kind;
	int facility, level;			       /* -1 when there is no PRI */
	struct ist ts, host, tag, pid, msgid, sd, msg; /* empty when absent ("-" in 5424) */
};

/* Parses one message (<len> bytes, no framing, a final "\n" or "\r\n" dropped). Always
 * succeeds: what it does not recognise stays in <msg>. */
void syslog_parse(const char *buf, size_t len, struct syslog_msg *m);

#define SYSLOG_FRAME_MAX 65535 /* the longest message a frame may announce */

/* Finds the first message of a TCP stream in <buf>: "LEN SP msg" when it starts with a
 * digit, else everything up to a newline. Returns the bytes consumed (message and framing)
 * with the message at <*off>, <*mlen>; 0 when incomplete; -1 when invalid (a bad or too
 * long count, or more than SYSLOG_FRAME_MAX bytes without a newline). */
long syslog_frame(const char *buf, size_t len, size_t *off, size_t *mlen);

#endif

/* Type of the TCP keep-alive tuning of one side of a proxy (conn/sockopt.h). */
#ifndef CONN_SOCKOPT_T_H
#define CONN_SOCKOPT_T_H

/* Keep-alive tuning of one side of a proxy; 0: the system's setting. */
struct tcpka {
	int idle;  /* s before the first probe (TCP_KEEPIDLE) */
	int intvl; /* s between probes (TCP_KEEPINTVL) */
	int cnt;   /* unanswered probes before the connection drops */
};

#endif

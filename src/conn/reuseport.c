/* Hand-over of the accept queue between processes sharing an address with SO_REUSEPORT
 * (a reload with -sf). When a listening socket closes, Linux resets the connections that
 * wait in its accept queue, unless the socket's reuseport group allows migrating them to
 * another listener of the group. A two-instruction eBPF program of type SK_REUSEPORT,
 * attached with the SELECT_OR_MIGRATE attach type, allows it for the group without
 * changing the kernel's choice of listener for new connections (it selects nothing, so the
 * usual hash applies). It needs CAP_BPF (or CAP_SYS_ADMIN) and Linux 5.14; without them the
 * socket works as before and only the hand-over of queued connections is lost.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <conn/listener.h>

#ifndef SO_ATTACH_REUSEPORT_EBPF
#define SO_ATTACH_REUSEPORT_EBPF 52
#endif

/* Loads "r0 = SK_PASS; exit": pass, let the kernel pick by hash, migrate on close.
 * Returns the program fd or -1 (errno set). */
static int reuseport_prog_load(void)
{
	struct bpf_insn insns[2];
	union bpf_attr attr;
	static const char license[] = "GPL";

	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
	insns[0].dst_reg = BPF_REG_0;
	insns[0].imm = SK_PASS;
	insns[1].code = BPF_JMP | BPF_EXIT;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SK_REUSEPORT;
	attr.expected_attach_type = BPF_SK_REUSEPORT_SELECT_OR_MIGRATE;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(uintptr_t)license;
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

int sock_reuseport_migrate(int fd)
{
	int prog = reuseport_prog_load(), ret, e;

	if (prog < 0)
		return -1;
	ret = setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &prog, sizeof(prog));
	e = errno;
	close(prog); /* the reuseport group keeps its own reference */
	errno = e;
	return ret;
}

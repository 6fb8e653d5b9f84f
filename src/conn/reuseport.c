/* Hand-over of new connections between processes sharing an address with SO_REUSEPORT
 * (a reload with -sf). Two kernel mechanisms, through a small eBPF program of type
 * SK_REUSEPORT attached to the address's reuseport group with the SELECT_OR_MIGRATE
 * attach type:
 * - steering: the newest process puts its own sockets for the address in a
 *   REUSEPORT_SOCKARRAY map, and the program sends every new connection to one of them
 *   (by the packet's hash, as the kernel would): the old process's sockets get no new
 *   connection from then on, so closing them later loses none;
 * - migration: when a socket of the group closes, the connections waiting in its accept
 *   queue move to the socket the program picks instead of being reset.
 * Loading a program needs CAP_BPF (or CAP_SYS_ADMIN) and Linux 5.14; without it the
 * sockets work as before and only the hand-over is lost. The programs are a few
 * instructions written here, not compiled: no libbpf.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <conn/listener.h>

#ifndef SO_ATTACH_REUSEPORT_EBPF
#define SO_ATTACH_REUSEPORT_EBPF 52
#endif

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i;

	memset(&i, 0, sizeof(i));
	i.code = code;
	i.dst_reg = dst & 0xf;
	i.src_reg = src & 0xf;
	i.off = off;
	i.imm = imm;
	return i;
}

/* Loads <n> instructions as an SK_REUSEPORT SELECT_OR_MIGRATE program; returns its fd or
 * -1 (errno set). */
static int prog_load(const struct bpf_insn *insns, uint32_t n)
{
	static const char license[] = "GPL";
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SK_REUSEPORT;
	attr.expected_attach_type = BPF_SK_REUSEPORT_SELECT_OR_MIGRATE;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = n;
	attr.license = (uint64_t)(uintptr_t)license;
	return (int)sys_bpf(BPF_PROG_LOAD, &attr);
}

/* A REUSEPORT_SOCKARRAY holding fds[0..n); returns the map fd or -1. */
static int map_of_sockets(const int *fds, int n)
{
	union bpf_attr attr;
	int map, e;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_REUSEPORT_SOCKARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = sizeof(uint64_t);
	attr.max_entries = (uint32_t)n;
	map = (int)sys_bpf(BPF_MAP_CREATE, &attr);
	if (map < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		uint32_t key = (uint32_t)i;
		uint64_t val = (uint64_t)fds[i];

		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (uint32_t)map;
		attr.key = (uint64_t)(uintptr_t)&key;
		attr.value = (uint64_t)(uintptr_t)&val;
		attr.flags = BPF_ANY;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) < 0)
			goto out_close;
	}
	return map;

out_close:
	e = errno;
	close(map);
	errno = e;
	return -1;
}

/* "select map[hash % n], then pass": a failed selection (a slot whose socket closed)
 * leaves the choice to the kernel's hash. */
static int prog_steer_load(int map, int n)
{
	struct bpf_insn p[13];

	p[0] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0);
	p[1] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, BPF_REG_1,
		    offsetof(struct sk_reuseport_md, hash), 0);
	p[2] = insn(BPF_ALU | BPF_MOD | BPF_K, BPF_REG_0, 0, 0, n);
	p[3] = insn(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -4, 0);
	p[4] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD, 0, map);
	p[5] = insn(0, 0, 0, 0, 0);
	p[6] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
	p[7] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, -4);
	p[8] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0);
	p[9] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0);
	p[10] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_sk_select_reuseport);
	p[11] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, SK_PASS);
	p[12] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return prog_load(p, 13);
}

/* "pass": the kernel's hash picks, migration allowed. */
static int prog_pass_load(void)
{
	struct bpf_insn p[2];

	p[0] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, SK_PASS);
	p[1] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return prog_load(p, 2);
}

int sock_reuseport_take_over(const int *fds, int n)
{
	int map = map_of_sockets(fds, n), prog, ret, e;

	prog = map >= 0 ? prog_steer_load(map, n) : -1;
	if (map >= 0)
		close(map); /* the program keeps its own reference */
	if (prog < 0)
		prog = prog_pass_load();
	if (prog < 0)
		return -1;
	ret = setsockopt(fds[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &prog, sizeof(prog));
	e = errno;
	close(prog); /* the reuseport group keeps its own reference */
	errno = e;
	return ret;
}

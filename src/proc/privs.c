/* Privileges: parses "user"/"uid", "group"/"gid", "chroot", "set-dumpable" and "setcap"
 * (global section) and applies them in proc_drop_privileges(), as HAProxy does: names are
 * resolved while parsing, the user's groups before the chroot (its /etc is not ours), then
 * chroot, groups, gid, uid, capabilities, dumpable. Capabilities use prctl/capset directly
 * (no libcap). Startup only: single-threaded.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <cfg/cfg.h>
#include <proc/caps.h>
#include <proc/daemon.h>
#include <proc/privs.h>

/* 0 means "not set" for both ids, as in HAProxy: "uid 0" keeps root. A repeated keyword
 * keeps the first value with HAProxy's words ("... Continuing."), printed as a warning.
 */
static struct {
	uid_t uid;
	gid_t gid;
	char *user; /* "user NAME": its groups become the supplementary groups */
	char *chroot;
	bool dumpable;
	uint32_t caps; /* "setcap": CAP_* bits kept across the uid change */
} privs;

/* Parses a decimal id in [0, INT_MAX], as HAProxy's "uid"/"gid" take an int. */
static bool privs_parse_id(const char *s, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return false;
	*out = (unsigned int)v;
	return true;
}

static int privs_uid(struct cfg_ctx *ctx)
{
	unsigned int v;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (privs.uid) {
		cfg_warn(ctx, "user/uid already specified. Continuing.");
		return 0;
	}
	if (!privs_parse_id(ctx->args[1], &v)) {
		cfg_warn(ctx,
			 " uid: string '%s' is not a number.\n   | You might want to use the "
			 "'user' parameter to use a system user name.",
			 ctx->args[1]);
		return 0;
	}
	privs.uid = (uid_t)v;
	return 0;
}

static int privs_gid(struct cfg_ctx *ctx)
{
	unsigned int v;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (privs.gid) {
		cfg_warn(ctx, "group/gid already specified. Continuing.");
		return 0;
	}
	if (!privs_parse_id(ctx->args[1], &v)) {
		cfg_warn(ctx,
			 " gid: string '%s' is not a number.\n   | You might want to use the "
			 "'group' parameter to use a system group name.",
			 ctx->args[1]);
		return 0;
	}
	privs.gid = (gid_t)v;
	return 0;
}

static int privs_user(struct cfg_ctx *ctx)
{
	struct passwd *pw;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (privs.uid) {
		cfg_warn(ctx, "user/uid already specified. Continuing.");
		return 0;
	}
	errno = 0;
	pw = getpwnam(ctx->args[1]);
	if (!pw) {
		cfg_alert(ctx, "cannot find user id for '%s' (%d:%s)", ctx->args[1], errno,
			  strerror(errno));
		return -1;
	}
	free(privs.user);
	privs.user = strdup(pw->pw_name);
	if (!privs.user) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	privs.uid = pw->pw_uid;
	return 0;
}

static int privs_group(struct cfg_ctx *ctx)
{
	struct group *gr;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (privs.gid) {
		cfg_warn(ctx, "gid/group was already specified. Continuing.");
		return 0;
	}
	errno = 0;
	gr = getgrnam(ctx->args[1]);
	if (!gr) {
		cfg_alert(ctx, "cannot find group id for '%s' (%d:%s)", ctx->args[1], errno,
			  strerror(errno));
		return -1;
	}
	privs.gid = gr->gr_gid;
	return 0;
}

static int privs_chroot(struct cfg_ctx *ctx)
{
	char *p;

	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a directory as an argument.", ctx->args[0]);
		return -1;
	}
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (privs.chroot) {
		cfg_warn(ctx, "'chroot' already specified. Continuing.");
		return 0;
	}
	p = strdup(ctx->args[1]);
	if (!p) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	privs.chroot = p;
	return 0;
}

void proc_privs_set_dumpable(bool on)
{
	privs.dumpable = on;
}

static int privs_set_dumpable(struct cfg_ctx *ctx)
{
	if (cfg_need_args(ctx, 0) < 0)
		return -1;
	privs.dumpable = true;
	return 0;
}

/* setcap CAP[,CAP...]: the names HAProxy 2.9+ accepts. */
static int privs_setcap(struct cfg_ctx *ctx)
{
	const char *bad;
	size_t badlen;

	if (ctx->nargs != 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a comma-delimited list of capabilities.",
			  ctx->args[0]);
		return -1;
	}
	if (caps_parse(ctx->args[1], &privs.caps, &bad, &badlen) < 0) {
		cfg_alert(ctx,
			  "'%s' : unsupported capability '%.*s' (supported: cap_net_raw, "
			  "cap_net_admin, cap_net_bind_service, cap_sys_admin).",
			  ctx->args[0], (int)badlen, bad);
		return -1;
	}
	return 0;
}

/* The user's groups (getgrouplist, base: the configured gid, else the user's own), into a
 * malloc'ed array. Returns the count, or -1 if they cannot be known (then no group is kept).
 */
static int privs_user_groups(gid_t **out)
{
	struct passwd *pw = getpwnam(privs.user);
	gid_t base, *list = NULL, *nl;
	int n = 16;

	if (!pw)
		return -1;
	base = privs.gid ? privs.gid : pw->pw_gid;
	for (int tries = 0; tries < 8; tries++) {
		int want = n;

		nl = realloc(list, (size_t)want * sizeof(*list));
		if (!nl)
			break;
		list = nl;
		if (getgrouplist(privs.user, base, list, &n) >= 0) {
			*out = list;
			return n;
		}
		if (n <= want)
			n = want * 2;
	}
	free(list);
	return -1;
}

/* Supplementary groups: the user's when "user NAME" was given, else none (as HAProxy). A
 * failure is only a warning (an unprivileged process cannot change them).
 */
static void privs_set_groups(gid_t *list, int n)
{
	if (n >= 0) {
		if (setgroups((size_t)n, list) < 0)
			ha_warning(
				"[%s.main()] Cannot initgroups() for user %s, supplementary groups "
				"kept.\n",
				program_invocation_name, privs.user);
		return;
	}
	if (getgroups(0, NULL) > 0 && setgroups(0, NULL) < 0)
		ha_warning("[%s.main()] Failed to drop supplementary groups. Using 'gid'/'group'"
			   " without 'uid'/'user' is generally useless.\n",
			   program_invocation_name);
}

/* set-dumpable raises the core size limit too (the hard one while still root). */
static void privs_raise_core_limit(void)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_CORE, &rl) == 0)
		return;
	if (getrlimit(RLIMIT_CORE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_CORE, &rl) == 0)
			return;
	}
	ha_warning("[%s.main()] Failed to raise the core dump size limit.\n",
		   program_invocation_name);
}

/* Keeps privs.caps permitted and effective after setuid(); PR_SET_KEEPCAPS came before. */
static int privs_apply_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	data[0].permitted = data[0].effective = privs.caps;
	if (syscall(SYS_capset, &hdr, data) < 0) {
		ha_alert("[%s.main()] Failed to set the capabilities: %s.\n",
			 program_invocation_name, strerror(errno));
		return -1;
	}
	return 0;
}

/* chroot, groups, gid, uid (keeping the setcap capabilities). Returns 0 or -1 (alerted). */
static int privs_switch(gid_t *groups, int ngroups)
{
	if (privs.chroot && (chroot(privs.chroot) < 0 || chdir("/") < 0)) {
		ha_alert("[%s.main()] Cannot chroot(%s).\n", program_invocation_name, privs.chroot);
		return -1;
	}
	/* from here the pidfile's path names another file (chroot) or one the new user may
	 * not remove: it is left in place, as HAProxy does; before, a failure removes it */
	if (privs.chroot)
		pidfile_forget();
	if (privs.uid || privs.gid)
		privs_set_groups(groups, ngroups);
	if (privs.gid && setgid(privs.gid) < 0) {
		ha_alert("[%s.main()] Cannot set gid %d.\n", program_invocation_name,
			 (int)privs.gid);
		return -1;
	}
	if (privs.caps && privs.uid && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0) {
		ha_alert("[%s.main()] Failed to keep the capabilities: %s.\n",
			 program_invocation_name, strerror(errno));
		return -1;
	}
	if (privs.uid && setuid(privs.uid) < 0) {
		ha_alert("[%s.main()] Cannot set uid %d.\n", program_invocation_name,
			 (int)privs.uid);
		return -1;
	}
	pidfile_forget();
	if (privs.caps && privs.uid && privs_apply_caps() < 0)
		return -1;
	return 0;
}

int proc_drop_privileges(void)
{
	gid_t *groups = NULL;
	int ngroups = -1, ret;

	if (privs.dumpable)
		privs_raise_core_limit();
	if (!privs.chroot && !privs.uid && !privs.gid) {
		if (privs.dumpable && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
			goto out_dumpable;
		return 0;
	}
	/* /etc/group may not exist in the chroot: the user's groups are read before */
	if (privs.user)
		ngroups = privs_user_groups(&groups);
	ret = privs_switch(groups, ngroups);
	free(groups);
	if (ret < 0)
		return -1;
	/* the kernel clears the flag on a uid change: set it afterwards */
	if (privs.dumpable && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		goto out_dumpable;
	return 0;

out_dumpable:
	ha_warning("[%s.main()] Failed to set the dumpable flag, no core will be dumped.\n",
		   program_invocation_name);
	return 0;
}

/* The strings live until exit; freed there so that leak checkers see none. */
__attribute__((destructor)) static void privs_release(void)
{
	free(privs.user);
	free(privs.chroot);
}

static const struct cfg_kw privs_kws[] = {
	{ "user", CFG_SEC_GLOBAL, privs_user },
	{ "uid", CFG_SEC_GLOBAL, privs_uid },
	{ "group", CFG_SEC_GLOBAL, privs_group },
	{ "gid", CFG_SEC_GLOBAL, privs_gid },
	{ "chroot", CFG_SEC_GLOBAL, privs_chroot },
	{ "set-dumpable", CFG_SEC_GLOBAL, privs_set_dumpable },
	{ "setcap", CFG_SEC_GLOBAL, privs_setcap },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(privs_kws)

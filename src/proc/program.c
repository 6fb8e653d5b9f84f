/* "program" sections: external commands the master (master-worker mode only) forks and
 * executes before each new worker, lists in "show proc", signals with the old workers on
 * a reload (unless "no option start-on-reload": the running one is kept, its pid passed
 * through the re-exec) and with the workers on stop. A program that exits is logged,
 * never restarted, as HAProxy 2.6.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <proc/mworker.h>
#include <proc/program.h>

#define PRG_ENV "HAPX_PROGRAMS" /* "PID:RELOADS:START:NAME,..." of the running ones */
#define PRG_SEC 0x40000000u	/* local to this file: nothing else parses them */
#define PRG_MAX 64

struct prg_cfg {
	char *name;
	char **argv; /* "command" words, NULL-terminated; NULL if none */
	uid_t uid;
	gid_t gid;
	bool start_on_reload;
	const char *file;
	int line;
};

static struct prg_cfg cfgs[PRG_MAX];
static int ncfgs;
static struct program_proc procs[PRG_MAX];
static int nprocs;

/* ---- configuration ---- */

static int prg_begin(struct cfg_ctx *ctx)
{
	struct prg_cfg *p = &cfgs[ncfgs];

	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'program' expects an <id> as argument.");
		return -1;
	}
	if (strpbrk(ctx->args[1], ",:") || strlen(ctx->args[1]) >= PRG_NAME_MAX) {
		cfg_alert(ctx, "'program' name '%s' is too long or contains ',' or ':'.",
			  ctx->args[1]);
		return -1;
	}
	if (ncfgs >= PRG_MAX) {
		cfg_alert(ctx, "too many 'program' sections (%d at most).", PRG_MAX);
		return -1;
	}
	*p = (struct prg_cfg){
		strdup(ctx->args[1]), NULL, (uid_t)-1, (gid_t)-1, true, ctx->file, ctx->line
	};
	if (!p->name) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	ncfgs++;
	return 0;
}

static struct prg_cfg *prg_cur(void)
{
	return ncfgs ? &cfgs[ncfgs - 1] : NULL;
}

static int prg_command(struct cfg_ctx *ctx)
{
	struct prg_cfg *p = prg_cur();
	int n = ctx->nargs - 1;

	if (n < 1) {
		cfg_alert(ctx, "'command' expects at least one argument.");
		return -1;
	}
	if (p->argv) {
		cfg_alert(ctx, "'command' already specified.");
		return -1;
	}
	p->argv = calloc((size_t)n + 1, sizeof(*p->argv));
	for (int i = 0; p->argv && i < n; i++)
		if (!(p->argv[i] = strdup(ctx->args[i + 1])))
			n = -1;
	if (!p->argv || n < 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

static int prg_user(struct cfg_ctx *ctx)
{
	struct prg_cfg *p = prg_cur();

	if (ctx->nargs != 2) {
		cfg_alert(ctx, "'%s' expects one argument.", ctx->args[0]);
		return -1;
	}
	if (ctx->args[0][0] == 'u') {
		struct passwd *pw = getpwnam(ctx->args[1]);

		if (!pw) {
			cfg_alert(ctx, "cannot find user id for '%s' (%d:%s)", ctx->args[1], errno,
				  strerror(errno));
			return -1;
		}
		p->uid = pw->pw_uid;
	} else {
		struct group *gr = getgrnam(ctx->args[1]);

		if (!gr) {
			cfg_alert(ctx, "cannot find group id for '%s' (%d:%s)", ctx->args[1], errno,
				  strerror(errno));
			return -1;
		}
		p->gid = gr->gr_gid;
	}
	return 0;
}

static int prg_option(struct cfg_ctx *ctx)
{
	bool no = strcmp(ctx->args[0], "no") == 0;
	int i = no ? 1 : 0;

	if (ctx->nargs != i + 2 || strcmp(ctx->args[i], "option") != 0 ||
	    strcmp(ctx->args[i + 1], "start-on-reload") != 0) {
		cfg_alert(ctx, "unknown keyword '%s' in 'program' section", ctx->args[0]);
		return -1;
	}
	prg_cur()->start_on_reload = !no;
	return 0;
}

static const struct cfg_section prg_section = { "program", PRG_SEC, prg_begin };

static const struct cfg_kw prg_kws[] = {
	{ "command", PRG_SEC, prg_command }, { "user", PRG_SEC, prg_user },
	{ "group", PRG_SEC, prg_user },	     { "option", PRG_SEC, prg_option },
	{ "no", PRG_SEC, prg_option },	     { NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(prg_kws)

__attribute__((constructor)) static void prg_register(void)
{
	cfg_register_section(&prg_section);
}

int program_cfg_check(bool mworker)
{
	int err = 0;

	if (ncfgs && !mworker) {
		ha_alert("Can't use a 'program' section without master worker mode.\n");
		return 1;
	}
	for (int i = 0; i < ncfgs; i++)
		if (!cfgs[i].argv) {
			ha_alert("parsing [%s:%d] : 'program' section '%s' has no 'command'.\n",
				 cfgs[i].file, cfgs[i].line, cfgs[i].name);
			err++;
		}
	return err;
}

/* ---- runtime (master) ---- */

const struct program_proc *program_procs(int *n)
{
	*n = nprocs;
	return procs;
}

static struct program_proc *prg_find_old(const char *name)
{
	for (int i = 0; i < nprocs; i++)
		if (!procs[i].current && strcmp(procs[i].name, name) == 0)
			return &procs[i];
	return NULL;
}

/* In the child: ids, default signals, then exec. Never returns. */
static void __attribute__((noreturn)) prg_exec(const struct prg_cfg *c)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	setsid();
	if ((c->gid != (gid_t)-1 && (setgroups(0, NULL) < 0 || setgid(c->gid) < 0)) ||
	    (c->uid != (uid_t)-1 && setuid(c->uid) < 0)) {
		ha_alert("Cannot change the ids of program '%s': %s.\n", c->name, strerror(errno));
		_exit(1);
	}
	execvp(c->argv[0], c->argv);
	ha_alert("Cannot execute program '%s' (%s): %s.\n", c->name, c->argv[0], strerror(errno));
	_exit(1);
}

void program_start_all(void)
{
	/* what the previous image ran is old now, unless it is kept below */
	for (int i = 0; i < nprocs; i++)
		procs[i].current = false;
	for (int i = 0; i < ncfgs; i++) {
		struct program_proc *old = prg_find_old(cfgs[i].name);
		pid_t pid;

		if (old && !cfgs[i].start_on_reload) {
			old->current = true; /* kept across the reload */
			continue;
		}
		if (nprocs >= PRG_MAX)
			break;
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			ha_alert("Cannot fork program '%s': %s.\n", cfgs[i].name, strerror(errno));
			continue;
		}
		if (pid == 0)
			prg_exec(&cfgs[i]);
		procs[nprocs] = (struct program_proc){ pid, 0, true, (long long)time(NULL), "" };
		snprintf(procs[nprocs].name, sizeof(procs[nprocs].name), "%s", cfgs[i].name);
		nprocs++;
		ha_notice("New program '%s' (%d) forked\n", cfgs[i].name, (int)pid);
	}
}

void program_signal(int sig, bool old_only)
{
	for (int i = 0; i < nprocs; i++)
		if (!old_only || !procs[i].current)
			kill(procs[i].pid, sig);
}

void program_reloading(void)
{
	for (int i = 0; i < nprocs; i++)
		procs[i].reloads++;
}

bool program_reaped(pid_t pid, int code, const char *what)
{
	for (int i = 0; i < nprocs; i++) {
		if (procs[i].pid != pid)
			continue;
		if (procs[i].current)
			ha_alert("Current program '%s' (%d) exited with code %d (%s)\n",
				 procs[i].name, (int)pid, code, what);
		else
			ha_warning("Former program '%s' (%d) exited with code %d (%s)\n",
				   procs[i].name, (int)pid, code, what);
		procs[i] = procs[--nprocs];
		return true;
	}
	return false;
}

int program_count(void)
{
	return nprocs;
}

void program_export_env(void)
{
	char buf[PRG_MAX * (PRG_NAME_MAX + 48)] = "";
	size_t off = 0;

	for (int i = 0; i < nprocs; i++) {
		int n = snprintf(buf + off, sizeof(buf) - off, "%s%d:%d:%lld:%s", off ? "," : "",
				 (int)procs[i].pid, procs[i].reloads, procs[i].start,
				 procs[i].name);

		if (n < 0 || (size_t)n >= sizeof(buf) - off)
			break;
		off += (size_t)n;
	}
	setenv(PRG_ENV, buf, 1);
}

void program_import_env(void)
{
	const char *s = getenv(PRG_ENV);

	while (s && *s && nprocs < PRG_MAX) {
		struct program_proc *p = &procs[nprocs];
		int pid, n = 0;
		size_t len;

		if (sscanf(s, "%d:%d:%lld:%n", &pid, &p->reloads, &p->start, &n) != 3 || !n ||
		    pid <= 0)
			break;
		s += n;
		len = strcspn(s, ",");
		if (len >= sizeof(p->name))
			len = sizeof(p->name) - 1;
		memcpy(p->name, s, len);
		p->name[len] = '\0';
		p->pid = pid;
		p->current = true; /* until a new config says otherwise */
		nprocs++;
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
	}
	unsetenv(PRG_ENV);
}

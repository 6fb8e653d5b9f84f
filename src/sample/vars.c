/* Variables: the name registry (names become small ids at config time), the storage of
 * each scope (a list of pool entries; values up to VAR_INLINE bytes live in the entry,
 * longer ones in a buffer from the buffer pool), the var() fetch and the set-var /
 * unset-var converters. See vars.h for who owns which scope.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <base/buf.h>
#include <base/pool.h>
#include <conn/connection-t.h>
#include <conn/connection.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/stream-t.h>

#define VAR_INLINE 64

struct var {
	struct var *next;
	uint32_t id;
	uint32_t cap;		 /* bytes available at <buf> */
	struct sample_data data; /* strings point to <buf> */
	char *buf;		 /* inl, or a buffer from pool_buffer, or malloc (proc) */
	char inl[VAR_INLINE];
};

DECLARE_POOL(pool_var, "var", sizeof(struct var))

static const char *const scope_names[VS_SCOPES] = {
	[VS_PROC] = "proc", [VS_SESS] = "sess", [VS_TXN] = "txn",
	[VS_REQ] = "req",   [VS_RES] = "res",	[VS_CHECK] = "check",
};

uint32_t vars_max_size[VS_SCOPES];

/* Name registry: written at config time, and at run time by "set var" on the CLI thread
 * only. Readers on any thread load nb_names (acquire) then names: the array never moves
 * under them, a full one is copied and the old one kept until exit (graveyard). */
static char **names;
static uint32_t nb_names, names_cap;
static char ***names_graveyard; /* old arrays, freed by vars_deinit() */
static uint32_t nb_graveyard;

/* proc scope */
static struct vars proc_vars;
static pthread_rwlock_t proc_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static int scope_of(const char *s, size_t len)
{
	for (int i = 0; i < VS_SCOPES; i++)
		if (strlen(scope_names[i]) == len && !memcmp(scope_names[i], s, len))
			return i;
	return -1;
}

static int name_find(const char *s, size_t len)
{
	uint32_t n = HA_ATOMIC_LOAD(&nb_names);
	char **arr = HA_ATOMIC_LOAD(&names);

	for (uint32_t i = 0; i < n; i++)
		if (strlen(arr[i]) == len && !memcmp(arr[i], s, len))
			return (int)i;
	return -1;
}

/* Appends a name (the one writer). Returns its id, or -1 when out of memory. */
static int name_add(const char *name, size_t nlen)
{
	uint32_t cap = names_cap ? names_cap * 2 : 16;
	char **n, ***g, *dup = strndup(name, nlen);

	if (!dup)
		return -1;
	if (nb_names == names_cap) {
		n = malloc(cap * sizeof(*n));
		g = realloc(names_graveyard, (nb_graveyard + 1) * sizeof(*g));
		if (g)
			names_graveyard = g;
		if (!n || !g) {
			free(n);
			free(dup);
			return -1;
		}
		if (nb_names)
			memcpy(n, names, nb_names * sizeof(*n));
		if (names)
			names_graveyard[nb_graveyard++] = names;
		HA_ATOMIC_STORE(&names, n);
		names_cap = cap;
	}
	names[nb_names] = dup;
	HA_ATOMIC_STORE(&nb_names, nb_names + 1); /* release: the entry is there first */
	return (int)nb_names - 1;
}

static int split(const char *text, size_t len, int *scope, const char **name, size_t *nlen)
{
	const char *dot = memchr(text, '.', len);

	if (!dot)
		return -1;
	*scope = scope_of(text, (size_t)(dot - text));
	*name = dot + 1;
	*nlen = len - (size_t)(dot + 1 - text);
	return *scope < 0 || !*nlen ? -1 : 0;
}

int vars_parse_desc(const char *text, struct var_desc *d, char *err, size_t errsz)
{
	const char *name;
	size_t nlen;
	int scope, id;

	if (split(text, strlen(text), &scope, &name, &nlen) < 0) {
		snprintf(err, errsz,
			 "invalid variable name '%s'. A variable name must be "
			 "prefixed by its scope: 'proc', 'sess', 'txn', 'req', 'res' or 'check'",
			 text);
		return -1;
	}
	for (size_t i = 0; i < nlen; i++) {
		char c = name[i];

		if (!(c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9'))) {
			snprintf(err, errsz, "invalid character '%c' in variable name '%s'", c,
				 text);
			return -1;
		}
	}
	/* names are added at run time too (Lua's set_var, the CLI), from any thread: one
	 * writer at a time; readers see complete entries (name_add publishes last) */
	pthread_mutex_lock(&names_lock);
	id = name_find(name, nlen);
	if (id < 0)
		id = name_add(name, nlen);
	pthread_mutex_unlock(&names_lock);
	if (id < 0) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	d->scope = (uint8_t)scope;
	d->id = (uint32_t)id;
	return 0;
}

int vars_lookup_desc(const char *text, size_t len, struct var_desc *d)
{
	const char *name;
	size_t nlen;
	int scope, id;

	if (split(text, len, &scope, &name, &nlen) < 0 || (id = name_find(name, nlen)) < 0)
		return -1;
	d->scope = (uint8_t)scope;
	d->id = (uint32_t)id;
	return 0;
}

const char *vars_name(const struct var_desc *d)
{
	static __thread char buf[128];

	uint32_t n = HA_ATOMIC_LOAD(&nb_names);
	char **arr = HA_ATOMIC_LOAD(&names);

	snprintf(buf, sizeof(buf), "%s.%s", scope_names[d->scope], d->id < n ? arr[d->id] : "?");
	return buf;
}

/* The variables of the check being evaluated on this thread ([0] check.*, [1] sess.*),
 * set by the check runtime around each evaluation (tcpcheck_vars.c), else NULL: a
 * per-thread pointer keeps struct smp_ctx and the request path unchanged. */
__thread struct vars *vars_check_cur;

/* The storage of <scope> where <ctx> runs, or NULL when there is none here. */
static struct vars *vars_of(const struct smp_ctx *ctx, int scope)
{
	switch (scope) {
	case VS_PROC:
		return &proc_vars;
	case VS_SESS: /* a check's run is its session, as in 2.6 */
		return ctx->conn ? &ctx->conn->vars : vars_check_cur ? &vars_check_cur[1] : NULL;
	case VS_TXN:
		return ctx->strm ? &ctx->strm->vars_txn : NULL;
	case VS_REQ:
		return ctx->strm ? &ctx->strm->vars_req : NULL;
	case VS_RES:
		return ctx->strm ? &ctx->strm->vars_res : NULL;
	case VS_CHECK:
		return vars_check_cur; /* [0]: see struct check's vars */
	}
	return NULL;
}

static struct var *var_find(struct vars *v, uint32_t id)
{
	for (struct var *e = v->head; e; e = e->next)
		if (e->id == id)
			return e;
	return NULL;
}

static void var_release_buf(struct var *e, bool proc)
{
	if (e->buf == e->inl || !e->buf)
		return;
	if (proc)
		free(e->buf);
	else
		pool_free(&pool_buffer, e->buf);
	e->buf = e->inl;
	e->cap = VAR_INLINE;
}

static void var_free(struct var *e, bool proc)
{
	var_release_buf(e, proc);
	if (proc)
		free(e);
	else
		pool_free(&pool_var, e);
}

/* Makes room for <len> bytes of value in <e>; 0 or -1. */
static int var_reserve(struct var *e, size_t len, bool proc)
{
	char *b;

	if (len <= e->cap)
		return 0;
	var_release_buf(e, proc);
	if (len <= VAR_INLINE)
		return 0;
	if (proc)
		b = malloc(len);
	else
		b = len <= global_bufsize ? pool_alloc(&pool_buffer) : NULL;
	if (!b)
		return -1;
	e->buf = b;
	e->cap = proc ? (uint32_t)len : global_bufsize;
	return 0;
}

static int __vars_set(struct vars *v, int scope, uint32_t id, const struct sample *smp)
{
	bool proc = scope == VS_PROC;
	struct var *e = var_find(v, id);
	size_t len = 0, old = 0;
	bool is_str = smp->data.type == SMP_T_STR || smp->data.type == SMP_T_BIN ||
		      smp->data.type == SMP_T_METH;

	if (is_str)
		len = smp->data.u.str.len;
	if (e &&
	    (e->data.type == SMP_T_STR || e->data.type == SMP_T_BIN || e->data.type == SMP_T_METH))
		old = e->data.u.str.len;
	if (vars_max_size[scope] && v->size - old + len > vars_max_size[scope])
		return 0;
	if (!e) {
		e = proc ? malloc(sizeof(*e)) : pool_alloc(&pool_var);
		if (!e)
			return 0;
		e->id = id;
		e->buf = e->inl;
		e->cap = VAR_INLINE;
		e->data.type = SMP_T_ANY;
		e->next = v->head;
		v->head = e;
	}
	if (var_reserve(e, len, proc) < 0) {
		e->data.type = SMP_T_ANY;
		e->data.u.str.len = 0;
		return 0;
	}
	e->data = smp->data;
	if (is_str) {
		memmove(e->buf, smp->data.u.str.ptr, len);
		e->data.u.str.ptr = e->buf;
	}
	v->size = v->size - old + len;
	return 1;
}

int vars_set(const struct smp_ctx *ctx, const struct var_desc *d, const struct sample *smp)
{
	struct vars *v = vars_of(ctx, d->scope);
	int ret;

	if (!v)
		return 0;
	if (d->scope != VS_PROC)
		return __vars_set(v, d->scope, d->id, smp);
	pthread_rwlock_wrlock(&proc_lock);
	ret = __vars_set(v, d->scope, d->id, smp);
	pthread_rwlock_unlock(&proc_lock);
	return ret;
}

int vars_get(const struct smp_ctx *ctx, const struct var_desc *d, struct sample *smp)
{
	struct vars *v = vars_of(ctx, d->scope);
	struct var *e;
	char *t;

	if (!v)
		return 0;
	if (d->scope != VS_PROC) {
		e = var_find(v, d->id);
		if (!e || e->data.type == SMP_T_ANY)
			return 0;
		smp->data = e->data;
		smp->flags |= SMP_F_CONST;
		return 1;
	}
	/* another thread may change it: take a copy under the lock */
	pthread_rwlock_rdlock(&proc_lock);
	e = var_find(v, d->id);
	if (!e || e->data.type == SMP_T_ANY) {
		pthread_rwlock_unlock(&proc_lock);
		return 0;
	}
	smp->data = e->data;
	if (e->data.type == SMP_T_STR || e->data.type == SMP_T_BIN || e->data.type == SMP_T_METH) {
		t = smp_trash();
		if (!t || e->data.u.str.len > smp_trash_size()) {
			pthread_rwlock_unlock(&proc_lock);
			return 0;
		}
		memcpy(t, e->data.u.str.ptr, e->data.u.str.len);
		smp->data.u.str.ptr = t;
	}
	pthread_rwlock_unlock(&proc_lock);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

static void __vars_unset(struct vars *v, uint32_t id, bool proc)
{
	for (struct var **pe = &v->head; *pe; pe = &(*pe)->next) {
		struct var *e = *pe;

		if (e->id != id)
			continue;
		if (e->data.type == SMP_T_STR || e->data.type == SMP_T_BIN ||
		    e->data.type == SMP_T_METH)
			v->size -= (uint32_t)e->data.u.str.len;
		*pe = e->next;
		var_free(e, proc);
		return;
	}
}

void vars_unset(const struct smp_ctx *ctx, const struct var_desc *d)
{
	struct vars *v = vars_of(ctx, d->scope);

	if (!v)
		return;
	if (d->scope != VS_PROC)
		return __vars_unset(v, d->id, false);
	pthread_rwlock_wrlock(&proc_lock);
	__vars_unset(v, d->id, true);
	pthread_rwlock_unlock(&proc_lock);
}

void vars_prune(struct vars *v)
{
	while (v->head) {
		struct var *e = v->head;

		v->head = e->next;
		var_free(e, v == &proc_vars);
	}
	v->size = 0;
}

/* ---- set-var conditions ---- */

static const struct {
	const char *name;
	uint32_t bit;
} var_conds[] = {
	{ "ifexists", VARCOND_IFEXISTS }, { "ifnotexists", VARCOND_IFNOTEXISTS },
	{ "ifempty", VARCOND_IFEMPTY },	  { "ifnotempty", VARCOND_IFNOTEMPTY },
	{ "ifset", VARCOND_IFSET },	  { "ifnotset", VARCOND_IFNOTSET },
	{ "ifgt", VARCOND_IFGT },	  { "iflt", VARCOND_IFLT },
};

uint32_t vars_cond_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(var_conds) / sizeof(var_conds[0]); i++)
		if (!strcmp(name, var_conds[i].name))
			return var_conds[i].bit;
	return 0;
}

static bool smp_is_str(const struct sample *smp)
{
	return smp->data.type == SMP_T_STR || smp->data.type == SMP_T_BIN ||
	       smp->data.type == SMP_T_METH;
}

bool vars_conds_hold(const struct smp_ctx *ctx, const struct var_desc *d, uint32_t conds,
		     const struct sample *in)
{
	struct sample cur = { .ctx = ctx };
	bool set, exists, empty;

	if (!conds)
		return true;
	set = vars_get(ctx, d, &cur);
	exists = set || d->scope == VS_PROC;
	empty = smp_is_str(in) && !in->data.u.str.len;
	if (((conds & VARCOND_IFEXISTS) && !exists) || ((conds & VARCOND_IFNOTEXISTS) && exists))
		return false;
	if (((conds & VARCOND_IFSET) && !set) || ((conds & VARCOND_IFNOTSET) && set))
		return false;
	if (((conds & VARCOND_IFEMPTY) && !empty) || ((conds & VARCOND_IFNOTEMPTY) && empty))
		return false;
	/* ifgt/iflt compare integers only; with anything else they hold */
	if (set && cur.data.type == SMP_T_SINT && in->data.type == SMP_T_SINT) {
		if ((conds & VARCOND_IFGT) && !(cur.data.u.sint > in->data.u.sint))
			return false;
		if ((conds & VARCOND_IFLT) && !(cur.data.u.sint < in->data.u.sint))
			return false;
	}
	return true;
}

void vars_deinit(void)
{
	vars_prune(&proc_vars);
	for (uint32_t i = 0; i < nb_names; i++)
		free(names[i]);
	free(names);
	names = NULL;
	nb_names = names_cap = 0;
	for (uint32_t i = 0; i < nb_graveyard; i++)
		free(names_graveyard[i]);
	free(names_graveyard);
	names_graveyard = NULL;
	nb_graveyard = 0;
}

/* ---- var() fetch, set-var / unset-var converters ---- */

/* var(scope.name[,default]): the default is a string */
static int smp_fetch_var(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	if (vars_get(smp->ctx, &args[0].data.var, smp))
		return 1;
	if (args[1].type != ARGT_STR)
		return 0;
	smp->data.type = SMP_T_STR;
	smp->data.u.str = args[1].data.str;
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* set-var(scope.name): stores the input, passes it on unchanged */
static int smp_conv_set_var(const struct arg *args, struct sample *smp, void *private)
{
	vars_set(smp->ctx, &args[0].data.var, smp);
	return 1;
}

static int smp_conv_unset_var(const struct arg *args, struct sample *smp, void *private)
{
	vars_unset(smp->ctx, &args[0].data.var);
	return 1;
}

static const struct sample_fetch vars_fetches[] = {
	{ "var", smp_fetch_var, 1, { ARGT_VAR, ARGT_STR }, NULL, SMP_T_ANY, SMP_USE_INTRN, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

static const struct sample_conv vars_convs[] = {
	{ "set-var", smp_conv_set_var, 1, { ARGT_VAR }, NULL, SMP_T_ANY, SMP_T_ANY, NULL },
	{ "unset-var", smp_conv_unset_var, 1, { ARGT_VAR }, NULL, SMP_T_ANY, SMP_T_ANY, NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

__attribute__((constructor)) static void vars_init(void)
{
	conn_vars_release = vars_prune;
}

SMP_REGISTER_FETCHES(vars_fetches)
SMP_REGISTER_CONVS(vars_convs)

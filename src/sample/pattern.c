/* Patterns: parsing per match method, pattern sets, pattern files, and matching. Exact
 * strings and prefixes are indexed in a strtree, networks in an iptree, so that a set of
 * 100,000 entries costs a lookup; the other methods scan the set in order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <base/atomic.h>
#include <base/parse.h>
#include <event/qsbr.h>
#include <sample/iptree.h>
#include <sample/pattern.h>
#include <sample/regex.h>
#include <sample/sample.h>
#include <sample/strtree.h>

#define PAT_LINE_MAX 65536 /* longest line of a pattern file */

static const char *const match_names[PAT_MATCH_NUM] = {
	[PAT_MATCH_FOUND] = "found", [PAT_MATCH_BOOL] = "bool", [PAT_MATCH_INT] = "int",
	[PAT_MATCH_IP] = "ip",	     [PAT_MATCH_BIN] = "bin",	[PAT_MATCH_LEN] = "len",
	[PAT_MATCH_STR] = "str",     [PAT_MATCH_BEG] = "beg",	[PAT_MATCH_SUB] = "sub",
	[PAT_MATCH_DIR] = "dir",     [PAT_MATCH_DOM] = "dom",	[PAT_MATCH_END] = "end",
	[PAT_MATCH_REG] = "reg",     [PAT_MATCH_REGM] = "regm",
};

int pat_match_by_name(const char *name)
{
	for (int i = 0; i < PAT_MATCH_NUM; i++)
		if (!strcmp(match_names[i], name))
			return i;
	return -1;
}

const char *pat_match_name(int match)
{
	return match >= 0 && match < PAT_MATCH_NUM ? match_names[match] : "?";
}

int pat_match_type(int match)
{
	switch (match) {
	case PAT_MATCH_FOUND:
		return SMP_T_ANY;
	case PAT_MATCH_BOOL:
		return SMP_T_BOOL;
	case PAT_MATCH_INT:
		return SMP_T_SINT;
	case PAT_MATCH_IP:
		return SMP_T_ADDR;
	case PAT_MATCH_BIN:
		return SMP_T_BIN;
	}
	return SMP_T_STR;
}

int pat_int_op_by_name(const char *w)
{
	static const char *const ops[] = { "", "eq", "ge", "gt", "le", "lt" };

	for (int i = 1; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
		if (!strcmp(w, ops[i]))
			return i;
	return PAT_OP_NONE;
}

void pat_set_init(struct pat_set *ps, int match, unsigned flags)
{
	memset(ps, 0, sizeof(*ps));
	ps->match = (uint8_t)match;
	ps->flags = (uint8_t)flags;
	ps->tail = &ps->head;
}

/* Frees what <p> owns for method <match>, and <p>. */
static void pat_free_match(int match, struct pattern *p)
{
	if (match == PAT_MATCH_REG || match == PAT_MATCH_REGM)
		regex_free(p->val.reg);
	else if (match >= PAT_MATCH_BIN && match <= PAT_MATCH_END && match != PAT_MATCH_LEN)
		free((char *)p->val.str.ptr);
	free(p);
}

void pat_free_one(struct pattern *p)
{
	pat_free_match(p->match, p);
}

void pat_set_free(struct pat_set *ps)
{
	struct pattern *p, *n;

	for (p = ps->head; p; p = n) {
		n = p->next;
		pat_free_match(ps->match, p);
	}
	strtree_free(ps->str);
	iptree_free(ps->ip);
	pat_set_init(ps, ps->match, ps->flags);
}

/* ---- parsing ---- */

/* A number at <t>; <dotver>: "MAJOR[.MINOR]" (each 0-65535) read as MAJOR * 65536 + MINOR,
 * as HAProxy reads SSL versions. Sets <*end> after it; false when there is none. */
static bool pat_parse_num(const char *t, bool dotver, long long *v, char **end)
{
	long long mi = 0;

	errno = 0;
	*v = strtoll(t, end, 10);
	if (*end == t || errno)
		return false;
	if (!dotver)
		return true;
	if (**end == '.') {
		t = *end + 1;
		mi = strtoll(t, end, 10);
		if (*end == t || errno || mi < 0 || mi > 65535)
			return false;
	}
	if (*v < 0 || *v > 65535)
		return false;
	*v = *v << 16 | mi;
	return true;
}

/* "N", "N:M", ":M", "N:" with an operator applied to a single value. */
static int pat_parse_range(const char *t, int op, bool dotver, struct pattern *p, char *err,
			   size_t errsz)
{
	const char *colon = strchr(t, ':');
	long long a = LLONG_MIN, b = LLONG_MAX;
	char *end;

	if (colon && op != PAT_OP_NONE && op != PAT_OP_EQ)
		goto bad;
	if (!colon || colon != t) {
		if (!pat_parse_num(t, dotver, &a, &end) || (colon ? end != colon : *end))
			goto bad;
	}
	if (colon && colon[1]) {
		if (!pat_parse_num(colon + 1, dotver, &b, &end) || *end)
			goto bad;
	} else if (!colon) {
		b = a;
	}
	switch (op) {
	case PAT_OP_GE:
		b = LLONG_MAX;
		break;
	case PAT_OP_GT:
		if (a == LLONG_MAX)
			goto bad;
		a++, b = LLONG_MAX;
		break;
	case PAT_OP_LE:
		a = LLONG_MIN;
		break;
	case PAT_OP_LT:
		if (b == LLONG_MIN)
			goto bad;
		b--, a = LLONG_MIN;
		break;
	}
	p->val.range.min = a;
	p->val.range.max = b;
	return 0;
bad:
	if (dotver)
		snprintf(err, errsz, "'%s' is not a dotted number", t);
	else
		snprintf(err, errsz, "'%s' is not a number nor a supported operator", t);
	return -1;
}

static int pat_parse_ip(const char *t, struct pattern *p, char *err, size_t errsz)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(t, '/');
	size_t alen = slash ? (size_t)(slash - t) : strlen(t);
	long bits;

	if (alen >= sizeof(buf))
		goto bad;
	memcpy(buf, t, alen);
	buf[alen] = 0;
	if (inet_pton(AF_INET, buf, &p->val.v4.addr) == 1) {
		p->flags = PAT_F_V4;
		if (!slash) {
			p->val.v4.mask.s_addr = 0xffffffff;
		} else if (strchr(slash + 1, '.')) {
			if (inet_pton(AF_INET, slash + 1, &p->val.v4.mask) != 1)
				goto bad;
		} else {
			if (parse_long(slash + 1, 0, 32, &bits) < 0)
				goto bad;
			p->val.v4.mask.s_addr = bits ? htonl(~0U << (32 - bits)) : 0;
		}
		p->val.v4.addr.s_addr &= p->val.v4.mask.s_addr;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, &p->val.v6.addr) == 1) {
		p->flags = PAT_F_V6;
		bits = 128;
		if (slash && parse_long(slash + 1, 0, 128, &bits) < 0)
			goto bad;
		p->val.v6.plen = (uint8_t)bits;
		for (int i = (int)bits; i < 128; i++)
			p->val.v6.addr.s6_addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
		return 0;
	}
	/* HAProxy resolves host names here at startup; only addresses are taken */
bad:
	snprintf(err, errsz, "'%s' is not a valid IPv4 or IPv6 address", t);
	return -1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int pat_parse_bin(const char *t, struct pattern *p, char *err, size_t errsz)
{
	size_t n = strlen(t);
	char *b;

	if (n % 2)
		goto bad;
	b = malloc(n / 2 + 1);
	if (!b) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval(t[i]), lo = hexval(t[i + 1]);

		if (hi < 0 || lo < 0) {
			free(b);
			goto bad;
		}
		b[i / 2] = (char)(hi << 4 | lo);
	}
	p->val.str = ist2(b, n / 2);
	return 0;
bad:
	snprintf(err, errsz, "'%s' is not a valid hex string", t);
	return -1;
}

/* Fills <p> from <t> for <ps>'s method; 0 or -1. */
static int pat_parse(struct pat_set *ps, const char *t, int op, struct pattern *p, char *err,
		     size_t errsz)
{
	char *s;

	switch (ps->match) {
	case PAT_MATCH_FOUND:
	case PAT_MATCH_BOOL:
		snprintf(err, errsz, "match method '%s' takes no pattern (got '%s')",
			 pat_match_name(ps->match), t);
		return -1;
	case PAT_MATCH_INT:
	case PAT_MATCH_LEN:
		return pat_parse_range(t, op,
				       ps->match == PAT_MATCH_INT && (ps->flags & PAT_SET_DOTVER),
				       p, err, errsz);
	case PAT_MATCH_IP:
		return pat_parse_ip(t, p, err, errsz);
	case PAT_MATCH_BIN:
		return pat_parse_bin(t, p, err, errsz);
	case PAT_MATCH_REG:
	case PAT_MATCH_REGM: {
		char rerr[256];

		p->val.reg = regex_comp(t, (ps->flags & PAT_SET_ICASE) ? REGEX_ICASE : 0, rerr,
					sizeof(rerr));
		if (!p->val.reg) {
			snprintf(err, errsz, "regex '%s' is invalid: %s", t, rerr);
			return -1;
		}
		return 0;
	}
	}
	s = strdup(t);
	if (!s) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	p->val.str = ist_str(s);
	return 0;
}

static bool pat_is_str_indexed(int match)
{
	return match == PAT_MATCH_STR || match == PAT_MATCH_BEG;
}

static int pat_v4_plen(const struct pattern *p)
{
	return __builtin_popcount(p->val.v4.mask.s_addr);
}

/* Where the tree keeps the first pattern with <p>'s key, NULL if none. */
static void **pat_tree_ref(struct pat_set *ps, const struct pattern *p)
{
	if (pat_is_str_indexed(ps->match))
		return ps->str ? strtree_data_ref(ps->str, p->val.str.ptr, p->val.str.len) : NULL;
	if (!ps->ip)
		return NULL;
	if (p->flags & PAT_F_V6)
		return iptree_data_ref6(ps->ip, &p->val.v6.addr, p->val.v6.plen);
	return iptree_data_ref4(ps->ip, p->val.v4.addr, pat_v4_plen(p));
}

/* Inserts <p>'s key into tree <t> (of the set's kind). 0 or -1. */
static int pat_tree_insert(struct pat_set *ps, void *t, struct pattern *p)
{
	if (pat_is_str_indexed(ps->match))
		return strtree_insert(t, p->val.str.ptr, p->val.str.len, p, p->idx);
	if (p->flags & PAT_F_V6)
		return iptree_insert6(t, &p->val.v6.addr, p->val.v6.plen, p, p->idx);
	return iptree_insert4(t, p->val.v4.addr, pat_v4_plen(p), p, p->idx);
}

static void pat_strtree_free(void *t)
{
	strtree_free(t);
}

static void pat_iptree_free(void *t)
{
	iptree_free(t);
}

/* Indexes <p> in the set's tree when the method has one; 0 or -1. A key already there
 * keeps its first pattern, <p> goes to the end of its chain of duplicates. With <live>
 * (readers running), a full tree is replaced by a larger copy published by a release store
 * and the old one is retired. */
static int pat_index(struct pat_set *ps, struct pattern *p, bool live)
{
	unsigned tflags = (ps->flags & PAT_SET_ICASE) ? STRTREE_ICASE : 0;
	bool str = pat_is_str_indexed(ps->match);
	void **ref, *t, *nt;
	struct pattern *q;

	if (!str && ps->match != PAT_MATCH_IP)
		return 0;
	if ((ref = pat_tree_ref(ps, p))) {
		for (q = *ref; q->dup; q = q->dup)
			;
		q->dup = p;
		return 0;
	}
	if (ps->match == PAT_MATCH_BEG)
		tflags |= STRTREE_PREFIX;
	t = str ? (void *)ps->str : (void *)ps->ip;
	if (!t) {
		t = str ? (void *)strtree_new(tflags) : (void *)iptree_new();
		if (!t || pat_tree_insert(ps, t, p) < 0)
			goto out_free_new;
		goto publish;
	}
	if (!live || (str ? strtree_has_room(t, p->val.str.len) : iptree_has_room(t)))
		return pat_tree_insert(ps, t, p);
	if (pat_retire_reserve(1) < 0)
		return -1;
	nt = str ? (void *)strtree_copy(t, p->val.str.len) : (void *)iptree_copy(t);
	if (!nt || pat_tree_insert(ps, nt, p) < 0) {
		t = nt;
		goto out_free_new;
	}
	pat_retire(t, str ? pat_strtree_free : pat_iptree_free);
	t = nt;
publish:
	if (str)
		HA_ATOMIC_STORE(&ps->str, (struct strtree *)t);
	else
		HA_ATOMIC_STORE(&ps->ip, (struct iptree *)t);
	return 0;
out_free_new:
	if (str)
		strtree_free(t);
	else
		iptree_free(t);
	return -1;
}

/* Parses, indexes and appends one pattern. */
static struct pattern *pat_set_add_one(struct pat_set *ps, const char *text, int op, void *value,
				       bool live, char *err, size_t errsz)
{
	struct pattern *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if (pat_parse(ps, text, op, p, err, errsz) < 0) {
		free(p);
		return NULL;
	}
	p->idx = ps->next_idx++;
	p->value = value;
	p->set = ps;
	p->match = ps->match;
	if (pat_index(ps, p, live) < 0) {
		pat_free_match(ps->match, p);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	ps->count++;
	p->pprev = ps->tail;
	HA_ATOMIC_STORE(ps->tail, p); /* release: <p> is complete before readers see it */
	ps->tail = &p->next;
	return p;
}

int pat_set_add(struct pat_set *ps, const char *text, int op, void *value, char *err, size_t errsz)
{
	return pat_set_add_one(ps, text, op, value, false, err, errsz) ? 0 : -1;
}

struct pattern *pat_set_add_ref(struct pat_set *ps, const char *text, int op, void *value,
				bool live, char *err, size_t errsz)
{
	return pat_set_add_one(ps, text, op, value, live, err, errsz);
}

void pat_set_del_live(struct pattern *p)
{
	struct pat_set *ps = p->set;
	struct pattern *q;
	void **ref = NULL;

	if (pat_is_str_indexed(ps->match) || ps->match == PAT_MATCH_IP)
		ref = pat_tree_ref(ps, p);
	if (ref && *ref == p && p->dup) {
		HA_ATOMIC_STORE(ref, (void *)p->dup);
	} else if (ref && *ref == p) {
		if (pat_is_str_indexed(ps->match))
			strtree_delete(ps->str, p->val.str.ptr, p->val.str.len);
		else if (p->flags & PAT_F_V6)
			iptree_delete6(ps->ip, &p->val.v6.addr, p->val.v6.plen);
		else
			iptree_delete4(ps->ip, p->val.v4.addr, pat_v4_plen(p));
	} else if (ref) {
		for (q = *ref; q && q->dup != p; q = q->dup)
			;
		if (q)
			q->dup = p->dup;
	}
	/* the list: readers on <p> still find their way on through p->next */
	HA_ATOMIC_STORE(p->pprev, p->next);
	if (p->next)
		p->next->pprev = p->pprev;
	else
		ps->tail = p->pprev;
	ps->count--;
}

/* ---- deferred frees ---- */

struct pat_retired {
	void *ptr;
	void (*fn)(void *);
};

struct pat_batch {
	struct pat_batch *next;
	struct qs_snap snap;
	struct pat_retired *items;
	size_t n, cap;
};

static struct pat_batch *pat_open;    /* retired since the last close */
static struct pat_batch *pat_waiting; /* closed, waiting for the threads */

int pat_retire_reserve(size_t n)
{
	struct pat_retired *it;
	size_t cap;

	if (!pat_open && !(pat_open = calloc(1, sizeof(*pat_open))))
		return -1;
	if (pat_open->n + n <= pat_open->cap)
		return 0;
	cap = pat_open->cap ? pat_open->cap : 16;
	while (cap < pat_open->n + n)
		cap *= 2;
	it = realloc(pat_open->items, cap * sizeof(*it));
	if (!it)
		return -1;
	pat_open->items = it;
	pat_open->cap = cap;
	return 0;
}

void pat_retire(void *ptr, void (*fn)(void *))
{
	BUG_ON(!pat_open || pat_open->n >= pat_open->cap);
	pat_open->items[pat_open->n].ptr = ptr;
	pat_open->items[pat_open->n++].fn = fn;
}

void pat_retire_close(void)
{
	if (!pat_open)
		return;
	if (!pat_open->n) {
		free(pat_open->items);
		free(pat_open);
		pat_open = NULL;
		return;
	}
	qs_snapshot(&pat_open->snap);
	pat_open->next = pat_waiting;
	pat_waiting = pat_open;
	pat_open = NULL;
}

static void pat_batch_free(struct pat_batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		b->items[i].fn(b->items[i].ptr);
	free(b->items);
	free(b);
}

void pat_reclaim(void)
{
	struct pat_batch **pb = &pat_waiting, *b;

	while ((b = *pb)) {
		if (!qs_passed(&b->snap)) {
			pb = &b->next;
			continue;
		}
		*pb = b->next;
		pat_batch_free(b);
	}
}

void pat_retire_flush(void)
{
	struct pat_batch *b;

	pat_retire_close();
	while ((b = pat_waiting)) {
		pat_waiting = b->next;
		pat_batch_free(b);
	}
}

/* Strips leading and trailing spaces and tabs and the end of line in place. */
static char *pat_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

int pat_read_lines(const char *path,
		   int (*fn)(char *line, int lineno, void *arg, char *err, size_t errsz), void *arg,
		   char *err, size_t errsz)
{
	FILE *f = fopen(path, "r");
	char *line, *t;
	int lineno = 0, added = 0;
	char perr[256];

	if (!f) {
		snprintf(err, errsz, "failed to open pattern file <%s>: %s", path, strerror(errno));
		return -1;
	}
	line = malloc(PAT_LINE_MAX);
	if (!line) {
		fclose(f);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	while (fgets(line, PAT_LINE_MAX, f)) {
		lineno++;
		t = pat_trim(line);
		if (!*t || *t == '#')
			continue;
		if (fn(t, lineno, arg, perr, sizeof(perr)) < 0) {
			snprintf(err, errsz, "%s:%d: %s", path, lineno, perr);
			added = -1;
			break;
		}
		added++;
	}
	free(line);
	fclose(f);
	return added;
}

static int pat_add_line(char *line, int lineno, void *arg, char *err, size_t errsz)
{
	return pat_set_add(arg, line, PAT_OP_NONE, NULL, err, errsz);
}

static int pat_add_key(char *line, int lineno, void *arg, char *err, size_t errsz)
{
	line[strcspn(line, " \t")] = 0;
	return pat_set_add(arg, line, PAT_OP_NONE, NULL, err, errsz);
}

int pat_set_load_file(struct pat_set *ps, const char *path, char *err, size_t errsz)
{
	return pat_read_lines(path, pat_add_line, ps, err, errsz);
}

int pat_set_load_map_keys(struct pat_set *ps, const char *path, char *err, size_t errsz)
{
	return pat_read_lines(path, pat_add_key, ps, err, errsz);
}

/* ---- matching ---- */

static bool mem_ieq(const char *a, const char *b, size_t n)
{
	return strncasecmp(a, b, n) == 0;
}

static bool pat_str_eq(const struct pat_set *ps, struct ist s, struct ist p, size_t off)
{
	if (ps->flags & PAT_SET_ICASE)
		return mem_ieq(s.ptr + off, p.ptr, p.len);
	return memcmp(s.ptr + off, p.ptr, p.len) == 0;
}

static bool pat_sub(const struct pat_set *ps, struct ist s, struct ist p)
{
	if (!p.len)
		return true;
	for (size_t i = 0; i + p.len <= s.len; i++)
		if (pat_str_eq(ps, s, p, i))
			return true;
	return false;
}

/* dir/dom: <p> appears in <s> delimited by <d> (or the ends) on both sides; the
 * pattern's own leading and trailing delimiters are ignored. */
static bool pat_word(const struct pat_set *ps, struct ist s, struct ist p, char d)
{
	while (p.len && *p.ptr == d)
		p.ptr++, p.len--;
	while (p.len && p.ptr[p.len - 1] == d)
		p.len--;
	if (!p.len)
		return false;
	for (size_t i = 0; i + p.len <= s.len; i++) {
		if (i && s.ptr[i - 1] != d)
			continue;
		if (i + p.len < s.len && s.ptr[i + p.len] != d)
			continue;
		if (pat_str_eq(ps, s, p, i))
			return true;
	}
	return false;
}

static struct pattern *pat_match_ip(const struct pat_set *ps, struct sample *smp)
{
	const struct iptree *ip = HA_ATOMIC_LOAD(&ps->ip);

	if (!ip)
		return NULL;
	if (smp->data.type == SMP_T_IPV4)
		return iptree_lookup4(ip, smp->data.u.ipv4);
	return iptree_lookup6(ip, &smp->data.u.ipv6);
}

/* One scanned pattern against the sample (already of the method's type). */
static bool pat_test(const struct pat_set *ps, const struct pattern *p, const struct sample *smp)
{
	struct ist s = smp->data.u.str, v = p->val.str;

	switch (ps->match) {
	case PAT_MATCH_INT:
		return smp->data.u.sint >= p->val.range.min && smp->data.u.sint <= p->val.range.max;
	case PAT_MATCH_LEN:
		return (long long)s.len >= p->val.range.min && (long long)s.len <= p->val.range.max;
	case PAT_MATCH_BIN:
		return s.len == v.len && !memcmp(s.ptr, v.ptr, v.len);
	case PAT_MATCH_STR:
		return s.len == v.len && pat_str_eq(ps, s, v, 0);
	case PAT_MATCH_BEG:
		return s.len >= v.len && pat_str_eq(ps, s, v, 0);
	case PAT_MATCH_END:
		return s.len >= v.len && pat_str_eq(ps, s, v, s.len - v.len);
	case PAT_MATCH_SUB:
		return pat_sub(ps, s, v);
	case PAT_MATCH_DIR:
		return pat_word(ps, s, v, '/');
	case PAT_MATCH_DOM:
		return pat_word(ps, s, v, '.');
	case PAT_MATCH_REG:
	case PAT_MATCH_REGM:
		return regex_exec(p->val.reg, s.ptr, s.len);
	}
	return false;
}

bool pat_test_one(const struct pat_set *ps, const struct pattern *p, const struct sample *smp)
{
	return pat_test(ps, p, smp);
}

struct pattern *pat_match(const struct pat_set *ps, struct sample *smp)
{
	static struct pattern found = { 0 };
	int type = pat_match_type(ps->match);
	const struct strtree *str;

	if (ps->match == PAT_MATCH_FOUND)
		return &found;
	if (!sample_cast(smp, type))
		return NULL;
	if (ps->match == PAT_MATCH_BOOL)
		return smp->data.u.sint ? &found : NULL;
	if (pat_is_str_indexed(ps->match)) {
		str = HA_ATOMIC_LOAD(&ps->str);
		if (!str)
			return NULL;
		if (ps->match == PAT_MATCH_STR)
			return strtree_lookup(str, smp->data.u.str.ptr, smp->data.u.str.len);
		return strtree_lookup_prefix(str, smp->data.u.str.ptr, smp->data.u.str.len);
	}
	if (ps->match == PAT_MATCH_IP)
		return pat_match_ip(ps, smp);
	for (struct pattern *p = HA_ATOMIC_LOAD(&ps->head); p; p = HA_ATOMIC_LOAD(&p->next))
		if (pat_test(ps, p, smp))
			return p;
	return NULL;
}

struct pattern *pat_match_regm(const struct pat_set *ps, struct sample *smp, struct regex_match *m,
			       int nmatch)
{
	if (!sample_cast(smp, SMP_T_STR))
		return NULL;
	for (struct pattern *p = HA_ATOMIC_LOAD(&ps->head); p; p = HA_ATOMIC_LOAD(&p->next))
		if (regex_exec_match(p->val.reg, smp->data.u.str.ptr, smp->data.u.str.len, m,
				     nmatch))
			return p;
	return NULL;
}

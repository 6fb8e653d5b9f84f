// FUZZ_SRCS: src/cfg/lexer.c src/cfg/cond.c
/* libFuzzer target for the configuration tokenizer (cfg_tokenize) and the condition
 * evaluator (cond_eval) run on the words it produces, with fixed facts and a fixed
 * environment. Checks the lexer's output invariants; crashes and sanitizer reports are
 * the findings.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cond.h>
#include <cfg/lexer.h>

static const char *fuzz_env(const char *name, void *arg)
{
	if (strcmp(name, "A") == 0)
		return "1";
	if (strcmp(name, "SP") == 0)
		return " a b  c ";
	if (strcmp(name, "E") == 0)
		return "";
	return NULL;
}

static bool fuzz_defined(const char *name)
{
	return fuzz_env(name, NULL) != NULL;
}

static bool fuzz_enabled(const char *name)
{
	return strcmp(name, "EPOLL") == 0;
}

static const struct cond_facts fuzz_facts = {
	.version = "3.2.0",
	.features = "EPOLL THREAD OPENSSL -LUA",
	.ssl_version = "3.0.19",
	.ssl_name = "OpenSSL",
	.defined = fuzz_defined,
	.enabled = fuzz_enabled,
};

/* A line the tokenizer accepted has no NUL byte before the end of what it scanned: the
 * scan stops only at a '#', CR or LF, so one of them must come before any NUL.
 */
static bool fuzz_nul_ok(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t i;

	if (!nul)
		return true;
	for (i = 0; data + i < nul; i++) {
		if (data[i] == '#' || data[i] == '\n' || data[i] == '\r')
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[8192];
	struct cfg_tokens tok;
	char err[256];
	size_t outsz;
	int i, r;

	/* the first byte picks the output size, to exercise overflow paths */
	if (size < 1)
		return 0;
	outsz = data[0] & 1 ? sizeof(out) : (size_t)data[0] % 64 + 1;
	data++;
	size--;
	r = cfg_tokenize((const char *)data, size, out, outsz, &tok, fuzz_env, NULL, err,
			 sizeof(err));
	if (tok.nargs < 0 || tok.nargs > 64 || tok.args[tok.nargs] != NULL)
		abort();
	for (i = 0; i < tok.nargs; i++) {
		if (tok.args[i] < out || tok.args[i] + strlen(tok.args[i]) >= out + outsz)
			abort();
	}
	if (r < 0) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		return 0;
	}
	if (!fuzz_nul_ok(data, size))
		abort();
	r = cond_eval(tok.args, tok.nargs, &fuzz_facts, err, sizeof(err));
	if (r < -1 || r > 1)
		abort();
	if (tok.nargs > 1)
		cond_eval(tok.args + 1, tok.nargs - 1, &fuzz_facts, err, sizeof(err));
	return 0;
}

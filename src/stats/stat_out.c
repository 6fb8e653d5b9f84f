/* Writers of the stats data model: a line of typed fields rendered as HAProxy's CSV,
 * typed ("F.iid.sid.pos.name.1:tags:type:value") or JSON output, with or without
 * descriptions, for "show stat" and "show info"; and the JSON schema of both. Pure: they
 * append to a caller's buffer and never allocate.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <stats/stats.h>

#define OUT_FULL ((size_t)-1)

/* Appends formatted text at <len> in <b> of <size>; OUT_FULL when it does not fit. */
static size_t out_fmt(char *b, size_t len, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t out_fmt(char *b, size_t len, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len == OUT_FULL || len >= size)
		return OUT_FULL;
	va_start(ap, fmt);
	n = vsnprintf(b + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - len)
		return OUT_FULL;
	return len + (size_t)n;
}

static size_t out_char(char *b, size_t len, size_t size, char c)
{
	if (len == OUT_FULL || len + 1 >= size)
		return OUT_FULL;
	b[len] = c;
	b[len + 1] = 0;
	return len + 1;
}

static const char *stat_type_name(uint8_t type)
{
	static const char *const names[] = { "empty", "s32", "u32", "s64", "u64", "str" };

	return type <= SF_STR ? names[type] : "empty";
}

/* A number or a string, unquoted. */
static size_t out_raw(char *b, size_t len, size_t size, const struct stat_field *f)
{
	switch (f->type) {
	case SF_S32:
		return out_fmt(b, len, size, "%" PRId32, f->u.s32);
	case SF_U32:
		return out_fmt(b, len, size, "%" PRIu32, f->u.u32);
	case SF_S64:
		return out_fmt(b, len, size, "%" PRId64, f->u.s64);
	case SF_U64:
		return out_fmt(b, len, size, "%" PRIu64, f->u.u64);
	case SF_STR:
		return out_fmt(b, len, size, "%s", f->u.str);
	default:
		return len;
	}
}

/* A string as a CSV cell: quoted, inner quotes doubled, when it holds a comma, a quote
 * or a line break. */
static size_t out_csv_str(char *b, size_t len, size_t size, const char *s)
{
	if (!strpbrk(s, ",\"\r\n"))
		return out_fmt(b, len, size, "%s", s);
	len = out_char(b, len, size, '"');
	for (; *s; s++) {
		if (*s == '"')
			len = out_char(b, len, size, '"');
		len = out_char(b, len, size, *s);
	}
	return out_char(b, len, size, '"');
}

size_t stat_out_str(char *b, size_t size, const char *s)
{
	return out_fmt(b, 0, size, "%s", s);
}

size_t stat_out_value(char *b, size_t len, size_t size, const struct stat_field *f)
{
	if (f->type == SF_STR)
		return out_csv_str(b, len, size, f->u.str);
	return out_raw(b, len, size, f);
}

size_t stat_out_csv_header(char *b, size_t len, size_t size)
{
	len = out_fmt(b, len, size, "# ");
	for (int i = 0; i < ST_NCOLS; i++)
		len = out_fmt(b, len, size, "%s,", stat_cols[i].name);
	return out_fmt(b, len, size, "-,\n");
}

size_t stat_out_csv_line(char *b, size_t len, size_t size, const struct stat_line *l)
{
	for (int i = 0; i < ST_NCOLS; i++) {
		len = stat_out_value(b, len, size, &l->f[i]);
		len = out_char(b, len, size, ',');
	}
	return out_fmt(b, len, size, "-,\n");
}

static char stat_obj_letter(enum stat_obj obj)
{
	static const char letters[] = "FBSL";

	return obj <= STAT_OBJ_LI ? letters[obj] : '?';
}

/* ':"desc"\n' or '\n'. */
static size_t out_desc_eol(char *b, size_t len, size_t size, const char *desc, bool with)
{
	if (with)
		len = out_fmt(b, len, size, ":\"%s\"", desc);
	return out_char(b, len, size, '\n');
}

size_t stat_out_typed_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			    bool desc)
{
	const struct stat_field *f = &l->f[i];

	if (f->type == SF_EMPTY)
		return len;
	len = out_fmt(b, len, size, "%c.%d.%d.%d.%s.1:%.3s:%s:", stat_obj_letter(l->obj), l->iid,
		      l->sid, i, stat_cols[i].name, f->tags, stat_type_name(f->type));
	len = out_raw(b, len, size, f);
	return out_desc_eol(b, len, size, stat_cols[i].desc, desc);
}

/* A JSON string body: quotes, backslashes and control characters escaped. */
static size_t out_json_str(char *b, size_t len, size_t size, const char *s)
{
	len = out_char(b, len, size, '"');
	for (; *s && len != OUT_FULL; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			len = out_fmt(b, len, size, "\\%c", c);
		else if (c < 0x20)
			len = out_fmt(b, len, size, "\\u%04x", c);
		else
			len = out_char(b, len, size, (char)c);
	}
	return out_char(b, len, size, '"');
}

static const char *tag_word(const char *letters, const char *const *words, char c)
{
	const char *p = c ? strchr(letters, c) : NULL;

	return p ? words[p - letters] : "Unknown";
}

/* "tags":{...},"value":{...}} closing the field's object. */
static size_t out_json_tail(char *b, size_t len, size_t size, const struct stat_field *f)
{
	static const char *const origins[] = { "Metric", "Status", "Key", "Config", "Product" };
	static const char *const natures[] = { "Age",	"Avg",	  "Counter", "Duration",
					       "Gauge", "Limit",  "Max",     "Min",
					       "Name",	"Output", "Rate",    "Time" };
	static const char *const scopes[] = { "Process", "Service", "System", "Cluster" };

	len = out_fmt(b, len, size,
		      "\"processNum\":1,\"tags\":{\"origin\":\"%s\",\"nature\":\"%s\","
		      "\"scope\":\"%s\"},\"value\":{\"type\":\"%s\",\"value\":",
		      tag_word("MSKCP", origins, f->tags[0]),
		      tag_word("AaCDGLMmNORT", natures, f->tags[1]),
		      tag_word("PSsC", scopes, f->tags[2]), stat_type_name(f->type));
	if (f->type == SF_STR)
		len = out_json_str(b, len, size, f->u.str);
	else
		len = out_raw(b, len, size, f);
	return out_fmt(b, len, size, "}}");
}

size_t stat_out_json_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			   bool first)
{
	static const char *const objs[] = { "Frontend", "Backend", "Server", "Listener" };
	const struct stat_field *f = &l->f[i];

	if (f->type == SF_EMPTY)
		return len;
	if (!first)
		len = out_char(b, len, size, ',');
	len = out_fmt(b, len, size,
		      "{\"objType\":\"%s\",\"proxyId\":%d,\"id\":%d,\"field\":{\"pos\":%d,"
		      "\"name\":\"%s\"},",
		      l->obj <= STAT_OBJ_LI ? objs[l->obj] : "Unknown", l->iid, l->sid, i,
		      stat_cols[i].name);
	return out_json_tail(b, len, size, f);
}

size_t info_out_plain_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			    bool desc)
{
	const struct stat_field *f = &l->f[i];

	if (f->type == SF_EMPTY)
		return len;
	len = out_fmt(b, len, size, "%s: ", info_fields[i].name);
	len = out_raw(b, len, size, f);
	return out_desc_eol(b, len, size, info_fields[i].desc, desc);
}

size_t info_out_typed_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			    bool desc)
{
	const struct stat_field *f = &l->f[i];

	if (f->type == SF_EMPTY)
		return len;
	len = out_fmt(b, len, size, "%d.%s.1:%.3s:%s:", i, info_fields[i].name, f->tags,
		      stat_type_name(f->type));
	len = out_raw(b, len, size, f);
	return out_desc_eol(b, len, size, info_fields[i].desc, desc);
}

size_t info_out_json_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			   bool first)
{
	const struct stat_field *f = &l->f[i];

	if (f->type == SF_EMPTY)
		return len;
	if (!first)
		len = out_char(b, len, size, ',');
	len = out_fmt(b, len, size, "{\"field\":{\"pos\":%d,\"name\":\"%s\"},", i,
		      info_fields[i].name);
	return out_json_tail(b, len, size, f);
}

/* "show schema json": the JSON schema of the typed JSON outputs, as HAProxy 2.6 prints it. */
/* clang-format off */
const char stat_json_schema[] =
	"{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"oneOf\":[{\"title\":\"Info\","
	"\"type\":\"array\",\"items\":{\"title\":\"InfoItem\",\"type\":\"object\",\"properties\":"
	"{\"field\":{\"$ref\":\"#/definitions/field\"},\"processNum\":{\"$ref\":\"#/definitions/p"
	"rocessNum\"},\"tags\":{\"$ref\":\"#/definitions/tags\"},\"value\":{\"$ref\":\"#/definiti"
	"ons/typedValue\"}},\"required\":[\"field\",\"processNum\",\"tags\",\"value\"]}},{\"title"
	"\":\"Stat\",\"type\":\"array\",\"items\":{\"title\":\"InfoItem\",\"type\":\"object\",\"p"
	"roperties\":{\"objType\":{\"enum\":[\"Frontend\",\"Backend\",\"Listener\",\"Server\",\"U"
	"nknown\"]},\"proxyId\":{\"type\":\"integer\",\"minimum\":0},\"id\":{\"type\":\"integer\""
	",\"minimum\":0},\"field\":{\"$ref\":\"#/definitions/field\"},\"processNum\":{\"$ref\":\""
	"#/definitions/processNum\"},\"tags\":{\"$ref\":\"#/definitions/tags\"},\"typedValue\":{\""
	"$ref\":\"#/definitions/typedValue\"}},\"required\":[\"objType\",\"proxyId\",\"id\",\"fie"
	"ld\",\"processNum\",\"tags\",\"value\"]}},{\"title\":\"Error\",\"type\":\"object\",\"pro"
	"perties\":{\"errorStr\":{\"type\":\"string\"}},\"required\":[\"errorStr\"]}],\"definitio"
	"ns\":{\"field\":{\"type\":\"object\",\"pos\":{\"type\":\"integer\",\"minimum\":0},\"name"
	"\":{\"type\":\"string\"},\"required\":[\"pos\",\"name\"]},\"processNum\":{\"type\":\"int"
	"eger\",\"minimum\":1},\"tags\":{\"type\":\"object\",\"origin\":{\"type\":\"string\",\"en"
	"um\":[\"Metric\",\"Status\",\"Key\",\"Config\",\"Product\",\"Unknown\"]},\"nature\":{\"t"
	"ype\":\"string\",\"enum\":[\"Gauge\",\"Limit\",\"Min\",\"Max\",\"Rate\",\"Counter\",\"Du"
	"ration\",\"Age\",\"Time\",\"Name\",\"Output\",\"Avg\", \"Unknown\"]},\"scope\":{\"type\""
	":\"string\",\"enum\":[\"Cluster\",\"Process\",\"Service\",\"System\",\"Unknown\"]},\"req"
	"uired\":[\"origin\",\"nature\",\"scope\"]},\"typedValue\":{\"type\":\"object\",\"oneOf\""
	":[{\"$ref\":\"#/definitions/typedValue/definitions/s32Value\"},{\"$ref\":\"#/definitions"
	"/typedValue/definitions/s64Value\"},{\"$ref\":\"#/definitions/typedValue/definitions/u32"
	"Value\"},{\"$ref\":\"#/definitions/typedValue/definitions/u64Value\"},{\"$ref\":\"#/defi"
	"nitions/typedValue/definitions/strValue\"}],\"definitions\":{\"s32Value\":{\"properties\""
	":{\"type\":{\"type\":\"string\",\"enum\":[\"s32\"]},\"value\":{\"type\":\"integer\",\"mi"
	"nimum\":-2147483648,\"maximum\":2147483647}},\"required\":[\"type\",\"value\"]},\"s64Val"
	"ue\":{\"properties\":{\"type\":{\"type\":\"string\",\"enum\":[\"s64\"]},\"value\":{\"typ"
	"e\":\"integer\",\"minimum\":-9007199254740991,\"maximum\":9007199254740991}},\"required\""
	":[\"type\",\"value\"]},\"u32Value\":{\"properties\":{\"type\":{\"type\":\"string\",\"enu"
	"m\":[\"u32\"]},\"value\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":4294967295}},\""
	"required\":[\"type\",\"value\"]},\"u64Value\":{\"properties\":{\"type\":{\"type\":\"stri"
	"ng\",\"enum\":[\"u64\"]},\"value\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":90071"
	"99254740991}},\"required\":[\"type\",\"value\"]},\"strValue\":{\"properties\":{\"type\":"
	"{\"type\":\"string\",\"enum\":[\"str\"]},\"value\":{\"type\":\"string\"}},\"required\":["
	"\"type\",\"value\"]},\"unknownValue\":{\"properties\":{\"type\":{\"type\":\"integer\",\""
	"minimum\":0},\"value\":{\"type\":\"string\",\"enum\":[\"unknown\"]}},\"required\":[\"typ"
	"e\",\"value\"]}}}}}"
	"\n";
/* clang-format on */

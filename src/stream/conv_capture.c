/* The capture-req(ID) and capture-res(ID) converters: the input string goes, cut to the
 * slot's length, into slot ID of the stream's frontend ("declare capture request|response",
 * numbered with the "capture request|response header" lines), where the log line (%hr, %hs)
 * and capture.req.hdr(ID)/capture.res.hdr(ID) read it; the sample passes on unchanged.
 * As in HAProxy 2.6, a slot the frontend does not have makes the expression fail. They sit
 * in stream/ because the slots do (http_capture.c).
 */
#include <sample/sample.h>
#include <stream/http_capture.h>
#include <stream/stream.h>
#include <stream/tcp_rules.h>

static int conv_capture(const struct arg *args, struct sample *smp, void *private)
{
	struct stream *s = smp->ctx->strm;

	/* connection and session rules have no stream yet: nothing to capture into, as in
	 * HAProxy 2.6, where the expression fails there */
	if (!s || tcp_rules_standin(s) || !args || args[0].type != ARGT_SINT)
		return 0;
	return http_capture_store(s, private != NULL, args[0].data.sint, smp->data.u.str);
}

/* clang-format off */
static const struct sample_conv capture_convs[] = {
	{ "capture-req", conv_capture, 1, { ARGT_SINT }, NULL, SMP_T_STR, SMP_T_STR, NULL },
	{ "capture-res", conv_capture, 1, { ARGT_SINT }, NULL, SMP_T_STR, SMP_T_STR, (void *)1 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};
/* clang-format on */

SMP_REGISTER_CONVS(capture_convs)

/* The legacy "redirect" rules of a proxy (http_act_redir.c). Loop thread. */
#ifndef STREAM_HTTP_REDIR_H
#define STREAM_HTTP_REDIR_H

struct proxy;
struct stream;

/* Runs the "redirect" rules of <px> after its http-request rules: the first whose
 * condition holds answers. Returns 1 with the step result in *ret when one did, else 0. */
int http_redirect_legacy(struct stream *s, struct proxy *px, int *ret);

#endif

/* A helper of the sample unit tests: an expression evaluated to text. */
#ifndef TESTS_UNIT_SAMPLE_SMP_EVAL_H
#define TESTS_UNIT_SAMPLE_SMP_EVAL_H

/* Evaluates <expr> with no stream; returns its text, "<none>" when it produced no sample,
 * "<untextable>" when it has no text form, or "ERR: message" when it does not parse. The
 * result stays valid until the next call. */
const char *smp_eval_text(const char *expr);

#endif

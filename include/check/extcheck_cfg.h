/* Configuration of external checks (extcheck_cfg.c). Check-time functions return the
 * number of errors printed.
 */
#ifndef CHECK_EXTCHECK_CFG_H
#define CHECK_EXTCHECK_CFG_H

struct proxy;

/* A proxy with "option external-check": the global switch and a command are required;
 * warns without "insecure-fork-wanted". */
int extchk_cfg_check(struct proxy *px);
/* Frees the command and path <px> owns. */
void extchk_cfg_free(struct proxy *px);

#endif

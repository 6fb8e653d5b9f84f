/* The one buffer type: a linear area holding <data> bytes starting at offset <head>. */
#ifndef BASE_BUF_T_H
#define BASE_BUF_T_H

#include <stdint.h>

struct buf {
	char *area;     /* NULL when no storage is attached */
	uint32_t size;  /* capacity of <area> */
	uint32_t head;  /* offset of the first byte of data */
	uint32_t data;  /* bytes of data */
};

#endif

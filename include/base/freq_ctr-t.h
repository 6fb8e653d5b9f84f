/* Type of an event rate over a sliding second (functions in base/freq_ctr.h). */
#ifndef BASE_FREQ_CTR_T_H
#define BASE_FREQ_CTR_T_H

#include <stdint.h>

struct freq_ctr {
	uint64_t cur;             /* (second << 32) | events in that second (atomic) */
	uint32_t prev;            /* events in the second before it (atomic; written by the
				   * thread that moved <cur> to a new second) */
};

#endif

/* Storage of the buffer pool. Buffer operations are inline in include/base/buf.h. */
#include <base/buf.h>

uint32_t global_bufsize = 16384;
/* Objects of this pool are sized at startup from tune.bufsize (see buf_pool_setup()). */
DECLARE_POOL(pool_buffer, "buffer", 16384)

/* Sets the buffer size; only before any buffer is allocated. */
void buf_pool_setup(uint32_t bufsize)
{
	global_bufsize = bufsize;
	pool_resize(&pool_buffer, bufsize);
}

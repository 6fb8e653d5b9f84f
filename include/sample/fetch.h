/* What the fetches of src/sample need from the layers above them, as hooks those layers
 * set at startup (sample/ calls no stream/ function), and the helpers fetch files in
 * other layers share (stream/fetch_auth.c).
 */
#ifndef SAMPLE_FETCH_H
#define SAMPLE_FETCH_H

#include <base/ist.h>

struct stream;

/* The unique id of <s> (unique-id fetch), generated from the frontend's unique-id-format
 * on first use; a view whose ptr is NULL when there is none. Set by the module owning
 * unique-id-format; while NULL, unique-id is never found. Loop thread of the stream. */
extern struct ist (*smp_unique_id_hook)(struct stream *s);

#endif

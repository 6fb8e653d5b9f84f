/* Unit tests of the readers of the ClientHello extension bodies kept by
 * tune.ssl.capture-cipherlist-size (ssl/ssl_capture.c): supported_groups and
 * ec_point_formats, well-formed, truncated and odd-sized.
 */
#include <string.h>

#include <ssl/ssl_capture.h>
#include "../test.h"

TEST(ssl_capture_groups_reads_the_list)
{
	static const unsigned char body[] = { 0x00, 0x04, 0x00, 0x1d, 0x00, 0x17 };
	const unsigned char *out = NULL;

	CHECK_INT(ssl_capture_groups(body, sizeof(body), &out), 4);
	CHECK(out == body + 2);
}

TEST(ssl_capture_groups_refuses_bad_bodies)
{
	static const unsigned char odd[] = { 0x00, 0x03, 0x00, 0x1d, 0x00 };
	static const unsigned char cut[] = { 0x00, 0x06, 0x00, 0x1d };
	const unsigned char *out = NULL;

	CHECK_INT(ssl_capture_groups(odd, sizeof(odd), &out), -1);
	CHECK_INT(ssl_capture_groups(cut, sizeof(cut), &out), -1);
	CHECK_INT(ssl_capture_groups(cut, 1, &out), -1);
	CHECK_INT(ssl_capture_groups(cut, 0, &out), -1);
}

TEST(ssl_capture_ecformats)
{
	static const unsigned char body[] = { 0x03, 0x00, 0x01, 0x02 };
	const unsigned char *out = NULL;

	CHECK_INT(ssl_capture_ecformats(body, sizeof(body), &out), 3);
	CHECK(out == body + 1);
	CHECK_INT(ssl_capture_ecformats(body, 3, &out), -1);
	CHECK_INT(ssl_capture_ecformats(body, 0, &out), -1);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for xiw (module xiw_kunit): the parts of the core that only
 * the kernel can test, that is the environment the glue builds from kernel
 * services.
 *
 * - xiw_crc32c: CRC32c through the crypto API against RFC 3720 B.4.
 * - xiw_mpa_startup: the startup frame codec as linked into xiw.ko.
 *
 * conn_kunit.c holds the connection suites.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/string.h>

#include <xiw/core.h>
#include <xiw/mpa.h>

int xiw_crc32c_update(void *ctx, u32 *state, const void *buf,
		      xiw_size len);

static u32 crc_of(struct kunit *test, const u8 *buf, size_t len)
{
	u32 state = ~0u;

	KUNIT_ASSERT_EQ(test, xiw_crc32c_update(NULL, &state, buf, len), 0);
	return ~state;
}

static void xiw_crc32c_rfc3720(struct kunit *test)
{
	u8 buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, crc_of(test, buf, sizeof(buf)), 0x8a9136aaU);
	memset(buf, 0xff, sizeof(buf));
	KUNIT_EXPECT_EQ(test, crc_of(test, buf, sizeof(buf)), 0x62a8ab43U);
	for (i = 0; i < 32; i++)
		buf[i] = i;
	KUNIT_EXPECT_EQ(test, crc_of(test, buf, sizeof(buf)), 0x46dd794eU);
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	KUNIT_EXPECT_EQ(test, crc_of(test, buf, sizeof(buf)), 0x113fdb5cU);
}

static void xiw_crc32c_split(struct kunit *test)
{
	u8 buf[100];
	u32 state = ~0u;
	int i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7;
	KUNIT_ASSERT_EQ(test, xiw_crc32c_update(NULL, &state, buf, 37), 0);
	KUNIT_ASSERT_EQ(test, xiw_crc32c_update(NULL, &state, buf + 37, 63), 0);
	KUNIT_EXPECT_EQ(test, ~state, crc_of(test, buf, sizeof(buf)));
}

static void xiw_core_env_accepted(struct kunit *test)
{
	const struct xiw_env env = { .crc32c_update = xiw_crc32c_update };

	KUNIT_EXPECT_EQ(test, xiw_core_check_env(&env), 0);
}

static const u8 rep_key[XIW_MPA_KEY_LEN] = "MPA ID Rep Frame";

static void xiw_mpa_enhanced_reply(struct kunit *test)
{
	static const u8 pd[] = { 'u', 'l', 'p' };
	const struct xiw_mpa_frame f = {
		.type = XIW_MPA_REPLY,
		.flags = XIW_MPA_FLAG_C | XIW_MPA_FLAG_S,
		.rev = 2,
		.ctrl = XIW_MPA_CTRL_A | XIW_MPA_CTRL_D,
		.ird = 7,
		.ord = 9,
		.pd_len = sizeof(pd),
	};
	static const u8 tail[] = { 0x50, 0x02, 0x00, 0x07,
				   0x80, 0x07, 0x40, 0x09, 'u', 'l', 'p' };
	struct xiw_mpa_frame got;
	u8 wire[64];

	KUNIT_ASSERT_EQ(test, xiw_mpa_encode(&f, pd, wire, sizeof(wire)), 27);
	KUNIT_EXPECT_MEMEQ(test, wire, rep_key, XIW_MPA_KEY_LEN);
	KUNIT_EXPECT_MEMEQ(test, wire + XIW_MPA_KEY_LEN, tail, sizeof(tail));
	KUNIT_ASSERT_EQ(test, xiw_mpa_decode(wire, 27, XIW_MPA_REPLY, &got), 0);
	KUNIT_EXPECT_EQ(test, got.ctrl, f.ctrl);
	KUNIT_EXPECT_EQ(test, got.ird, 7);
	KUNIT_EXPECT_EQ(test, got.ord, 9);
	KUNIT_EXPECT_EQ(test, got.pd_off, 24);
	KUNIT_EXPECT_EQ(test, got.pd_len, 3);
}

static void xiw_mpa_bad_frames(struct kunit *test)
{
	struct xiw_mpa_frame got;
	u8 wire[XIW_MPA_HDR_LEN];

	memcpy(wire, rep_key, XIW_MPA_KEY_LEN);
	wire[16] = 0;
	wire[17] = 1;
	wire[18] = 0x02;	/* PD_Length 513 */
	wire[19] = 0x01;
	KUNIT_EXPECT_EQ(test, xiw_mpa_frame_len(wire, XIW_MPA_REPLY), -EBADMSG);
	KUNIT_EXPECT_EQ(test, xiw_mpa_frame_len(wire, XIW_MPA_REQUEST), -EPROTO);
	wire[17] = 3;
	KUNIT_EXPECT_EQ(test, xiw_mpa_frame_len(wire, XIW_MPA_REPLY),
			-EPROTONOSUPPORT);
	wire[17] = 1;
	wire[18] = 0;
	wire[19] = 0;
	KUNIT_EXPECT_EQ(test, xiw_mpa_decode(wire, sizeof(wire), XIW_MPA_REPLY,
					     &got), 0);
	wire[0] = 'm';
	KUNIT_EXPECT_EQ(test, xiw_mpa_decode(wire, sizeof(wire), XIW_MPA_REPLY,
					     &got), -EBADMSG);
}

static struct kunit_case xiw_crc32c_cases[] = {
	KUNIT_CASE(xiw_crc32c_rfc3720),
	KUNIT_CASE(xiw_crc32c_split),
	KUNIT_CASE(xiw_core_env_accepted),
	{}
};

static struct kunit_suite xiw_crc32c_suite = {
	.name = "xiw_crc32c",
	.test_cases = xiw_crc32c_cases,
};

static struct kunit_case xiw_mpa_startup_cases[] = {
	KUNIT_CASE(xiw_mpa_enhanced_reply),
	KUNIT_CASE(xiw_mpa_bad_frames),
	{}
};

static struct kunit_suite xiw_mpa_startup_suite = {
	.name = "xiw_mpa_startup",
	.test_cases = xiw_mpa_startup_cases,
};

kunit_test_suites(&xiw_crc32c_suite, &xiw_mpa_startup_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit suites for xiw");
MODULE_LICENSE("GPL");

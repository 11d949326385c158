// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the MPA connection as linked into xiw.ko, with the
 * crypto API computing every CRC:
 *
 * - xiw_mpa_handshake: two Startup Phase state machines back to back, in
 *   client-server mode and with each peer-to-peer RTR type.
 * - xiw_mpa_framing: FPDUs with and without Markers and CRC through the
 *   kernel's crc32c, a corrupted FPDU, a Marker that disagrees.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <xiw/mpa_conn.h>

int xiw_crc32c_update(void *ctx, u32 *state, const void *buf,
		      xiw_size len);

static const struct xiw_env kenv = { .crc32c_update = xiw_crc32c_update };

static const struct xiw_mpa_depths depths = {
	.ird = 4, .ord = 4, .max_ird = 16, .max_ord = 16,
};

static struct xiw_mpa_hs *hs_new(struct kunit *test,
				 const struct xiw_mpa_policy *p)
{
	void *mem = kunit_kzalloc(test, xiw_mpa_hs_size(), GFP_KERNEL);
	struct xiw_mpa_hs *hs;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	hs = xiw_mpa_hs_init(mem, xiw_mpa_hs_size(), p);
	KUNIT_ASSERT_PTR_EQ(test, (void *)hs, mem);
	return hs;
}

/* Runs Request, accept and Reply; returns the initiator's last step. */
static void handshake(struct kunit *test, struct xiw_mpa_hs *ini,
		      struct xiw_mpa_hs *res,
		      struct xiw_mpa_step *last)
{
	struct xiw_mpa_step s;
	static const u8 pd[] = "xiw";

	xiw_mpa_hs_connect(ini, &depths, pd, sizeof(pd), &s);
	KUNIT_ASSERT_GT(test, s.send_len, 20U);
	KUNIT_EXPECT_EQ(test, s.timer, XIW_MPA_TIMER_ARM);
	xiw_mpa_hs_listen(res, last);
	xiw_mpa_hs_receive(res, s.send, s.send_len, last);
	KUNIT_ASSERT_EQ(test, last->upcall, XIW_MPA_UP_REQUEST);
	KUNIT_EXPECT_EQ(test, last->consumed, s.send_len);
	xiw_mpa_hs_accept(res, &depths, pd, sizeof(pd), &s);
	KUNIT_ASSERT_GT(test, s.send_len, 20U);
	xiw_mpa_hs_receive(ini, s.send, s.send_len, last);
}

static void xiw_hs_client_server(struct kunit *test)
{
	const struct xiw_mpa_policy p = { .rev = 2, .rtr_types = 0xe, .reply_ms = 1000 };
	struct xiw_mpa_hs *ini = hs_new(test, &p), *res = hs_new(test, &p);
	struct xiw_mpa_agreed a;
	struct xiw_mpa_frame f;
	struct xiw_mpa_step s;
	const void *pd;

	handshake(test, ini, res, &s);
	KUNIT_EXPECT_EQ(test, s.upcall, XIW_MPA_UP_CONNECTED);
	KUNIT_EXPECT_EQ(test, xiw_mpa_hs_state(ini), XIW_MPA_HS_ESTABLISHED);
	KUNIT_EXPECT_TRUE(test, xiw_mpa_hs_may_send(ini));
	/* MPA fencing: the responder waits for the first FPDU. */
	KUNIT_EXPECT_FALSE(test, xiw_mpa_hs_may_send(res));
	xiw_mpa_hs_first_fpdu(res, 0, &s);
	KUNIT_EXPECT_TRUE(test, xiw_mpa_hs_may_send(res));
	xiw_mpa_hs_agreed(ini, &a);
	KUNIT_EXPECT_EQ(test, a.rev, 2);
	KUNIT_EXPECT_EQ(test, a.crc, 1);
	KUNIT_EXPECT_EQ(test, a.peer_ird, 4);
	xiw_mpa_hs_peer_frame(res, &f, &pd);
	KUNIT_EXPECT_EQ(test, f.pd_len, 4);
	KUNIT_EXPECT_MEMEQ(test, pd, "xiw", 4);
}

static void xiw_hs_rtr(struct kunit *test, u8 type)
{
	const struct xiw_mpa_policy p = {
		.rev = 2, .peer_to_peer = 1, .rtr_types = type,
		.reply_ms = 1000, .rtr_ms = 1000,
	};
	struct xiw_mpa_hs *ini = hs_new(test, &p), *res = hs_new(test, &p);
	struct xiw_mpa_step s;

	handshake(test, ini, res, &s);
	KUNIT_EXPECT_EQ(test, s.rtr, type);
	KUNIT_EXPECT_EQ(test, s.upcall, XIW_MPA_UP_NONE);
	KUNIT_EXPECT_EQ(test, xiw_mpa_hs_state(res), XIW_MPA_HS_AWAIT_RTR);
	xiw_mpa_hs_rtr_sent(ini, &s);
	KUNIT_EXPECT_EQ(test, s.upcall, XIW_MPA_UP_CONNECTED);
	xiw_mpa_hs_first_fpdu(res, type, &s);
	KUNIT_EXPECT_EQ(test, s.upcall, XIW_MPA_UP_CONNECTED);
}

static void xiw_hs_rtr_send(struct kunit *test)
{
	xiw_hs_rtr(test, XIW_MPA_CTRL_B);
}

static void xiw_hs_rtr_write(struct kunit *test)
{
	xiw_hs_rtr(test, XIW_MPA_CTRL_C);
}

static void xiw_hs_rtr_read(struct kunit *test)
{
	xiw_hs_rtr(test, XIW_MPA_CTRL_D);
}

static void xiw_hs_no_matching_rtr(struct kunit *test)
{
	const struct xiw_mpa_policy pi = {
		.rev = 2, .peer_to_peer = 1, .rtr_types = XIW_MPA_CTRL_B,
		.reply_ms = 1000,
	};
	const struct xiw_mpa_policy pr = {
		.rev = 2, .rtr_types = XIW_MPA_CTRL_D,
	};
	struct xiw_mpa_hs *ini = hs_new(test, &pi), *res = hs_new(test, &pr);
	struct xiw_mpa_step s;

	handshake(test, ini, res, &s);
	KUNIT_EXPECT_EQ(test, s.terminate, XIW_MPA_ERR_RTR);
	KUNIT_EXPECT_EQ(test, s.upcall, XIW_MPA_UP_FAILED);
	KUNIT_EXPECT_EQ(test, xiw_mpa_hs_error(ini), -EOPNOTSUPP);
}

static void xiw_hs_bad_policy(struct kunit *test)
{
	const struct xiw_mpa_policy p = { .rev = 3 };
	u8 mem[8];

	KUNIT_EXPECT_NULL(test, xiw_mpa_hs_init(mem, sizeof(mem), &p));
}

static struct kunit_case xiw_mpa_handshake_cases[] = {
	KUNIT_CASE(xiw_hs_client_server),
	KUNIT_CASE(xiw_hs_rtr_send),
	KUNIT_CASE(xiw_hs_rtr_write),
	KUNIT_CASE(xiw_hs_rtr_read),
	KUNIT_CASE(xiw_hs_no_matching_rtr),
	KUNIT_CASE(xiw_hs_bad_policy),
	{}
};

static struct kunit_suite xiw_mpa_handshake_suite = {
	.name = "xiw_mpa_handshake",
	.test_cases = xiw_mpa_handshake_cases,
};

/* ---- framing ----------------------------------------------------------- */

struct collect {
	u8 buf[4096];
	size_t len;
	int ulpdus;
	int open;
};

static int col_begin(void *ctx, xiw_u16 len)
{
	struct collect *c = ctx;

	c->open = 1;
	return 0;
}

static int col_data(void *ctx, const void *buf, xiw_size len)
{
	struct collect *c = ctx;

	if (c->len + len > sizeof(c->buf))
		return -ENOSPC;
	memcpy(c->buf + c->len, buf, len);
	c->len += len;
	return 0;
}

static int col_end(void *ctx)
{
	struct collect *c = ctx;

	c->open = 0;
	c->ulpdus++;
	return 0;
}

static const struct xiw_mpa_rx_sink col_ops = {
	.begin = col_begin, .data = col_data, .end = col_end,
};

/* Frames @n ULPDUs of @len bytes into @wire; returns the stream length. */
static size_t frame_stream(struct kunit *test, int markers, int crc,
			   const u8 *ulpdu, size_t len, int n, u8 *wire,
			   size_t room)
{
	void *mem = kunit_kzalloc(test, xiw_mpa_tx_size(), GFP_KERNEL);
	struct xiw_mpa_tx *tx;
	size_t at = 0;
	int i, rc;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	tx = xiw_mpa_tx_init(mem, &kenv, markers, crc);
	for (i = 0; i < n; i++) {
		rc = xiw_mpa_tx_encode(tx, ulpdu, len, wire + at, room - at);
		KUNIT_ASSERT_GT(test, rc, 0);
		at += rc;
	}
	return at;
}

static int parse_stream(struct kunit *test, int markers, int crc,
			const u8 *wire, size_t len, struct collect *c,
			struct xiw_mpa_rx **rxp)
{
	void *mem = kunit_kzalloc(test, xiw_mpa_rx_size(), GFP_KERNEL);
	struct xiw_mpa_rx *rx;
	size_t at;
	int rc = 0;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	rx = xiw_mpa_rx_init(mem, &kenv, markers, crc);
	/* In odd-sized pieces, as TCP may deliver them. */
	for (at = 0; at < len && !rc; at += 97)
		rc = xiw_mpa_rx_consume(rx, wire + at, min_t(size_t, 97, len - at),
					&col_ops, c);
	*rxp = rx;
	return rc;
}

static void xiw_framing_modes(struct kunit *test)
{
	u8 *ulpdu = kunit_kzalloc(test, 700, GFP_KERNEL);
	u8 *wire = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct collect *c;
	size_t len;
	struct xiw_mpa_rx *rx;
	int mode, i;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (i = 0; i < 700; i++)
		ulpdu[i] = i * 13;
	for (mode = 0; mode < 4; mode++) {
		c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c);
		len = frame_stream(test, mode & 1, mode & 2, ulpdu, 700, 3,
				   wire, 4096);
		/* 3 x (2 + 700 + 2 + 4), plus a Marker per 512 octets */
		KUNIT_EXPECT_EQ(test, len, (mode & 1) ? 2124 + 20 : 2124);
		KUNIT_ASSERT_EQ(test, parse_stream(test, mode & 1, mode & 2,
						   wire, len, c, &rx), 0);
		KUNIT_EXPECT_EQ(test, c->ulpdus, 3);
		KUNIT_ASSERT_EQ(test, c->len, 2100);
		KUNIT_EXPECT_MEMEQ(test, c->buf + 1400, ulpdu, 700);
	}
}

static void xiw_framing_crc_error(struct kunit *test)
{
	u8 ulpdu[64], wire[128];
	struct collect *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	size_t len;
	struct xiw_mpa_rx *rx;

	KUNIT_ASSERT_NOT_NULL(test, c);
	memset(ulpdu, 0x5a, sizeof(ulpdu));
	len = frame_stream(test, 0, 1, ulpdu, sizeof(ulpdu), 1, wire,
			   sizeof(wire));
	wire[10] ^= 1;
	KUNIT_EXPECT_EQ(test, parse_stream(test, 0, 1, wire, len, c, &rx),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, xiw_mpa_rx_error(rx), XIW_MPA_ERR_CRC);
	KUNIT_EXPECT_EQ(test, c->ulpdus, 0);
}

static void xiw_framing_marker_error(struct kunit *test)
{
	u8 *ulpdu = kunit_kzalloc(test, 1000, GFP_KERNEL);
	u8 *wire = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct collect *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	size_t len;
	struct xiw_mpa_rx *rx;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	KUNIT_ASSERT_NOT_NULL(test, c);
	len = frame_stream(test, 1, 0, ulpdu, 1000, 1, wire, 2048);
	wire[512 + 3] ^= 0x10;	/* FPDUPTR of the Marker at 512 */
	KUNIT_EXPECT_EQ(test, parse_stream(test, 1, 0, wire, len, c, &rx),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, xiw_mpa_rx_error(rx), XIW_MPA_ERR_MARKER);
}

static struct kunit_case xiw_mpa_framing_cases[] = {
	KUNIT_CASE(xiw_framing_modes),
	KUNIT_CASE(xiw_framing_crc_error),
	KUNIT_CASE(xiw_framing_marker_error),
	{}
};

static struct kunit_suite xiw_mpa_framing_suite = {
	.name = "xiw_mpa_framing",
	.test_cases = xiw_mpa_framing_cases,
};

kunit_test_suites(&xiw_mpa_handshake_suite, &xiw_mpa_framing_suite);

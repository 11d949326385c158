// SPDX-License-Identifier: GPL-2.0
// The C ABI of include/xiw/mpa_conn.h, as the glue and the KUnit suites
// use it: policy validation, a full handshake, framing through callbacks.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include <xiw/mpa_conn.h>

#include "../host_env.h"

namespace {

// A handshake in memory of its own; h is null if init refused the policy.
struct Hs {
  explicit Hs(const xiw_mpa_policy& p)
      : mem(xiw_mpa_hs_size() + 8), h(xiw_mpa_hs_init(mem.data(), mem.size(), &p)) {}
  Hs(const Hs&) = delete;
  Hs& operator=(const Hs&) = delete;
  std::vector<uint8_t> mem;
  xiw_mpa_hs* h;
};

TEST(MpaConnAbi, RejectsPoliciesOutOfRange) {
  xiw_mpa_policy p{};
  p.rev = 2;
  p.rtr_types = XIW_MPA_CTRL_C;
  const Hs good(p);
  EXPECT_EQ(static_cast<void*>(good.h), good.mem.data());
  using Edit = void (*)(xiw_mpa_policy&);
  const Edit edits[] = {
      [](xiw_mpa_policy& q) { q.rev = 0; },
      [](xiw_mpa_policy& q) { q.rev = 3; },
      [](xiw_mpa_policy& q) { q.crc = 3; },
      [](xiw_mpa_policy& q) { q.markers = 3; },
      [](xiw_mpa_policy& q) { q.rtr_types = 0x10; },
      [](xiw_mpa_policy& q) { q.rtr_types = 0; },  // RFC 6581 9.2: at least one
  };
  for (Edit bad : edits) {
    xiw_mpa_policy q = p;
    bad(q);
    EXPECT_EQ(Hs(q).h, nullptr);
  }
  std::vector<uint8_t> small(8);
  EXPECT_EQ(xiw_mpa_hs_init(small.data(), small.size(), &p), nullptr);
}

TEST(MpaConnAbi, PeerToPeerHandshakeThroughTheAbi) {
  xiw_mpa_policy p{};
  p.rev = 2;
  p.peer_to_peer = 1;
  p.rtr_types = XIW_MPA_CTRL_D;
  p.rtr_ms = 500;
  const Hs ini_mem(p), res_mem(p);
  xiw_mpa_hs* const ini = ini_mem.h;
  xiw_mpa_hs* const res = res_mem.h;
  ASSERT_NE(ini, nullptr);
  ASSERT_NE(res, nullptr);
  const xiw_mpa_depths d = {3, 5, 16, 16};
  xiw_mpa_step s, r;
  const char pd[] = "hello";
  xiw_mpa_hs_connect(ini, &d, pd, sizeof(pd), &s);
  EXPECT_EQ(s.timer, XIW_MPA_TIMER_CANCEL);  // reply_ms is 0: no timer
  xiw_mpa_hs_listen(res, &r);
  xiw_mpa_hs_receive(res, s.send, s.send_len, &r);
  ASSERT_EQ(r.upcall, XIW_MPA_UP_REQUEST);
  xiw_mpa_frame f;
  const void* got;
  xiw_mpa_hs_peer_frame(res, &f, &got);
  EXPECT_EQ(f.type, XIW_MPA_REQUEST);
  EXPECT_EQ(f.ird, 3);
  EXPECT_EQ(f.ord, 5);
  ASSERT_EQ(f.pd_len, sizeof(pd));
  EXPECT_EQ(std::memcmp(got, pd, sizeof(pd)), 0);
  xiw_mpa_hs_accept(res, &d, nullptr, 0, &r);
  EXPECT_EQ(r.timer, XIW_MPA_TIMER_ARM);
  EXPECT_EQ(r.timer_ms, 500u);
  xiw_mpa_hs_receive(ini, r.send, r.send_len, &s);
  EXPECT_EQ(s.rtr, XIW_MPA_CTRL_D);
  EXPECT_EQ(xiw_mpa_hs_state(ini), XIW_MPA_HS_RTR_PENDING);
  xiw_mpa_hs_rtr_sent(ini, &s);
  EXPECT_EQ(s.upcall, XIW_MPA_UP_CONNECTED);
  xiw_mpa_hs_first_fpdu(res, XIW_MPA_CTRL_D, &r);
  EXPECT_EQ(r.upcall, XIW_MPA_UP_CONNECTED);
  xiw_mpa_agreed a;
  xiw_mpa_hs_agreed(res, &a);
  EXPECT_EQ(a.peer_to_peer, 1);
  EXPECT_EQ(a.ord, 3);  // at most the initiator's IRD
  EXPECT_EQ(a.ird, 5);  // at least the initiator's ORD
  EXPECT_EQ(a.peer_ird, 3);
  EXPECT_TRUE(xiw_mpa_hs_may_send(res));
}

struct Sink {
  std::vector<uint8_t> data;
  int ends = 0;
};

TEST(MpaConnAbi, FramingThroughCallbacks) {
  std::vector<uint8_t> txm(xiw_mpa_tx_size()), rxm(xiw_mpa_rx_size());
  xiw_mpa_tx* const tx = xiw_mpa_tx_init(txm.data(), &xiw_test::host_env(), 1, 1);
  xiw_mpa_rx* const rx = xiw_mpa_rx_init(rxm.data(), &xiw_test::host_env(), 1, 1);
  std::vector<uint8_t> msg(1000, 0x33), wire(2000);
  const int n = xiw_mpa_tx_encode(tx, msg.data(), msg.size(), wire.data(), wire.size());
  ASSERT_EQ(n, 4 + 2 + 1000 + 2 + 4 + 4);
  EXPECT_EQ(xiw_mpa_tx_encode(tx, msg.data(), msg.size(), wire.data(), 10), -ENOSPC);
  const xiw_mpa_rx_sink ops = {
      [](void*, xiw_u16) { return 0; },
      [](void* ctx, const void* b, xiw_size len) {
        auto* s = static_cast<Sink*>(ctx);
        s->data.insert(s->data.end(), static_cast<const uint8_t*>(b), static_cast<const uint8_t*>(b) + len);
        return 0;
      },
      [](void* ctx) {
        static_cast<Sink*>(ctx)->ends++;
        return 0;
      },
  };
  Sink sink;
  EXPECT_EQ(xiw_mpa_rx_consume(rx, wire.data(), n, &ops, &sink), 0);
  EXPECT_EQ(sink.data, msg);
  EXPECT_EQ(sink.ends, 1);
  EXPECT_EQ(xiw_mpa_rx_error(rx), 0);
}

}  // namespace

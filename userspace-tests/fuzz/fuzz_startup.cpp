// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the MPA Startup Phase state machine fed an arbitrary
// peer. Input: role/policy(1) rtr(1) chunk(1) depths(4) peer octets...
#include <cstddef>
#include <cstdint>

#include "mpa/handshake.h"

namespace {

using namespace xiw::mpa;
using Upcall = Handshake::Upcall;

#define CHECK(x)                \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

void check_step(const Handshake& h, const Handshake::Step& s) {
  CHECK(s.send.size() <= kHeaderLen + kPrivateDataMax);
  if (s.upcall == Upcall::failed) CHECK(h.error() < 0);
  if (s.rtr) CHECK((s.rtr & (s.rtr - 1)) == 0 && (s.rtr & ~kRtrAll) == 0);
  if (s.terminate != MpaError::none)
    CHECK(s.terminate == MpaError::local_catastrophic || s.terminate == MpaError::insufficient_ird ||
          s.terminate == MpaError::no_matching_rtr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 7) return 0;
  Policy policy;
  const bool initiator = data[0] & 1;
  policy.rev = (data[0] & 2) ? 1 : 2;
  policy.crc = static_cast<CrcPolicy>((data[0] >> 2) % 3);
  policy.markers = static_cast<MarkerPolicy>((data[0] >> 4) % 3);
  policy.peer_to_peer = data[0] & 0x40;
  policy.reject_short_ird = data[0] & 0x80;
  policy.rtr_types = data[1] & kRtrAll ? data[1] & kRtrAll : kRtrWrite;
  const size_t chunk = data[2] ? data[2] : 600;
  const ReadDepths depths = {data[3], data[4], static_cast<u16>(data[5] | 1), static_cast<u16>(data[6] | 1)};
  data += 7;
  size -= 7;

  Handshake h(policy, Timeouts{1, 1, 1, 1});
  check_step(h, initiator ? h.connect(depths, {}) : h.listen());
  size_t at = 0;
  while (at < size &&
         (h.state() == Handshake::State::await_reply || h.state() == Handshake::State::await_request)) {
    const size_t n = size - at < chunk ? size - at : chunk;
    const Handshake::Step s = h.receive(kstd::Bytes(data + at, n));
    check_step(h, s);
    CHECK(s.consumed <= n);
    at += s.consumed;
    if (s.consumed < n) break;
  }
  if (h.state() == Handshake::State::await_ulp) {
    const StartupFrame& r = h.request();
    CHECK(r.wire_pd_length() <= kPrivateDataMax);
    const kstd::Bytes pd = r.private_data;
    const Handshake::Step s = (data[0] & 1) ? h.reject(pd) : h.accept(depths, pd);
    check_step(h, s);
    if (!s.send.empty()) {
      const auto back = decode(s.send, FrameType::reply);
      CHECK(back.ok());
    }
  }
  if (h.state() == Handshake::State::await_rtr) check_step(h, h.first_fpdu(size ? data[size - 1] & 0xf : 0));
  if (h.state() == Handshake::State::rtr_pending) check_step(h, h.rtr_sent());
  check_step(h, h.timeout());
  check_step(h, h.llp_closed());
  return 0;
}

// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: RFC 6581 negotiation with arbitrary enhanced data and
// flags on both frames. Every agreed value must obey section 9.
// Input: policy(2) req flags,rev,ctrl(3) req ird,ord(4) rep flags,rev,ctrl(3)
//        rep ird,ord(4) depths(8)
// The whole input is also read as an RFC 6581 section 7 SCTP session
// control message: what decodes re-encodes to the same message, and an
// Initiate is answered by the same negotiator with a message that encodes.
#include <cstddef>
#include <cstdint>

#include "mpa/negotiate.h"
#include "mpa/sctp_session.h"

namespace {

using namespace xiw::mpa;

#define CHECK(x)                \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

u16 be16(const uint8_t* p) { return static_cast<u16>(p[0] << 8 | p[1]); }

StartupFrame frame(FrameType type, const uint8_t* p) {
  // Through the wire codec, so the frame is one a peer could send.
  uint8_t wire[kHeaderLen + EnhancedData::kSize] = {};
  const u8* key = type == FrameType::request ? kRequestKey : kReplyKey;
  for (usize i = 0; i < kKeyLen; i++) wire[i] = key[i];
  wire[16] = p[0];
  wire[17] = 1 + (p[1] & 1);
  wire[19] = EnhancedData::kSize;
  wire[20] = p[3];
  wire[21] = p[4];
  wire[22] = p[5];
  wire[23] = p[6];
  (void)p[2];
  auto f = decode(kstd::Bytes(wire, sizeof(wire)), type);
  CHECK(f.ok());
  return f.value();
}

uint8_t sctp_buf[sctp::SessionControl::kHeaderLen + sctp::SessionControl::kPdLengthMax];

void session_control(const uint8_t* data, size_t size) {
  using sctp::SessionControl;
  const auto m = SessionControl::decode(kstd::Bytes(data, size));
  if (!m.ok()) return;
  const auto n = m.value().encode(kstd::MutableBytes(sctp_buf));
  CHECK(n.ok() && n.value() == size);
  const auto back = SessionControl::decode(kstd::Bytes(sctp_buf, n.value()));
  CHECK(back.ok() && back.value().code == m.value().code);
  CHECK(kstd::equal(back.value().private_data, m.value().private_data));
  CHECK(back.value().enhanced.ctrl == m.value().enhanced.ctrl &&
        back.value().enhanced.ird == m.value().enhanced.ird &&
        back.value().enhanced.ord == m.value().enhanced.ord);
  Policy policy;
  policy.reject_short_ird = true;
  const ReadDepths depths = {4, 4, 8, 8};
  const auto a = sctp::accept_initiate(policy, m.value(), depths, {});
  if (a.ok() || a.failure.action == Failure::Action::reject) {
    CHECK(a.value.message.encode(kstd::MutableBytes(sctp_buf)).ok());
    CHECK(a.value.message.is_enhanced() == m.value().is_enhanced());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  session_control(data, size);
  if (size < 2 + 7 + 7 + 8) return 0;
  Policy policy;
  policy.rev = (data[0] & 1) ? 1 : 2;
  policy.crc = static_cast<CrcPolicy>((data[0] >> 1) % 3);
  policy.markers = static_cast<MarkerPolicy>((data[0] >> 3) % 3);
  policy.peer_to_peer = data[0] & 0x20;
  policy.reject_short_ird = data[0] & 0x40;
  policy.rtr_types = (data[1] & kRtrAll) ? (data[1] & kRtrAll) : kRtrRead;
  const StartupFrame req = frame(FrameType::request, data + 2);
  const StartupFrame rep = frame(FrameType::reply, data + 9);
  const uint8_t* d = data + 16;
  const ReadDepths depths = {static_cast<u16>(be16(d) & 0x3fff), static_cast<u16>(be16(d + 2) & 0x3fff),
                             static_cast<u16>(be16(d + 4) & 0x3fff), static_cast<u16>(be16(d + 6) & 0x3fff)};

  // Responder side.
  StartupFrame reply;
  const Decision<Negotiated> r = accept_request(policy, req, depths, &reply, {});
  uint8_t buf[kHeaderLen + kPrivateDataMax];
  if (r.ok() || r.failure.action == Failure::Action::reject) {
    CHECK(encode(reply, kstd::MutableBytes(buf)).ok());
    CHECK(reply.is_enhanced() == (req.is_enhanced() && policy.rev >= 2));
  }
  if (r.ok() && r.value.enhanced) {
    const EnhancedData& in = req.enhanced;
    const Negotiated& n = r.value;
    if (in.ird != kIrdOrdMax) CHECK(n.ord <= in.ird && reply.enhanced.ord == n.ord);
    if (in.ird == kIrdOrdMax) CHECK(reply.enhanced.ord == kIrdOrdMax);
    if (in.ord == kIrdOrdMax) CHECK(reply.enhanced.ird == kIrdOrdMax);
    CHECK(n.ird <= (depths.max_ird > 1 ? depths.max_ird : 1) || in.ord == kIrdOrdMax);
    CHECK(((reply.enhanced.ctrl & EnhancedData::a) != 0) == ((in.ctrl & EnhancedData::a) != 0));
    if (in.ctrl & EnhancedData::a) CHECK((reply.enhanced.ctrl & kRtrAll) != 0);
  }

  // Initiator side, against an arbitrary Reply.
  const Decision<Negotiated> i = accept_reply(policy, req, rep, depths);
  if (i.ok() && i.value.enhanced) {
    const Negotiated& n = i.value;
    if (rep.enhanced.ord != kIrdOrdMax) CHECK(n.ird >= rep.enhanced.ord);
    if (rep.enhanced.ird != kIrdOrdMax) CHECK(n.ord <= rep.enhanced.ird);
    CHECK(n.ird <= depths.max_ird || depths.ird == kIrdOrdMax);
    if (n.peer_to_peer)
      CHECK(n.rtr && (n.rtr & (n.rtr - 1)) == 0 && (n.rtr & rep.enhanced.ctrl & policy.rtr_types));
  }
  if (!i.ok()) CHECK(i.failure.error < 0);
  return 0;
}

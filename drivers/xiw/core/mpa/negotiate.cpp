// SPDX-License-Identifier: GPL-2.0
// Connection parameter negotiation; see negotiate.h. Each rule cites the
// RFC section it implements.
#include "negotiate.h"

namespace xiw::mpa {

namespace {

constexpr u16 min16(u16 a, u16 b) { return a < b ? a : b; }
constexpr u16 max16(u16 a, u16 b) { return a > b ? a : b; }
constexpr bool one_bit(u8 v) { return v != 0 && (v & (v - 1)) == 0; }

// The value a ULP request stands for locally: 0x3FFF (negotiation left to
// the ULP) means the device limit, anything else is capped by it.
constexpr u16 local_depth(u16 want, u16 max) { return want == kIrdOrdMax ? max : min16(want, max); }
// The value to put on the wire for a ULP request.
constexpr u16 wire_depth(u16 want, u16 max) { return want == kIrdOrdMax ? kIrdOrdMax : min16(want, max); }

Failure fail(Failure::Action action, MpaError code, int error) { return {action, code, error}; }

// C in a Reply (RFC 5044 section 7.1: C in either frame turns CRC on). A
// Responder that does not require CRC echoes the Request's C, so the Reply
// says what the connection does; peers that require CRC check it there.
bool reply_crc(const Policy& policy, const StartupFrame& request) {
  return policy.crc == CrcPolicy::required || request.flags.has(FrameFlags::c);
}

u8 base_flags(const Policy& policy, bool crc) {
  u8 bits = crc ? FrameFlags::c : 0;
  if (policy.markers == MarkerPolicy::require) bits |= FrameFlags::m;
  if (policy.gso) bits |= FrameFlags::g;
  return bits;
}

// A Reply answers a Request in kind: enhanced only if it was (RFC 6581
// section 10), at the lower of the two revisions.
StartupFrame reply_skeleton(const Policy& policy, const StartupFrame& request) {
  StartupFrame reply;
  reply.type = FrameType::reply;
  reply.rev = min16(request.rev, policy.rev) == kRevEnhanced ? kRevEnhanced : kRevUnenhanced;
  u8 bits = base_flags(policy, reply_crc(policy, request));
  if (request.is_enhanced() && policy.rev >= kRevEnhanced) bits |= FrameFlags::s;
  reply.flags = FrameFlags(bits);
  return reply;
}

// Keeps a frame's private data within 512 octets on the wire.
kstd::Bytes fit_pd(const StartupFrame& frame, kstd::Bytes pd) {
  const usize room = kPrivateDataMax - (frame.is_enhanced() ? EnhancedData::kSize : 0);
  return pd.size() > room ? pd.first(room) : pd;
}

// The initiator's pick among the mutually supported RTR types: a
// zero-length WRITE needs neither a receive buffer nor a response; a READ
// needs room in the responder's IRD.
u8 pick_rtr(u8 common, u16 responder_ird) {
  if (common & kRtrWrite) return kRtrWrite;
  if ((common & kRtrRead) && responder_ird != 0) return kRtrRead;
  if (common & kRtrSend) return kRtrSend;
  return 0;
}

}  // namespace

kstd::Result<StartupFrame> make_request(const Policy& policy, const ReadDepths& depths, kstd::Bytes pd) {
  StartupFrame f;
  f.type = FrameType::request;
  const bool enhanced = policy.rev >= kRevEnhanced;
  f.rev = enhanced ? kRevEnhanced : kRevUnenhanced;
  f.flags = FrameFlags(static_cast<u8>(base_flags(policy, policy.crc != CrcPolicy::suppress) |
                                       (enhanced ? FrameFlags::s : 0)));
  if (enhanced) {
    // Section 9.2: A for the peer-to-peer model, with the RTR types offered.
    if (policy.peer_to_peer) {
      if ((policy.rtr_types & kRtrAll) == 0) return kstd::Result<StartupFrame>::error(kstd::err::inval);
      f.enhanced.ctrl = static_cast<u8>(EnhancedData::a | (policy.rtr_types & kRtrAll));
    }
    // Section 9.1: the initiator's IRD and its initial ORD.
    f.enhanced.ird = wire_depth(depths.ird, depths.max_ird);
    f.enhanced.ord = wire_depth(depths.ord, depths.max_ord);
  }
  if ((enhanced ? EnhancedData::kSize : 0) + pd.size() > kPrivateDataMax)
    return kstd::Result<StartupFrame>::error(kstd::err::inval);
  f.private_data = pd;
  return f;
}

Failure check_request(const Policy& policy, const StartupFrame& request) {
  // An RFC 5044-only responder treats a Rev 2 Request as one it cannot
  // serve and closes (RFC 5044 section 7.1; RFC 6581 section 10).
  if (request.rev >= kRevEnhanced && policy.rev < kRevEnhanced)
    return fail(Failure::Action::close, MpaError::bad_startup, kstd::err::protonosupport);
  // Markers towards the initiator, which this host will not generate.
  if (request.flags.has(FrameFlags::m) && policy.markers == MarkerPolicy::refuse)
    return fail(Failure::Action::reject, MpaError::none, kstd::err::opnotsupp);
  return {};
}

StartupFrame make_reject(const Policy& policy, const StartupFrame& request, u16 ird, u16 ord,
                         kstd::Bytes pd) {
  StartupFrame reply = reply_skeleton(policy, request);
  reply.flags = FrameFlags(static_cast<u8>(reply.flags.bits() | FrameFlags::r));
  if (reply.is_enhanced()) {
    // Section 7: a reject may say which RTR types the responder supports.
    if (request.enhanced.ctrl & EnhancedData::a)
      reply.enhanced.ctrl = static_cast<u8>(EnhancedData::a | (policy.rtr_types & kRtrAll));
    reply.enhanced.ird = min16(ird, kIrdOrdMax);
    reply.enhanced.ord = min16(ord, kIrdOrdMax);
  }
  reply.private_data = fit_pd(reply, pd);
  return reply;
}

Decision<Negotiated> accept_request(const Policy& policy, const StartupFrame& request,
                                    const ReadDepths& depths, StartupFrame* reply, kstd::Bytes pd) {
  Decision<Negotiated> d;
  d.failure = check_request(policy, request);
  if (!d.ok()) {
    if (d.failure.action == Failure::Action::reject) *reply = make_reject(policy, request, 0, 0, {});
    return d;
  }
  *reply = reply_skeleton(policy, request);
  Negotiated& n = d.value;
  n.rev = reply->rev;
  n.enhanced = reply->is_enhanced();
  n.crc = request.flags.has(FrameFlags::c) || reply->flags.has(FrameFlags::c);
  n.send_markers = request.flags.has(FrameFlags::m);
  n.recv_markers = reply->flags.has(FrameFlags::m);
  n.gso = request.flags.has(FrameFlags::g) && reply->flags.has(FrameFlags::g);
  n.ird = local_depth(depths.ird, depths.max_ird);
  n.ord = local_depth(depths.ord, depths.max_ord);
  if (n.enhanced) {
    const EnhancedData& in = request.enhanced;
    EnhancedData& out = reply->enhanced;
    n.peer_ird = in.ird;
    n.peer_ord = in.ord;
    // Section 9.1: responder ORD at most the initiator IRD; 0x3FFF leaves
    // the local ORD alone and is echoed.
    if (in.ird == kIrdOrdMax) {
      out.ord = kIrdOrdMax;
    } else {
      if (policy.reject_short_ird && n.ord > in.ird) {
        *reply = make_reject(policy, request, n.ird, n.ord, pd);
        d.failure = fail(Failure::Action::reject, MpaError::insufficient_ird, kstd::err::nobufs);
        return d;
      }
      n.ord = min16(n.ord, in.ird);
      out.ord = n.ord;
    }
    // Responder IRD at least the initiator ORD where resources allow.
    if (in.ord != kIrdOrdMax) n.ird = max16(n.ird, min16(in.ord, depths.max_ird));
    // Section 9.2: A is echoed; offer the matching RTR types, or, when
    // none match, the ones supported here.
    if (in.ctrl & EnhancedData::a) {
      n.peer_to_peer = true;
      const u8 common = in.ctrl & policy.rtr_types & kRtrAll;
      n.rtr = common ? common : (policy.rtr_types & kRtrAll);
      // A READ RTR needs one inbound read slot (section 9.1's example).
      if ((n.rtr & kRtrRead) && n.ird == 0) {
        if (depths.max_ird > 0)
          n.ird = 1;
        else if (n.rtr != kRtrRead)
          n.rtr &= static_cast<u8>(~kRtrRead);
      }
      out.ctrl = static_cast<u8>(EnhancedData::a | n.rtr);
    }
    out.ird = in.ord == kIrdOrdMax ? kIrdOrdMax : n.ird;
  }
  const usize room = kPrivateDataMax - (n.enhanced ? EnhancedData::kSize : 0);
  if (pd.size() > room) {
    d.failure = fail(Failure::Action::close, MpaError::local_catastrophic, kstd::err::inval);
    return d;
  }
  reply->private_data = pd;
  return d;
}

Decision<Negotiated> accept_reply(const Policy& policy, const StartupFrame& request,
                                  const StartupFrame& reply, const ReadDepths& depths) {
  Decision<Negotiated> d;
  const auto bad = [&d](int error) {
    d.failure = fail(Failure::Action::close, MpaError::bad_startup, error);
    return d;
  };
  // A Reply never exceeds the Request's revision, and is enhanced only
  // when asked (RFC 6581 section 10).
  if (reply.rev > request.rev) return bad(kstd::err::protonosupport);
  if (reply.is_enhanced() && !request.is_enhanced()) return bad(kstd::err::badmsg);
  const bool asked_p2p = request.is_enhanced() && (request.enhanced.ctrl & EnhancedData::a);
  const bool got_p2p = reply.is_enhanced() && (reply.enhanced.ctrl & EnhancedData::a);
  // Section 9.2: the responder echoes A.
  if (reply.is_enhanced() && asked_p2p != got_p2p) return bad(kstd::err::proto);

  Negotiated& n = d.value;
  n.rev = reply.rev;
  n.enhanced = reply.is_enhanced();
  n.crc = request.flags.has(FrameFlags::c) || reply.flags.has(FrameFlags::c);
  n.send_markers = reply.flags.has(FrameFlags::m);
  n.recv_markers = request.flags.has(FrameFlags::m);
  n.gso = request.flags.has(FrameFlags::g) && reply.flags.has(FrameFlags::g);
  n.ird = local_depth(depths.ird, depths.max_ird);
  n.ord = local_depth(depths.ord, depths.max_ord);
  if (n.send_markers && policy.markers == MarkerPolicy::refuse) {
    d.failure = fail(Failure::Action::terminate, MpaError::local_catastrophic, kstd::err::opnotsupp);
    return d;
  }
  if (!n.enhanced) return d;  // RFC 5044 peer: depths stay with the ULP

  const EnhancedData& in = reply.enhanced;
  n.peer_ird = in.ird;
  n.peer_ord = in.ord;
  // Section 9.1: IRD at least the responder ORD, ORD at most the responder
  // IRD; 0x3FFF leaves the local value unchanged.
  if (in.ord != kIrdOrdMax && in.ord > n.ird) {
    if (in.ord > depths.max_ird) {
      d.failure = fail(Failure::Action::terminate, MpaError::insufficient_ird, kstd::err::nobufs);
      return d;
    }
    n.ird = in.ord;
  }
  if (in.ird != kIrdOrdMax) n.ord = min16(n.ord, in.ird);
  if (got_p2p) {
    // Section 9.2: exactly one RTR of a type both sides support, else
    // TERMINATE with code 7.
    n.peer_to_peer = true;
    n.rtr = pick_rtr(in.ctrl & policy.rtr_types & kRtrAll, in.ird);
    if (n.rtr == 0) {
      d.failure = fail(Failure::Action::terminate, MpaError::no_matching_rtr, kstd::err::opnotsupp);
      return d;
    }
  }
  return d;
}

MpaError check_rtr(const Negotiated& agreed, u8 rtr) {
  if (!agreed.peer_to_peer) return MpaError::none;
  return one_bit(rtr) && (rtr & agreed.rtr) ? MpaError::none : MpaError::no_matching_rtr;
}

}  // namespace xiw::mpa

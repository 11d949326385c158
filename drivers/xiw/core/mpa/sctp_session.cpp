// SPDX-License-Identifier: GPL-2.0
// DDP Stream Session Control codec and negotiator glue; see
// sctp_session.h for the layout and what is known of it. Each rule cites
// the RFC section it enforces; userspace-tests/unit/mpa_sctp_session_test.cpp
// checks each against hand-written byte layouts.
#include "sctp_session.h"

namespace xiw::mpa::sctp {

namespace {

using Message = kstd::Result<SessionControl>;
using Frame = kstd::Result<StartupFrame>;

WireHeader load_header(kstd::Bytes in) {
  WireHeader h;
  __builtin_memcpy(&h, in.data(), sizeof(h));
  return h;
}

// Whether `pd` octets of Private Data may go with `code`.
bool pd_fits(FunctionCode code, usize pd) {
  // RFC 6581 section 7: no Private Data in the TERM message.
  if (code == FunctionCode::terminate) return pd == 0;
  // RFC 6581 sections 7 and 9: the enhanced data leads, and the whole
  // Private Data is at most 512 octets.
  if (is_enhanced(code)) return pd >= EnhancedData::kSize && pd <= SessionControl::kEnhancedPdMax;
  return pd <= SessionControl::kPdLengthMax;
}

// The MPA frame a message stands for: S for the enhanced codes (Rev 2),
// R for the rejects. C and M stay clear: SCTP carries neither.
StartupFrame frame_of(FrameType type, const SessionControl& m, bool rejected) {
  StartupFrame f;
  f.type = type;
  f.rev = m.is_enhanced() ? kRevEnhanced : kRevUnenhanced;
  f.flags =
      FrameFlags(static_cast<u8>((m.is_enhanced() ? FrameFlags::s : 0) | (rejected ? FrameFlags::r : 0)));
  if (m.is_enhanced()) f.enhanced = m.enhanced;
  f.private_data = m.private_data;
  return f;
}

SessionControl message_of(FunctionCode code, const StartupFrame& f) {
  SessionControl m;
  m.code = code;
  if (f.is_enhanced()) m.enhanced = f.enhanced;
  m.private_data = f.private_data;
  return m;
}

// The Initiate a Request stands for.
SessionControl initiate_of(const StartupFrame& request) {
  return message_of(request.is_enhanced() ? FunctionCode::enhanced_initiate : FunctionCode::initiate,
                    request);
}

// The Accept or Reject a Reply stands for. An enhanced session refused
// by the negotiator gets the Enhanced Reject (RFC 6581 section 7: it MUST
// be used for a configuration that unenhanced would have been accepted).
SessionControl answer_of(const StartupFrame& reply) {
  const bool rejected = reply.flags.has(FrameFlags::r);
  if (reply.is_enhanced())
    return message_of(rejected ? FunctionCode::enhanced_reject : FunctionCode::enhanced_accept, reply);
  return message_of(rejected ? FunctionCode::reject : FunctionCode::accept, reply);
}

// CRC and Markers are MPA's (RFC 5044): over SCTP the
// negotiator must neither ask for them nor refuse a peer over them.
Policy sctp_policy(const Policy& policy) {
  Policy p = policy;
  p.crc = CrcPolicy::suppress;
  p.markers = MarkerPolicy::accept;
  return p;
}

Failure fail(Failure::Action action, MpaError code, int error) { return {action, code, error}; }

}  // namespace

kstd::Result<usize> SessionControl::encode(kstd::MutableBytes out) const {
  if (!is_known(static_cast<u16>(code))) return kstd::Result<usize>::error(kstd::err::inval);
  const usize pd_length = wire_pd_length();
  if (!pd_fits(code, pd_length)) return kstd::Result<usize>::error(kstd::err::inval);
  // RFC 6581 section 9: 14-bit IRD and ORD; B, C, D only with A.
  if (is_enhanced() && !enhanced.valid()) return kstd::Result<usize>::error(kstd::err::inval);
  const usize total = kHeaderLen + pd_length;
  if (out.size() < total) return kstd::Result<usize>::error(kstd::err::nospc);

  WireHeader h;
  h.function_code.set(static_cast<u16>(code));  // upper bits zero
  h.pd_length.set(static_cast<u16>(pd_length));
  __builtin_memcpy(out.data(), &h, sizeof(h));
  kstd::MutableBytes pd = out.subspan(kHeaderLen, pd_length);
  if (is_enhanced()) {
    enhanced.encode(pd);
    pd = pd.subspan(EnhancedData::kSize);
  }
  if (!private_data.empty()) kstd::copy(pd, private_data);
  return total;
}

kstd::Result<SessionControl> SessionControl::decode(kstd::Bytes in) {
  if (in.size() < kHeaderLen) return Message::error(kstd::err::badmsg);
  const WireHeader h = load_header(in);
  // A code outside RFC 5043 and RFC 6581, or with an upper bit set.
  if (!is_known(h.function_code.get())) return Message::error(kstd::err::protonosupport);
  // PD Length must match the Private Data actually present: SCTP hands
  // over one whole user message, so nothing may follow it.
  const usize pd_length = h.pd_length.get();
  if (pd_length != in.size() - kHeaderLen) return Message::error(kstd::err::badmsg);
  SessionControl m;
  m.code = static_cast<FunctionCode>(h.function_code.get());
  if (!pd_fits(m.code, pd_length)) return Message::error(kstd::err::badmsg);
  kstd::Bytes pd = in.subspan(kHeaderLen);
  if (m.is_enhanced()) {
    // Never fails; B, C, D without A are dropped (RFC 6581 section 9.2).
    m.enhanced = EnhancedData::decode(pd);
    pd = pd.subspan(EnhancedData::kSize);
  }
  m.private_data = pd;
  return m;
}

kstd::Result<StartupFrame> request_view(const SessionControl& initiate) {
  if (initiate.code != FunctionCode::initiate && initiate.code != FunctionCode::enhanced_initiate)
    return Frame::error(kstd::err::proto);
  return frame_of(FrameType::request, initiate, false);
}

kstd::Result<StartupFrame> reply_view(const SessionControl& answer) {
  switch (answer.code) {
    case FunctionCode::accept:
    case FunctionCode::enhanced_accept:
      return frame_of(FrameType::reply, answer, false);
    case FunctionCode::reject:
    case FunctionCode::enhanced_reject:
      return frame_of(FrameType::reply, answer, true);
    default:
      return Frame::error(kstd::err::proto);
  }
}

kstd::Result<SessionControl> make_initiate(const Policy& policy, const ReadDepths& depths, kstd::Bytes pd) {
  const Frame request = make_request(sctp_policy(policy), depths, pd);
  if (!request.ok()) return Message::error(request.error());
  return initiate_of(request.value());
}

Decision<Answer> accept_initiate(const Policy& policy, const SessionControl& initiate,
                                 const ReadDepths& depths, kstd::Bytes pd) {
  Decision<Answer> d;
  const Frame request = request_view(initiate);
  if (!request.ok()) {
    d.failure = fail(Failure::Action::close, MpaError::bad_startup, request.error());
    return d;
  }
  StartupFrame reply;
  const Decision<Negotiated> n = accept_request(sctp_policy(policy), request.value(), depths, &reply, pd);
  d.value.agreed = n.value;
  d.failure = n.failure;
  if (n.ok() || n.failure.action == Failure::Action::reject) d.value.message = answer_of(reply);
  return d;
}

kstd::Result<SessionControl> make_reject(const Policy& policy, const SessionControl& initiate, u16 ird,
                                         u16 ord, kstd::Bytes pd) {
  const Frame request = request_view(initiate);
  if (!request.ok()) return Message::error(request.error());
  return answer_of(mpa::make_reject(sctp_policy(policy), request.value(), ird, ord, pd));
}

Decision<Negotiated> accept_answer(const Policy& policy, const SessionControl& initiate,
                                   const SessionControl& answer, const ReadDepths& depths) {
  Decision<Negotiated> d;
  const Frame request = request_view(initiate);
  const Frame reply = reply_view(answer);
  if (!request.ok() || !reply.ok()) {
    d.failure = fail(Failure::Action::close, MpaError::bad_startup, kstd::err::proto);
    return d;
  }
  // RFC 5043 section 6.3 (RFC 6581 section 7 for the enhanced code): the
  // responder refused; its Private Data is the ULP's to read.
  if (reply.value().flags.has(FrameFlags::r)) {
    d.failure = fail(Failure::Action::close, MpaError::none, kstd::err::connrefused);
    return d;
  }
  return mpa::accept_reply(sctp_policy(policy), request.value(), reply.value(), depths);
}

}  // namespace xiw::mpa::sctp

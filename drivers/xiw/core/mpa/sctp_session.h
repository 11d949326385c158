// SPDX-License-Identifier: GPL-2.0
// DDP Stream Session Control over SCTP (RFC 5043 section 5) with the
// enhanced function codes of RFC 6581 section 7. Linux has no DDP over
// SCTP: this is a codec and the glue that lets the transport-neutral
// negotiator (negotiate.h) decide an SCTP session exactly as it decides
// an MPA connection. Nothing here touches a socket.
//
// What the codec knows of the RFC 5043 message, and from where:
//  - It is the user message of an SCTP DATA chunk whose Payload Protocol
//    Identifier is "DDP Stream Session Control" (17); DDP Segments use
//    "DDP Segment" (16); support is announced with the Adaptation Layer
//    Indication, code point 1 (RFC 5043 sections 5.1, 5.2 and 12, as
//    cited by secondary sources). SCTP delivers whole messages, so
//    `decode` gets exactly one.
//  - It carries a Function Code, the length of the Private Data (PD
//    Length), then the Private Data (RFC 5043 section 5; RFC 6581 section
//    7 adds codes 0x5 to 0x7 and section 9 the enhanced data).
// ASSUMED, not checked: the RFC 5043 section 5 text was not available
// when this was written. The codec takes the Function Code as 16 bits in
// octets 0-1 and PD Length as 16 bits in octets 2-3, network byte order,
// Private Data from octet 4. RFC 6581 writes the codes as 0x005 (section
// 7) and 0x0005 (section 11), which fits a 16-bit code as well as a
// 12-bit code under 4 reserved bits; the octets sent are the same either
// way (upper bits zero). On receipt all 16 bits must name a known code,
// so a set upper bit is refused rather than ignored. Check against RFC
// 5043 section 5 before this meets a real peer.
#pragma once

#include "../kstd/byteorder.h"
#include "../kstd/result.h"
#include "../kstd/span.h"
#include "negotiate.h"
#include "startup.h"

namespace xiw::mpa::sctp {

using kstd::u32;

// RFC 5043 section 5.1: the Adaptation Code Point of DDP over SCTP.
inline constexpr u32 kAdaptationCodePoint = 0x00000001;
// RFC 5043 section 5.2: Payload Protocol Identifiers.
inline constexpr u32 kPpidDdpSegment = 16;
inline constexpr u32 kPpidSessionControl = 17;

// SCTP Function Codes for DDP Session Control: 0x1 to 0x4 from RFC 5043,
// 0x5 to 0x7 from RFC 6581 sections 7 and 11 (registry of RFC 6580
// section 3.5).
enum class FunctionCode : u16 {
  initiate = 0x1,
  accept = 0x2,
  reject = 0x3,
  terminate = 0x4,
  enhanced_initiate = 0x5,
  enhanced_accept = 0x6,
  enhanced_reject = 0x7,
};

constexpr bool is_known(u16 code) {
  return code >= static_cast<u16>(FunctionCode::initiate) &&
         code <= static_cast<u16>(FunctionCode::enhanced_reject);
}
// The codes whose Private Data begins with the enhanced data. RFC 6581
// section 7 orders ULP data after it for the Enhanced Initiate and Accept
// and lets an Enhanced Reject say which RTR types the responder supports,
// which only the enhanced data can carry (section 1.2: the enhanced
// chunks extend the old ones with IRD and ORD). So all three carry it.
constexpr bool is_enhanced(FunctionCode code) {
  return code == FunctionCode::enhanced_initiate || code == FunctionCode::enhanced_accept ||
         code == FunctionCode::enhanced_reject;
}

// The fixed part of the message, exactly as on the wire.
struct WireHeader {
  kstd::Be16 function_code;
  kstd::Be16 pd_length;
};
static_assert(sizeof(WireHeader) == 4 && alignof(WireHeader) == 1);

// One DDP Stream Session Control message in host terms. private_data is
// the ULP's part only; for the enhanced codes `enhanced` is the prefix.
struct SessionControl {
  static constexpr usize kHeaderLen = sizeof(WireHeader);
  // RFC 6581 section 7: at most 512 octets, the enhanced data included.
  static constexpr usize kEnhancedPdMax = kPrivateDataMax;
  // The most a 16-bit PD Length can say (RFC 5043 limit not verified).
  static constexpr usize kPdLengthMax = 0xffff;

  FunctionCode code = FunctionCode::initiate;
  EnhancedData enhanced;
  kstd::Bytes private_data;

  constexpr bool is_enhanced() const { return sctp::is_enhanced(code); }
  // PD Length on the wire: enhanced data plus ULP data.
  constexpr usize wire_pd_length() const {
    return private_data.size() + (is_enhanced() ? EnhancedData::kSize : 0);
  }

  // Bytes written; -EINVAL for a message the RFCs forbid, -ENOSPC if short.
  kstd::Result<usize> encode(kstd::MutableBytes out) const;
  // Exactly one message. -EBADMSG when malformed, -EPROTONOSUPPORT for a
  // Function Code neither RFC defines. private_data points into `in`.
  static kstd::Result<SessionControl> decode(kstd::Bytes in);
};

// ---- The negotiator over SCTP ------------------------------------------------
//
// Initiate stands for the MPA Request, Accept for the accepting Reply and
// Reject for the Reply with R (RFC 6581 section 7); the enhanced codes for
// the frames with S. The adapters below build those frame views so that
// negotiate.cpp decides, unchanged. CRC and Markers are MPA's alone (SCTP
// has its own CRC32c and message boundaries): the views carry neither, and
// the policy's CRC and Marker knobs are set aside.

// The MPA Request a received Initiate or Enhanced Initiate stands for;
// -EPROTO for any other code.
kstd::Result<StartupFrame> request_view(const SessionControl& initiate);
// The MPA Reply an Accept or Reject stands for; -EPROTO otherwise.
kstd::Result<StartupFrame> reply_view(const SessionControl& answer);

// Initiator: the Initiate, enhanced when the policy is (RFC 6581 section
// 10: no enhanced code when no enhanced feature is wanted).
kstd::Result<SessionControl> make_initiate(const Policy& policy, const ReadDepths& depths, kstd::Bytes pd);

// Responder, when the ULP accepts: what was agreed and the message to
// send. On a reject action `message` is the Reject or Enhanced Reject to
// send; on close there is none.
struct Answer {
  Negotiated agreed;
  SessionControl message;
};
Decision<Answer> accept_initiate(const Policy& policy, const SessionControl& initiate,
                                 const ReadDepths& depths, kstd::Bytes pd);

// Responder, when the ULP refuses: the Reject answering `initiate` in kind.
kstd::Result<SessionControl> make_reject(const Policy& policy, const SessionControl& initiate, u16 ird,
                                         u16 ord, kstd::Bytes pd);

// Initiator, on the answer to its Initiate: what was agreed, or close
// (malformed answer, or a Reject: -ECONNREFUSED) or terminate (code 6, 7).
Decision<Negotiated> accept_answer(const Policy& policy, const SessionControl& initiate,
                                   const SessionControl& answer, const ReadDepths& depths);

// Either end: the message ending a session, enhanced or not (RFC 6581
// section 7: the ordinary termination code, and no Private Data).
constexpr SessionControl make_terminate() { return SessionControl{FunctionCode::terminate, {}, {}}; }

}  // namespace xiw::mpa::sctp

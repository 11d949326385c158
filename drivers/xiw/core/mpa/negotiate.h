// SPDX-License-Identifier: GPL-2.0
// Connection parameter negotiation, independent of the transport: the MPA
// Request/Reply exchange (RFC 5044 section 7.1, RFC 6581 sections 6, 9 and
// 10) and the enhanced SCTP session control of RFC 6581 section 7 both
// drive these functions. They are pure: frames and limits in, decisions out.
#pragma once

#include "../kstd/result.h"
#include "errors.h"
#include "startup.h"

namespace xiw::mpa {

// CRC use (RFC 5044 section 4.4: CRCs are on unless an administrator
// knows the path has equal integrity protection). The C bit of either
// frame switches CRC on for both directions.
enum class CrcPolicy : u8 {
  required = 0,   // C = 1 in Request and Reply
  preferred = 1,  // C = 1 in a Request; a Reply echoes the Request's C
  suppress = 2,   // C = 0; CRC still runs if the peer sets C
};

// Markers towards us (the M bit is the receiver's requirement).
enum class MarkerPolicy : u8 {
  accept = 0,   // M = 0; send Markers when the peer asks
  require = 1,  // M = 1; send them when the peer asks too
  refuse = 2,   // M = 0; close rather than send Markers
};

// RTR types as RFC 6581 control flags B, C, D.
inline constexpr u8 kRtrSend = EnhancedData::b;
inline constexpr u8 kRtrWrite = EnhancedData::c;
inline constexpr u8 kRtrRead = EnhancedData::d;
inline constexpr u8 kRtrAll = kRtrSend | kRtrWrite | kRtrRead;

struct Policy {
  u8 rev = 2;  // 1: RFC 5044 only; 2: RFC 6581 enhanced
  CrcPolicy crc = CrcPolicy::required;
  MarkerPolicy markers = MarkerPolicy::accept;
  bool peer_to_peer = false;  // initiator offers the peer-to-peer model
  u8 rtr_types = kRtrAll;     // RTR types we generate and accept
  // Responder: reject, naming the ORD it needs, when the initiator's IRD
  // is below the ORD the ULP asked for (RFC 6581 section 9.1 MAY).
  bool reject_short_ird = false;
  // Initiator: when the peer closes on our enhanced Request without a
  // Reply, say so, so that the connection may be retried with an
  // unenhanced Request (RFC 6581 section 10 MAY).
  bool retry_unenhanced = false;
  // Offer GSO-sized FPDUs (G, a Res bit; mpa.h): used when both offer it.
  bool gso = false;
};

// Read queue depths. `ird`/`ord` are what the ULP asked for (0x3FFF: leave
// it to the ULP); `max_ird`/`max_ord` are what the device can do.
struct ReadDepths {
  u16 ird = 0;
  u16 ord = 0;
  u16 max_ird = 0;
  u16 max_ord = 0;
};

// The outcome of a successful negotiation, for one endpoint.
struct Negotiated {
  u8 rev = 1;
  bool enhanced = false;
  bool crc = true;
  bool send_markers = false;  // the peer set M
  bool recv_markers = false;  // we set M
  bool peer_to_peer = false;
  // Initiator: the one RTR type it sends. Responder: the types it accepts.
  u8 rtr = 0;
  u16 ird = 0;  // local values to program
  u16 ord = 0;
  u16 peer_ird = kIrdOrdMax;  // as the peer sent them, for the ULP
  u16 peer_ord = kIrdOrdMax;
  bool gso = false;  // both offered G: FPDUs may span TCP segments
};

// Why negotiation stopped, and what to do about it.
struct Failure {
  enum class Action : u8 {
    close,      // close the TCP connection (startup frame problems)
    reject,     // responder: send the Reply built with R = 1, then close
    terminate,  // send a TERMINATE with `code`, then close
  };
  Action action = Action::close;
  MpaError code = MpaError::none;
  int error = 0;  // negative errno reported locally
};

template <typename T>
struct Decision {
  bool ok() const { return failure.error == 0; }
  T value{};
  Failure failure{};
};

// Initiator: the Request for `depths` and ULP private data `pd`.
// -EINVAL when `pd` does not fit.
kstd::Result<StartupFrame> make_request(const Policy& policy, const ReadDepths& depths, kstd::Bytes pd);

// Responder, on a decoded Request: may it go to the ULP? On failure the
// action is close, or reject with the Reply from make_reject().
Failure check_request(const Policy& policy, const StartupFrame& request);

// Responder, when the ULP accepts with `depths` and private data `pd`: the
// Reply and what was agreed. When the action is reject (a policy refusal,
// or reject_short_ird and a short initiator IRD) `reply` is the R = 1
// Reply to send.
Decision<Negotiated> accept_request(const Policy& policy, const StartupFrame& request,
                                    const ReadDepths& depths, StartupFrame* reply, kstd::Bytes pd);

// Responder: a Reply with R = 1 that answers `request` in kind; `ord` is
// the ORD the responder needs (enhanced replies only).
StartupFrame make_reject(const Policy& policy, const StartupFrame& request, u16 ird, u16 ord, kstd::Bytes pd);

// Initiator, on a decoded Reply without R: what was agreed, or close
// (malformed answer) or terminate (code 6 or 7).
Decision<Negotiated> accept_reply(const Policy& policy, const StartupFrame& request,
                                  const StartupFrame& reply, const ReadDepths& depths);

// Responder, on the first FPDU of a peer-to-peer connection: is it an RTR
// of a type it offered? `rtr` is kRtrSend/Write/Read, or 0 for any other
// message. Returns none or no_matching_rtr.
MpaError check_rtr(const Negotiated& agreed, u8 rtr);

}  // namespace xiw::mpa

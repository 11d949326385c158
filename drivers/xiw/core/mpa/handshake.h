// SPDX-License-Identifier: GPL-2.0
// The MPA Startup Phase of one connection, both roles, as a state machine
// (RFC 5044 section 7.1, RFC 6581 sections 9.2 and 10):
//
//   initiator: connect ─> await_reply ─┬─> [send RTR] ─> established
//                                      ├─> rejected (R = 1)
//                                      └─> closed (bad Reply, TERM 6/7, timeout)
//   responder: listen ─> await_request ─> await_ulp ─┬─> accept ─> await_rtr ─> established
//                                                    └─> reject ─> rejected
//
// The glue feeds it TCP bytes and events; every call returns a Step saying
// what to send, which timer to run and what to tell the ULP. It never
// touches a socket or a clock itself.
#pragma once

#include "negotiate.h"

namespace xiw::mpa {

using kstd::u32;

struct Timeouts {
  u32 request_ms = 0;  // responder waits for the Request (0: none)
  u32 reply_ms = 0;    // initiator waits for the Reply
  u32 ulp_ms = 0;      // responder waits for the ULP's accept or reject
  u32 rtr_ms = 0;      // responder waits for the RTR (peer-to-peer)
};

class Handshake {
 public:
  enum class State : u8 {
    idle,
    await_request,
    await_reply,
    await_ulp,
    await_rtr,
    rtr_pending,  // initiator: Reply accepted, RTR not yet on the wire
    established,
    rejected,
    closed,
  };

  // What the ULP hears (iw_cm events, in the glue).
  enum class Upcall : u8 {
    none,
    connect_request,  // responder: a valid Request; see request()
    connected,        // either role: Full Operation, ULP may use the QP
    rejected,         // initiator: R = 1; see reply() for data and depths
    failed,           // either role: error(); close the connection
  };

  enum class Timer : u8 { keep, arm, cancel };

  struct Step {
    kstd::Bytes send;  // octets to write to TCP, then:
    bool close_after_send = false;
    MpaError terminate = MpaError::none;  // send TERMINATE with this code, then close
    u8 rtr = 0;                           // initiator: send this RTR (kRtr*), then rtr_sent()
    Upcall upcall = Upcall::none;
    Timer timer = Timer::keep;
    u32 timer_ms = 0;
    usize consumed = 0;  // receive(): octets of the input that were startup frames
    // With Upcall::failed: the peer closed on our enhanced Request before
    // any Reply octet; a new connection may try an unenhanced Request.
    bool retry_unenhanced = false;
  };

  Handshake(const Policy& policy, const Timeouts& timeouts) : policy_(policy), timeouts_(timeouts) {}

  // Initiator: the Request for `depths` and ULP private data.
  Step connect(const ReadDepths& depths, kstd::Bytes pd);
  // Responder: a TCP connection was accepted; wait for the Request.
  Step listen();
  // TCP bytes. Consumes no more than the startup frame; the rest belongs
  // to Full Operation once connected.
  Step receive(kstd::Bytes in);
  // Octets the startup frame still needs that receive() would take now:
  // the rest of the header, then the rest of the private data; 0 when no
  // frame is awaited. Reading no more keeps Full Operation in the socket.
  usize receive_need() const;
  // Responder ULP decisions.
  Step accept(const ReadDepths& depths, kstd::Bytes pd);
  Step reject(kstd::Bytes pd);
  // Initiator: the RTR is on the wire.
  Step rtr_sent();
  // Responder: the first valid FPDU of Full Operation arrived; `rtr` is
  // its RTR type (kRtr*) or 0. In peer-to-peer mode it must be an agreed
  // RTR, which DDP then consumes without a completion.
  Step first_fpdu(u8 rtr);
  // Responder, peer-to-peer: the first FPDU could not be taken whole.
  // `framing` is the MPA receiver's error: a CRC or Marker error is
  // reported with its own code (RFC 5044 section 8); MpaError::none means
  // it framed well but cannot be an RTR (longer than any RTR), which is
  // code 7 (RFC 6581 section 9.2).
  Step first_fpdu_unreadable(MpaError framing);
  Step timeout();
  // The TCP connection closed or failed under us. An initiator whose
  // enhanced Request met a close before any Reply octet marks the Step
  // retry_unenhanced when the policy allows it (RFC 6581 section 10).
  Step llp_closed();

  State state() const { return state_; }
  bool initiator() const { return initiator_; }
  int error() const { return error_; }
  const Negotiated& agreed() const { return agreed_; }
  // Why the Startup Phase ended without Full Operation, in RFC terms, for
  // the administrator's log line; nullptr while it has not ended so.
  // term_sent() is the MPA code of the TERMINATE sent for it, if any.
  const char* failure() const;
  MpaError term_sent() const { return term_; }
  // MPA fencing (RFC 5044 section 7.1.2): a responder sends no FPDU
  // before it has received and validated one.
  bool may_send() const;
  // Valid once received; private data points into this object.
  const StartupFrame& request() const { return request_; }
  const StartupFrame& reply() const { return reply_; }
  // Full Operation starts after these many octets in each direction.
  usize sent_frame_length() const { return tx_len_; }

 private:
  Step fail(int error, MpaError term = MpaError::none);
  Step on_frame();
  Step on_request();
  Step on_reply();
  Step send_frame(const StartupFrame& frame, State next);

  Policy policy_;
  Timeouts timeouts_;
  State state_ = State::idle;
  bool initiator_ = false;
  bool fenced_ = true;
  int error_ = 0;
  State failed_in_ = State::idle;  // the state fail() or a refusal left
  MpaError term_ = MpaError::none;
  bool refused_ = false;  // responder: we answered the Request with R = 1
  ReadDepths depths_{};
  Negotiated agreed_{};
  StartupFrame request_{};
  StartupFrame reply_{};
  usize rx_len_ = 0;   // octets of the incoming frame collected
  usize rx_need_ = 0;  // its total length once the header is in
  usize tx_len_ = 0;
  u8 rx_[kHeaderLen + kPrivateDataMax] = {};
  u8 tx_[kHeaderLen + kPrivateDataMax] = {};
};

}  // namespace xiw::mpa

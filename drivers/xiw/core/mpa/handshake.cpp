// SPDX-License-Identifier: GPL-2.0
// The MPA Startup Phase state machine; see handshake.h.
#include "handshake.h"

namespace xiw::mpa {

namespace {

using Step = Handshake::Step;

Step arm(u32 ms) {
  Step s;
  s.timer = ms ? Handshake::Timer::arm : Handshake::Timer::cancel;
  s.timer_ms = ms;
  return s;
}

// Re-points a frame's private data at its copy inside `frame_bytes`.
void point_pd_into(StartupFrame* frame, const u8* frame_bytes) {
  const usize off = kHeaderLen + (frame->is_enhanced() ? EnhancedData::kSize : 0);
  frame->private_data = kstd::Bytes(frame_bytes + off, frame->private_data.size());
}

}  // namespace

bool Handshake::may_send() const {
  if (state_ != State::established) return false;
  return initiator_ || !fenced_;
}

Step Handshake::fail(int error, MpaError term) {
  failed_in_ = state_;
  term_ = term;
  state_ = State::closed;
  error_ = error;
  Step s;
  s.timer = Timer::cancel;
  s.upcall = Upcall::failed;
  s.terminate = term;
  return s;
}

Step Handshake::send_frame(const StartupFrame& frame, State next) {
  const kstd::Result<usize> n = encode(frame, kstd::MutableBytes(tx_));
  if (!n.ok()) return fail(n.error());
  tx_len_ = n.value();
  state_ = next;
  Step s;
  s.send = kstd::Bytes(tx_, tx_len_);
  return s;
}

Step Handshake::connect(const ReadDepths& depths, kstd::Bytes pd) {
  if (state_ != State::idle) return fail(kstd::err::inval);
  initiator_ = true;
  depths_ = depths;
  const kstd::Result<StartupFrame> req = make_request(policy_, depths, pd);
  if (!req.ok()) return fail(req.error());
  request_ = req.value();
  Step s = send_frame(request_, State::await_reply);
  if (state_ != State::await_reply) return s;
  point_pd_into(&request_, tx_);
  const Step t = arm(timeouts_.reply_ms);
  s.timer = t.timer;
  s.timer_ms = t.timer_ms;
  return s;
}

Step Handshake::listen() {
  if (state_ != State::idle) return fail(kstd::err::inval);
  initiator_ = false;
  state_ = State::await_request;
  return arm(timeouts_.request_ms);
}

Step Handshake::receive(kstd::Bytes in) {
  if (state_ != State::await_request && state_ != State::await_reply) return {};
  const FrameType expect = initiator_ ? FrameType::reply : FrameType::request;
  usize used = 0;
  // The fixed header first, then exactly PD_Length more octets.
  if (rx_len_ < kHeaderLen) {
    const usize n = in.size() < kHeaderLen - rx_len_ ? in.size() : kHeaderLen - rx_len_;
    kstd::copy(kstd::MutableBytes(rx_ + rx_len_, n), in.first(n));
    rx_len_ += n;
    used = n;
    if (rx_len_ < kHeaderLen) {
      Step s;
      s.consumed = used;
      return s;
    }
    // RFC 5044 section 7.1.2: a bad Key, Rev or PD_Length is an
    // improperly formatted frame: close at once, report locally.
    const kstd::Result<usize> total = frame_length(kstd::Bytes(rx_, kHeaderLen), expect);
    if (!total.ok()) {
      Step s = fail(total.error());
      s.consumed = used;
      return s;
    }
    rx_need_ = total.value();
  }
  const usize want = rx_need_ - rx_len_;
  const usize n = in.size() - used < want ? in.size() - used : want;
  kstd::copy(kstd::MutableBytes(rx_ + rx_len_, n), in.subspan(used, n));
  rx_len_ += n;
  used += n;
  Step s = rx_len_ == rx_need_ ? on_frame() : Step{};
  s.consumed = used;
  return s;
}

usize Handshake::receive_need() const {
  if (state_ != State::await_request && state_ != State::await_reply) return 0;
  return rx_len_ < kHeaderLen ? kHeaderLen - rx_len_ : rx_need_ - rx_len_;
}

Step Handshake::on_frame() {
  const FrameType expect = initiator_ ? FrameType::reply : FrameType::request;
  const kstd::Result<StartupFrame> frame = decode(kstd::Bytes(rx_, rx_len_), expect);
  if (!frame.ok()) return fail(frame.error());
  if (initiator_) {
    reply_ = frame.value();
    return on_reply();
  }
  request_ = frame.value();
  return on_request();
}

Step Handshake::on_request() {
  const Failure f = check_request(policy_, request_);
  if (f.error == 0) {
    state_ = State::await_ulp;
    Step s = arm(timeouts_.ulp_ms);
    s.upcall = Upcall::connect_request;
    return s;
  }
  if (f.action != Failure::Action::reject) return fail(f.error);
  // Refused by policy before the ULP saw it: answer with R = 1 and close.
  Step s = send_frame(make_reject(policy_, request_, 0, 0, {}), State::closed);
  error_ = f.error;
  failed_in_ = State::await_request;
  refused_ = true;
  s.close_after_send = true;
  s.timer = Timer::cancel;
  s.upcall = Upcall::none;
  return s;
}

Step Handshake::on_reply() {
  if (reply_.flags.has(FrameFlags::r)) {
    // Rejected: the private data and the responder's depths go to the ULP
    // (RFC 6581 section 9.1).
    state_ = State::rejected;
    error_ = kstd::err::connrefused;
    Step s;
    s.timer = Timer::cancel;
    s.upcall = Upcall::rejected;
    s.close_after_send = true;
    return s;
  }
  const Decision<Negotiated> d = accept_reply(policy_, request_, reply_, depths_);
  agreed_ = d.value;
  if (!d.ok()) {
    // TERM 6 or 7 once in Full Operation; a malformed Reply just closes.
    const MpaError term = d.failure.action == Failure::Action::terminate ? d.failure.code : MpaError::none;
    return fail(d.failure.error, term);
  }
  Step s;
  s.timer = Timer::cancel;
  if (agreed_.peer_to_peer) {
    // Section 9.2: nothing before the RTR, and the ULP hears of the
    // connection only once the RTR is on the wire.
    state_ = State::rtr_pending;
    s.rtr = agreed_.rtr;
    return s;
  }
  state_ = State::established;
  s.upcall = Upcall::connected;
  return s;
}

Step Handshake::accept(const ReadDepths& depths, kstd::Bytes pd) {
  if (state_ != State::await_ulp) return fail(kstd::err::inval);
  depths_ = depths;
  const Decision<Negotiated> d = accept_request(policy_, request_, depths, &reply_, pd);
  agreed_ = d.value;
  if (!d.ok()) {
    if (d.failure.action != Failure::Action::reject) return fail(d.failure.error);
    // Section 9.1: the initiator's IRD cannot cover our ORD.
    Step s = send_frame(reply_, State::rejected);
    error_ = d.failure.error;
    failed_in_ = State::await_ulp;
    refused_ = true;
    s.close_after_send = true;
    s.timer = Timer::cancel;
    s.upcall = Upcall::failed;
    return s;
  }
  Step s = send_frame(reply_, agreed_.peer_to_peer ? State::await_rtr : State::established);
  if (state_ == State::closed) return s;
  point_pd_into(&reply_, tx_);
  if (agreed_.peer_to_peer) {
    const Step t = arm(timeouts_.rtr_ms);
    s.timer = t.timer;
    s.timer_ms = t.timer_ms;
  } else {
    // Client-server: the ULP may post work now; MPA fencing holds our
    // first FPDU until the initiator's first one has been validated.
    s.timer = Timer::cancel;
    s.upcall = Upcall::connected;
  }
  return s;
}

Step Handshake::reject(kstd::Bytes pd) {
  if (state_ != State::await_ulp) return fail(kstd::err::inval);
  Step s = send_frame(make_reject(policy_, request_, 0, 0, pd), State::rejected);
  s.close_after_send = true;
  s.timer = Timer::cancel;
  return s;
}

Step Handshake::rtr_sent() {
  if (state_ != State::rtr_pending) return fail(kstd::err::inval);
  state_ = State::established;
  Step s;
  s.upcall = Upcall::connected;
  return s;
}

Step Handshake::first_fpdu(u8 rtr) {
  if (state_ == State::established && !initiator_) {
    fenced_ = false;
    return {};
  }
  if (state_ != State::await_rtr) return {};
  // Section 9.2: the first FPDU must be one of the RTR types offered.
  if (check_rtr(agreed_, rtr) != MpaError::none) return fail(kstd::err::opnotsupp, MpaError::no_matching_rtr);
  state_ = State::established;
  fenced_ = false;
  Step s;
  s.timer = Timer::cancel;
  s.upcall = Upcall::connected;
  return s;
}

Step Handshake::first_fpdu_unreadable(MpaError framing) {
  if (state_ != State::await_rtr) return {};
  if (framing == MpaError::crc || framing == MpaError::marker) return fail(kstd::err::badmsg, framing);
  return fail(kstd::err::opnotsupp, MpaError::no_matching_rtr);
}

Step Handshake::timeout() {
  switch (state_) {
    case State::await_request:
    case State::await_reply:
    case State::await_ulp:
    case State::await_rtr:
      // Startup frames carry no TERMINATE; an RTR wait is in Full
      // Operation but the peer has stopped talking: close either way.
      return fail(kstd::err::timedout);
    default:
      return {};
  }
}

const char* Handshake::failure() const {
  if (state_ == State::rejected && !refused_)
    return initiator_ ? "the peer rejected the MPA Request (Reply with R = 1)"
                      : "the ULP rejected the MPA Request";
  if (state_ != State::closed && state_ != State::rejected) return nullptr;
  if (refused_)
    return failed_in_ == State::await_ulp ? "the Request's IRD cannot cover our ORD (RFC 6581 section 9.1)"
                                          : "the MPA Request asks for what our settings refuse";
  if (term_ != MpaError::none) return "refused with a TERMINATE";
  const bool timed_out = error_ == kstd::err::timedout;
  const bool closed = error_ == kstd::err::connreset;
  switch (failed_in_) {
    case State::await_request:
      return timed_out ? "no MPA Request before the timeout"
             : closed  ? "the peer closed before its MPA Request"
                       : "an MPA Request xiw cannot take";
    case State::await_reply:
      return timed_out ? "no MPA Reply before the timeout"
             : closed  ? "the peer closed before its MPA Reply"
                       : "an MPA Reply xiw cannot take";
    case State::await_ulp:
      return timed_out ? "the ULP neither accepted nor rejected the Request in time"
                       : "the peer closed while the ULP decided";
    case State::await_rtr:
      return timed_out ? "no RTR before the timeout" : "the peer closed before its RTR";
    default:
      return "the MPA Startup Phase failed";
  }
}

Step Handshake::llp_closed() {
  if (state_ == State::established || state_ == State::closed || state_ == State::rejected) return {};
  const bool retry =
      state_ == State::await_reply && request_.is_enhanced() && rx_len_ == 0 && policy_.retry_unenhanced;
  Step s = fail(kstd::err::connreset);
  s.retry_unenhanced = retry;
  return s;
}

}  // namespace xiw::mpa

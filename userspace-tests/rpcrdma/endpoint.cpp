// SPDX-License-Identifier: GPL-2.0
// RPC-over-RDMA endpoint decisions: version, credits, inline sizes, and
// the answer to each received message.
#include "endpoint.h"

#include <algorithm>

namespace rpcrdma {
namespace {

// Applies the Receive Buffer Size of a decoded CONNPROP or UPDPROP to
// *@peer_rbsiz (never below the Version One default); false if it names
// none.
bool learn_rbsiz(const PropMsg& m, uint32_t* peer_rbsiz) {
  uint32_t v = 0;
  if (m.type != OptType::connprop && m.type != OptType::updprop) return false;
  if (!m.set.u32(kPropRbsiz, &v) || !v) return false;
  *peer_rbsiz = std::max(v, kDefaultInline);
  return true;
}

// The header of an RPC message sent inline (MSG).
Header msg_header(uint32_t xid, uint32_t vers, uint32_t credit, Direction dir) {
  Header h;
  h.xid = xid;
  h.vers = vers;
  h.credit = credit;
  h.proc = Proc::msg;
  h.dir = dir;
  return h;
}

Header connprop_header(uint32_t xid, Direction dir, uint32_t rbsiz, uint8_t* body, size_t len) {
  PropMsg m;
  m.type = OptType::connprop;
  const U32Value size(rbsiz), brs(kBrsNone);
  m.set.add(kPropRbsiz, size.bytes());
  m.set.add(kPropBrs, brs.bytes());
  Header h;
  h.xid = xid;
  h.proc = Proc::optional;
  h.optional.dir = dir;
  h.optional.type = uint32_t(OptType::connprop);
  h.optional.info = xdr::Bytes(body, encode_props(m, xdr::MutableBytes(body, len)));
  return h;
}

uint32_t limit(uint32_t agreed, uint32_t peer_rbsiz) {
  return peer_rbsiz ? std::min(agreed, peer_rbsiz) : agreed;
}

}  // namespace

Inline agree(const PrivateData& ours, const PrivateData& peer) {
  return {std::min(ours.send_size, peer.recv_size), std::min(ours.recv_size, peer.send_size)};
}

uint32_t pick_version(uint32_t low, uint32_t high) {
  if (low <= kVersionTwo && kVersionTwo <= high) return kVersionTwo;
  if (low <= kVersionOne && kVersionOne <= high) return kVersionOne;
  return 0;
}

// ---- requester ---------------------------------------------------------------

uint32_t Requester::send_inline() const {
  if (!granted_ && version_ == kVersionTwo) return std::min(inline_.send, kDefaultInline);
  return limit(inline_.send, peer_rbsiz_);
}

Header Requester::call(uint32_t xid) {
  outstanding_++;
  return again(xid);
}

Header Requester::again(uint32_t xid) const {
  return msg_header(xid, version_, max_credits_, Direction::call);
}

Header Requester::connprop(uint32_t xid, uint8_t* body, size_t len) {
  connprop_sent_ = true;
  return connprop_header(xid, Direction::call, inline_.recv, body, len);
}

Requester::Received Requester::receive(xdr::Bytes msg) {
  Received r;
  Header h;
  const Decoded d = decode(msg, &h);
  if (d.status != Status::ok) return r;  // bad
  r.xid = h.xid;
  if (h.proc == Proc::error) {
    r.error = h.error;
    if (h.error.code == ErrCode::vers) {
      const uint32_t v = pick_version(h.error.vers_low, h.error.vers_high);
      if (v && v != version_) {
        version_ = v;
        r.what = Outcome::resend;
        return r;
      }
    }
    if (outstanding_) outstanding_--;
    r.what = Outcome::failed;
    return r;
  }
  if (h.vers != version_) return r;  // bad
  if (h.proc == Proc::optional) {
    if (h.optional.dir != Direction::reply) return r;  // bad
    PropMsg m;
    const bool known = decode_props(h.optional.type, h.optional.info, &m) == PropStatus::ok;
    r.what = known && learn_rbsiz(m, &peer_rbsiz_) ? Outcome::property : Outcome::ignored;
    return r;
  }
  // A reply: MSG with the reply inline, or NOMSG with all of it written
  // into the reply chunk the call offered (returned with its length).
  const bool in_chunk = h.proc == Proc::nomsg && h.chunks.has_reply;
  if ((h.proc != Proc::msg && !in_chunk) || (h.vers == kVersionTwo && h.dir != Direction::reply) ||
      !outstanding_)
    return r;
  outstanding_--;
  granted_ = true;
  credits_ = std::clamp(h.credit, 1u, max_credits_);
  r.what = Outcome::reply;
  r.rpc = d.length;
  r.header = h;
  return r;
}

// ---- responder ---------------------------------------------------------------

uint32_t Responder::send_inline() const { return limit(inline_.send, peer_rbsiz_); }

Header Responder::reply(uint32_t xid, uint32_t vers) const {
  return msg_header(xid, vers, credits_, Direction::reply);
}

Header Responder::connprop(uint32_t xid, uint8_t* body, size_t len) {
  connprop_sent_ = true;
  return connprop_header(xid, Direction::reply, inline_.recv, body, len);
}

Responder::Request Responder::receive(xdr::Bytes msg) {
  Request q;
  Prefix p;
  if (!peek_prefix(msg, &p)) return q;  // bad: no xid to answer
  const uint32_t high = two_ ? kVersionTwo : kVersionOne;
  q.xid = p.xid;
  q.vers = p.vers;
  Header h;
  Decoded d;
  if (p.vers < kVersionOne || p.vers > high)
    d.status = Status::vers;
  else
    d = decode(msg, &h);
  if (d.status != Status::ok) {
    q.what = Action::error;
    q.answer = error_for(p, d.status, credits_, high);
    return q;
  }
  const bool v2 = h.vers == kVersionTwo;
  switch (h.proc) {
    case Proc::msg:
      // Backward-direction replies: this responder offers none
      // (Backward Request Support NONE).
      if (v2 && h.dir != Direction::call) {
        q.what = Action::none;
        return q;
      }
      // A responder that does not serve chunks refuses them with the
      // limit they exceed, 0.
      if (!chunks_ && (h.chunks.nreads || h.chunks.nwrites || h.chunks.has_reply)) {
        q.what = Action::error;
        q.answer = error_for(p, h.chunks.nreads ? Status::read_chunks : Status::write_chunks, credits_, high);
        q.answer.error.max = 0;
        if (h.chunks.has_reply && !h.chunks.nreads && !h.chunks.nwrites)
          q.answer.error = {ErrCode::reply_resource};
        if (!v2) q.answer.error = Error{ErrCode::bad_xdr};
        return q;
      }
      if (v2) seen_two_ = true;
      q.what = Action::call;
      q.rpc = d.length;
      q.req = h;
      return q;
    case Proc::optional: {
      const uint32_t type = h.optional.type;
      if (type == uint32_t(OptType::connprop) || type == uint32_t(OptType::updprop)) {
        PropMsg m;
        if (decode_props(type, h.optional.info, &m) != PropStatus::ok) {
          q.what = Action::error;
          q.answer = error_for(p, Status::bad_xdr, credits_, high);
          return q;
        }
        learn_rbsiz(m, &peer_rbsiz_);
        q.what = Action::property;
        return q;
      }
      // REQPROP and RESPROP are not supported (the seed lets an
      // implementation leave them out), nor any other type.
      q.what = Action::error;
      q.answer = error_for(p, Status::ok, credits_, high);
      q.answer.error = Error{ErrCode::inval_option};
      return q;
    }
    case Proc::nomsg:  // a Long Call: its message is in a read chunk
      if (chunks_ && (!v2 || h.dir == Direction::call)) {
        const auto reads = h.chunks.read_list();
        if (!reads.empty() && reads[0].position == 0) {
          if (v2) seen_two_ = true;
          q.what = Action::call;
          q.rpc = d.length;
          q.req = h;
          return q;
        }
        q.what = Action::error;
        q.answer = error_for(p, Status::bad_xdr, credits_, high);
        return q;
      }
      q.what = Action::error;
      q.answer = error_for(p, Status::read_chunks, credits_, high);
      q.answer.error.max = 0;
      if (!v2) q.answer.error = Error{ErrCode::bad_xdr};
      return q;
    default:  // RDMA_ERROR: errors never flow to a responder
      q.what = Action::none;
      return q;
  }
}

}  // namespace rpcrdma

// SPDX-License-Identifier: GPL-2.0
// The decisions of an RPC-over-RDMA endpoint, without I/O: which version a
// requester speaks and when it falls back, how many calls it may have
// outstanding (credits), how large an inline message may be, and what a
// responder answers each received message with. The verbs layer
// (verbs.h) moves the octets; these classes say what they must be.
#pragma once

#include <cstddef>
#include <cstdint>

#include "header.h"
#include "private_data.h"
#include "props.h"

namespace rpcrdma {

// The inline sizes both sides agreed to (RFC 8797): a side sends at most
// what the other receives.
struct Inline {
  uint32_t send = kDefaultInline;
  uint32_t recv = kDefaultInline;
};
Inline agree(const PrivateData& ours, const PrivateData& peer);

// The highest version in [low, high] that this library speaks, or 0.
uint32_t pick_version(uint32_t low, uint32_t high);

class Requester {
 public:
  // @version: the first version to try (Two, or One for a peer known to
  // speak only One). @credits: the most calls we will have outstanding.
  Requester(uint32_t version, uint32_t credits) : version_(version), max_credits_(credits) {}

  void connected(const PrivateData& ours, const PrivateData& peer) { inline_ = agree(ours, peer); }

  uint32_t version() const { return version_; }
  // Until the responder has granted credits (its first valid non-error
  // reply), one call at a time, and in Version Two at most 1024 octets:
  // the responder may speak only Version One and its defaults.
  uint32_t credits() const { return granted_ ? credits_ : 1; }
  bool may_send() const { return outstanding_ < credits(); }
  uint32_t send_inline() const;
  uint32_t recv_inline() const { return inline_.recv; }
  bool peer_accepts_invalidate() const { return peer_inv_; }
  void set_peer_accepts_invalidate(bool v) { peer_inv_ = v; }

  // The header of a new call @xid sent inline (MSG), counted outstanding.
  // Its RPC message follows it in the same Send.
  Header call(uint32_t xid);
  // The same call again after ERR_VERS (still outstanding).
  Header again(uint32_t xid) const;

  // A CONNPROP to send once Version Two is confirmed (the first valid
  // reply in it), announcing our receive buffer size; false if not due.
  bool connprop_due() const { return version_ == kVersionTwo && granted_ && !connprop_sent_; }
  Header connprop(uint32_t xid, uint8_t* body, size_t len);

  enum class Outcome : uint8_t {
    reply,     // the RPC reply follows at .rpc
    resend,    // ERR_VERS named a version we speak: send .xid again
    failed,    // an RDMA_ERROR for .xid (in .error), or no common version
    property,  // a property operation from the responder, applied
    ignored,   // an OPTIONAL we do not know; nothing to answer
    bad,       // not a valid reply: the connection should be closed
  };
  struct Received {
    Outcome what = Outcome::bad;
    uint32_t xid = 0;
    size_t rpc = 0;  // offset of the RPC message
    Error error;
    Header header;  // a reply's transport header (its write list)
  };
  Received receive(xdr::Bytes msg);

 private:
  uint32_t version_;
  uint32_t max_credits_;
  uint32_t credits_ = 1;
  uint32_t outstanding_ = 0;
  bool granted_ = false;
  bool connprop_sent_ = false;
  bool peer_inv_ = false;
  uint32_t peer_rbsiz_ = 0;  // 0: not announced
  Inline inline_;
};

class Responder {
 public:
  // @credits: the grant (receive buffers posted). @speaks_two: false for a
  // responder of Version One only, as Linux's nfsd is. @serves_chunks:
  // calls with chunk lists (and Long Calls, NOMSG with a Position Zero
  // read chunk) are passed on in Request::req; otherwise refused.
  Responder(uint32_t credits, bool speaks_two, bool serves_chunks = false)
      : credits_(credits), two_(speaks_two), chunks_(serves_chunks) {}

  void connected(const PrivateData& ours, const PrivateData& peer) { inline_ = agree(ours, peer); }
  uint32_t send_inline() const;

  enum class Action : uint8_t {
    call,      // an RPC call follows at .rpc: answer with reply(.xid, .vers)
    error,     // send .answer (an RDMA_ERROR)
    property,  // a property operation, applied
    none,      // nothing to do
    bad,       // too short to answer: close the connection
  };
  struct Request {
    Action what = Action::bad;
    uint32_t xid = 0;
    uint32_t vers = 0;
    size_t rpc = 0;  // NOMSG: the message is all in the read chunk
    Header answer;
    Header req;  // a call's transport header, with its chunk lists
  };
  Request receive(xdr::Bytes msg);

  // The header of the reply to call @xid, in the version it came in.
  Header reply(uint32_t xid, uint32_t vers) const;
  // A CONNPROP to send after the first Version Two call.
  bool connprop_due() const { return seen_two_ && !connprop_sent_; }
  Header connprop(uint32_t xid, uint8_t* body, size_t len);

 private:
  uint32_t credits_;
  bool two_;
  bool chunks_;
  bool seen_two_ = false;
  bool connprop_sent_ = false;
  uint32_t peer_rbsiz_ = 0;
  Inline inline_;
};

}  // namespace rpcrdma

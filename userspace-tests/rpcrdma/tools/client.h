// SPDX-License-Identifier: GPL-2.0
// The requester's side of one call for the rpcrdma tools: the transport
// header with the chunks a call needs, the Send, the wait for the answer,
// the call sent again in the version an ERR_VERS names, and the reply
// handed back checked at the transport level (endpoint.h decides, this
// moves the octets).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rpcrdma/endpoint.h"
#include "rpcrdma/xdr.h"
#include "verbs.h"

namespace rpcrdma::tools {

// Prints "TOOL: WHAT" and exits 1.
[[noreturn]] void die(const std::string& what);
// The name die() prints; set once by main().
extern const char* g_tool;

// Registered memory for what goes by RDMA: the call's data (or all of a
// Long Call) is read from arg by the responder; results are written into
// res.
struct Ddp {
  std::vector<uint8_t> arg, res;
  ibv_mr* arg_mr = nullptr;
  ibv_mr* res_mr = nullptr;
  // Registers @size octets of each (and dies if it cannot).
  void reg(Conn& c, size_t size);
  void dereg();
};

// What a call sends by RDMA.
struct Plan {
  // The first read_len octets of Ddp::arg, read by the responder, at XDR
  // position read_pos of the call (0: a Long Call, the whole message,
  // sent NOMSG).
  bool read_chunk = false;
  uint32_t read_pos = 0, read_len = 0;
  // One write chunk of write_len octets of Ddp::res (a result's data).
  bool write_chunk = false;
  uint32_t write_len = 0;
  // All of Ddp::res as the reply chunk: the whole reply comes written
  // there, announced by a NOMSG reply.
  bool reply_chunk = false;
};

class Client {
 public:
  Client(Conn& c, Requester& rq, Ddp& d, bool quiet) : c_(c), rq_(rq), d_(d), quiet_(quiet) {}

  struct Reply {
    Header header;             // the reply's transport header (its write list)
    std::vector<uint8_t> rpc;  // the RPC reply: inline, or from the reply chunk
    double usec = 0;           // the round trip, from the last Send
  };
  // Sends call @xid whose RPC message is @inl (what stays inline: all of
  // it, or up to the read chunk's position; nothing for a Long Call),
  // with @plan's chunks; again in another version after ERR_VERS. Dies on
  // any error, an RDMA_ERROR included.
  Reply call(uint32_t xid, const std::vector<uint8_t>& inl, const Plan& plan);
  // A CONNPROP, if one is due, as call @*xid (advanced).
  void connprop(uint32_t* xid);

  uint32_t fell_back_from() const { return fell_back_from_; }
  uint32_t vers_low() const { return vers_low_; }
  uint32_t vers_high() const { return vers_high_; }
  uint32_t ddp_calls() const { return ddp_calls_; }

 private:
  size_t build(const Header& h, const std::vector<uint8_t>& inl);
  void add_chunks(const Plan& plan, Header* h);
  bool await(uint32_t xid, uint32_t sent_version, const Plan& plan, Reply* out);

  Conn& c_;
  Requester& rq_;
  Ddp& d_;
  bool quiet_;
  uint32_t fell_back_from_ = 0;
  uint32_t vers_low_ = 0, vers_high_ = 0;
  uint32_t ddp_calls_ = 0;
};

}  // namespace rpcrdma::tools

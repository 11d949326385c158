// SPDX-License-Identifier: GPL-2.0
#include "client.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rpcrdma::tools {

const char* g_tool = "rpcrdma";

void die(const std::string& what) {
  fprintf(stderr, "%s: %s\n", g_tool, what.c_str());
  exit(1);
}

namespace {

const char* err_name(ErrCode c) {
  static const char* const names[] = {
      "?",        "ERR_VERS",       "BAD_XDR (ERR_CHUNK)", "INVAL_PROC",   "READ_CHUNKS", "WRITE_CHUNKS",
      "SEGMENTS", "WRITE_RESOURCE", "REPLY_RESOURCE",      "INVAL_OPTION", "SYSTEM"};
  return uint32_t(c) <= 10 ? names[uint32_t(c)] : "unknown error";
}

}  // namespace

void Ddp::reg(Conn& c, size_t size) {
  std::string err;
  arg.resize(size);
  res.resize(size);
  arg_mr = c.reg(arg.data(), arg.size(), IBV_ACCESS_REMOTE_READ, &err);
  res_mr = c.reg(res.data(), res.size(), IBV_ACCESS_REMOTE_WRITE, &err);
  if (!arg_mr || !res_mr) die(err);
}

void Ddp::dereg() {
  if (arg_mr) ibv_dereg_mr(arg_mr);
  if (res_mr) ibv_dereg_mr(res_mr);
  arg_mr = res_mr = nullptr;
}

// Header and inline RPC message into the send buffer; 0 if over the
// inline size.
size_t Client::build(const Header& h, const std::vector<uint8_t>& inl) {
  const size_t n = encode(h, xdr::MutableBytes(c_.send_buf(), c_.send_room()));
  if (!n || n + inl.size() > rq_.send_inline() || n + inl.size() > c_.send_room()) return 0;
  memcpy(c_.send_buf() + n, inl.data(), inl.size());
  return n + inl.size();
}

void Client::add_chunks(const Plan& plan, Header* h) {
  if (plan.read_chunk) {
    if (plan.read_pos == 0) h->proc = Proc::nomsg;
    h->chunks.add_read({plan.read_pos, {d_.arg_mr->rkey, plan.read_len, uintptr_t(d_.arg.data())}});
  }
  if (plan.reply_chunk) {
    std::fill(d_.res.begin(), d_.res.end(), 0);
    const Segment seg{d_.res_mr->rkey, uint32_t(d_.res.size()), uintptr_t(d_.res.data())};
    h->chunks.set_reply({&seg, 1});
  }
  if (plan.write_chunk) {
    std::fill(d_.res.begin(), d_.res.begin() + plan.write_len, 0);
    const Segment seg{d_.res_mr->rkey, plan.write_len, uintptr_t(d_.res.data())};
    h->chunks.add_write({&seg, 1});
  }
}

// Waits for the answer to @xid. True once its reply is in @out; false if
// the call must be sent again (ERR_VERS named another version).
bool Client::await(uint32_t xid, uint32_t sent_version, const Plan& plan, Reply* out) {
  std::string err;
  for (;;) {
    xdr::Bytes msg;
    const int r = c_.recv(&msg, 10000, &err);
    if (r < 0) die("no reply to xid " + std::to_string(xid) + " within 10 s");
    if (r == 0) die(err.empty() ? "the connection ended" : err);
    const Requester::Received got = rq_.receive(msg);
    switch (got.what) {
      case Requester::Outcome::resend:
        if (got.xid != xid) die("ERR_VERS for an xid not sent");
        fell_back_from_ = sent_version;
        vers_low_ = got.error.vers_low;
        vers_high_ = got.error.vers_high;
        printf("%s: version %u refused (ERR_VERS %u..%u): continuing in version %u\n", g_tool, sent_version,
               got.error.vers_low, got.error.vers_high, rq_.version());
        if (!c_.release(&err)) die(err);
        return false;
      case Requester::Outcome::failed:
        die(std::string("RDMA_ERROR ") + err_name(got.error.code) + " for xid " + std::to_string(got.xid));
      case Requester::Outcome::bad:
        die("a malformed or unexpected message from the responder");
      case Requester::Outcome::property:
        if (!quiet_) printf("%s: the responder's properties received\n", g_tool);
        break;
      case Requester::Outcome::ignored:
        break;
      case Requester::Outcome::reply: {
        if (got.xid != xid) die("reply to an xid not outstanding");
        out->header = got.header;
        if (plan.reply_chunk) {
          // All of the reply was written into our reply chunk; its
          // length comes back in the chunk's one segment.
          const Chunks& ch = got.header.chunks;
          if (got.header.proc != Proc::nomsg || !ch.has_reply || ch.reply_chunk().size() != 1 ||
              ch.reply_chunk()[0].length > d_.res.size())
            die("the reply did not come in the reply chunk offered");
          out->rpc.assign(d_.res.begin(), d_.res.begin() + ch.reply_chunk()[0].length);
        } else {
          const xdr::Bytes rpc = msg.subspan(got.rpc);
          out->rpc.assign(rpc.begin(), rpc.end());
        }
        if (!c_.release(&err)) die(err);
        return true;
      }
    }
    if (!c_.release(&err)) die(err);
  }
}

Client::Reply Client::call(uint32_t xid, const std::vector<uint8_t>& inl, const Plan& plan) {
  std::string err;
  const bool ddp = plan.read_chunk || plan.write_chunk || plan.reply_chunk;
  if (ddp && (!d_.arg_mr || plan.read_len > d_.arg.size() || plan.write_len > d_.res.size()))
    die("no registered memory for call " + std::to_string(xid));
  if (ddp) ddp_calls_++;
  Header h = rq_.call(xid);
  Reply out;
  for (;;) {
    add_chunks(plan, &h);
    const size_t len = build(h, inl);
    if (!len)
      die("call of " + std::to_string(inl.size()) + " inline octets does not fit (" +
          std::to_string(rq_.send_inline()) + ")");
    const auto t0 = std::chrono::steady_clock::now();
    if (!c_.send(len, &err)) die(err);
    if (await(xid, h.vers, plan, &out)) {
      out.usec = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      return out;
    }
    h = rq_.again(xid);
  }
}

void Client::connprop(uint32_t* xid) {
  if (!rq_.connprop_due()) return;
  std::string err;
  uint8_t body[64];
  const size_t len = build(rq_.connprop((*xid)++, body, sizeof(body)), {});
  if (!len || !c_.send(len, &err)) die("sending CONNPROP: " + err);
}

}  // namespace rpcrdma::tools

// SPDX-License-Identifier: GPL-2.0
// rpcrdma-ping: RPC calls over RPC-over-RDMA, like rping for RPC. It
// connects, offers Version Two (or the version given), falls back as the
// responder says, sends NULL calls (or ECHO calls with -s), checks every
// reply, and prints the version agreed and the round-trip times.
//
//   rpcrdma-ping [-v 1|2] [-p port] [-c count] [-s size] [-P prog] [-V vers]
//                [-x proc] [-q] [-e version] [-L] [-R] [-r connections] host
//
// -s size: ECHO calls of that many octets (checked when they come back);
// an argument that does not fit inline goes in a read chunk, a result that
// would not fit in a write chunk; -L: every ECHO call as a Long Call (the
// whole message in a Position Zero read chunk, sent NOMSG); -R: a result
// that would not fit inline comes back as a whole reply written into a
// reply chunk (NOMSG) instead of a write chunk;
// -e version: fail unless the calls ended in that version;
// -r connections: that many connections one after the other, each with
// its calls; without -v, each offers first the version the responder's
// answers on the earlier ones suggest (peer.h: after ERR_VERS without
// Two, One).
//
// Against Linux's NFS server: rpcrdma-ping -p 20049 -P 100003 -V 3 host
// Exit status 0 only if every call got a successful reply.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <infiniband/verbs.h>

#include "rpcrdma/endpoint.h"
#include "rpcrdma/peer.h"
#include "rpcrdma/rpc.h"
#include "verbs.h"

using namespace rpcrdma;

namespace {

struct Options {
  uint32_t version = 0;  // -v: 0, what PeerMemory says
  const char* port = "20049";
  uint32_t count = 4;
  int32_t size = -1;  // -1: NULL calls; else ECHO with this many octets
  uint32_t prog = rpc::kTestProg, vers = rpc::kTestVers, proc = rpc::kProcNull;
  bool quiet = false;
  uint32_t expect = 0;       // -e: the version the calls must end in
  bool long_call = false;    // -L: ECHO calls as Long Calls
  bool reply_chunk = false;  // -R: large results in a reply chunk
  uint32_t connections = 1;  // -r
  const char* host = nullptr;
};

[[noreturn]] void usage() {
  fprintf(stderr,
          "usage: rpcrdma-ping [-v 1|2] [-p port] [-c count] [-s size] [-P prog] [-V vers] [-x proc] [-q] "
          "[-e version] [-L] [-R] [-r connections] host\n");
  exit(2);
}

[[noreturn]] void die(const std::string& what) {
  fprintf(stderr, "rpcrdma-ping: %s\n", what.c_str());
  exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  int c;
  while ((c = getopt(argc, argv, "v:p:c:s:P:V:x:qe:LRr:")) != -1) {
    switch (c) {
      case 'v':
        o.version = strtoul(optarg, nullptr, 0);
        if (o.version != kVersionOne && o.version != kVersionTwo) usage();
        break;
      case 'p':
        o.port = optarg;
        break;
      case 'c':
        o.count = strtoul(optarg, nullptr, 0);
        break;
      case 's':
        o.size = int32_t(strtol(optarg, nullptr, 0));
        if (o.size < 0) usage();
        o.proc = rpc::kProcEcho;
        break;
      case 'P':
        o.prog = strtoul(optarg, nullptr, 0);
        break;
      case 'V':
        o.vers = strtoul(optarg, nullptr, 0);
        break;
      case 'x':
        o.proc = strtoul(optarg, nullptr, 0);
        break;
      case 'q':
        o.quiet = true;
        break;
      case 'e':
        o.expect = strtoul(optarg, nullptr, 0);
        break;
      case 'L':
        o.long_call = true;
        break;
      case 'R':
        o.reply_chunk = true;
        break;
      case 'r':
        o.connections = strtoul(optarg, nullptr, 0);
        if (!o.connections) usage();
        break;
      default:
        usage();
    }
  }
  if (optind + 1 != argc) usage();
  o.host = argv[optind];
  return o;
}

const char* err_name(ErrCode c) {
  static const char* const names[] = {
      "?",        "ERR_VERS",       "BAD_XDR (ERR_CHUNK)", "INVAL_PROC",   "READ_CHUNKS", "WRITE_CHUNKS",
      "SEGMENTS", "WRITE_RESOURCE", "REPLY_RESOURCE",      "INVAL_OPTION", "SYSTEM"};
  return uint32_t(c) <= 10 ? names[uint32_t(c)] : "unknown error";
}

// The RPC message of call @xid: the header, then ECHO's opaque argument
// of @size octets (none if @size < 0).
std::vector<uint8_t> rpc_call(const Options& o, uint32_t xid, uint32_t proc, int32_t size,
                              std::vector<uint8_t>* arg) {
  std::vector<uint8_t> out(64 + (size > 0 ? size_t(size) : 0));
  xdr::Writer w(out);
  rpc::encode_call(w, {xid, o.prog, o.vers, proc});
  if (size >= 0) {
    arg->resize(size_t(size));
    for (size_t i = 0; i < arg->size(); i++) (*arg)[i] = uint8_t(xid * 7 + i * 13 + (i >> 8));
    w.opaque(*arg);
  }
  out.resize(w.length());
  return out;
}

// Header and RPC message into the send buffer; 0 if over the inline size
// (chunks are not offered yet).
size_t build(tools::Conn& c, const Header& h, const std::vector<uint8_t>& rpcmsg, uint32_t limit) {
  const size_t n = encode(h, xdr::MutableBytes(c.send_buf(), c.send_room()));
  if (!n || n + rpcmsg.size() > limit || n + rpcmsg.size() > c.send_room()) return 0;
  memcpy(c.send_buf() + n, rpcmsg.data(), rpcmsg.size());
  return n + rpcmsg.size();
}

// Registered memory for calls and results that go by RDMA: the call's
// data (or all of a Long Call) is read from @arg by the responder, ECHO's
// result written into @res.
struct Ddp {
  std::vector<uint8_t> arg, res;
  ibv_mr* arg_mr = nullptr;
  ibv_mr* res_mr = nullptr;
};

struct Session {
  const Options& o;
  tools::Conn& c;
  Requester& rq;
  Ddp& d;
  uint32_t fell_back_from = 0;
  uint32_t vers_low = 0, vers_high = 0;  // the ERR_VERS range, if one came
  uint32_t ddp_calls = 0;
};

// What a call sends by RDMA.
struct Plan {
  bool read_chunk = false;   // the data item (or, for a Long Call, the message)
  bool write_chunk = false;  // ECHO's result
  bool reply_chunk = false;  // all of the reply (-R), sent NOMSG
};

// Waits for the answer to @xid. True once its reply is checked; false if
// the call must be sent again (ERR_VERS named another version).
bool await(Session& s, uint32_t xid, uint32_t sent_version, const std::vector<uint8_t>& arg, bool echo,
           const Plan& plan) {
  std::string err;
  for (;;) {
    xdr::Bytes msg;
    const int r = s.c.recv(&msg, 10000, &err);
    if (r < 0) die("no reply to xid " + std::to_string(xid) + " within 10 s");
    if (r == 0) die(err.empty() ? "the connection ended" : err);
    const Requester::Received got = s.rq.receive(msg);
    switch (got.what) {
      case Requester::Outcome::resend:
        if (got.xid != xid) die("ERR_VERS for an xid not sent");
        s.fell_back_from = sent_version;
        s.vers_low = got.error.vers_low;
        s.vers_high = got.error.vers_high;
        printf("rpcrdma-ping: version %u refused (ERR_VERS %u..%u): continuing in version %u\n", sent_version,
               got.error.vers_low, got.error.vers_high, s.rq.version());
        if (!s.c.release(&err)) die(err);
        return false;
      case Requester::Outcome::failed:
        die(std::string("RDMA_ERROR ") + err_name(got.error.code) + " for xid " + std::to_string(got.xid));
      case Requester::Outcome::bad:
        die("a malformed or unexpected message from the responder");
      case Requester::Outcome::property:
        if (!s.o.quiet) printf("rpcrdma-ping: the responder's properties received\n");
        break;
      case Requester::Outcome::ignored:
        break;
      case Requester::Outcome::reply: {
        if (got.xid != xid) die("reply to an xid not outstanding");
        xdr::Bytes rpcmsg = msg.subspan(got.rpc);
        if (plan.reply_chunk) {
          // All of the reply was written into our reply chunk; its length
          // comes back in the chunk's one segment.
          const Chunks& ch = got.header.chunks;
          if (got.header.proc != Proc::nomsg || !ch.has_reply || ch.reply_chunk().size() != 1 ||
              ch.reply_chunk()[0].length > s.d.res.size())
            die("the reply did not come in the reply chunk offered");
          rpcmsg = xdr::Bytes(s.d.res.data(), ch.reply_chunk()[0].length);
        }
        xdr::Reader rr(rpcmsg);
        rpc::Reply reply;
        if (!rpc::decode_reply(rr, &reply) || reply.xid != xid) die("malformed RPC reply");
        if (!reply.accepted || reply.stat != rpc::kSuccess)
          die("RPC call refused: " + std::string(reply.accepted ? "accept_stat " : "reject_stat ") +
              std::to_string(reply.stat));
        if (echo && plan.write_chunk) {
          // The result's length stays inline; its data came by RDMA WRITE,
          // and the write list returned says how much (one segment).
          const Chunks& w = got.header.chunks;
          if (w.nwrites != 1 || w.write_chunk(0).size() != 1 || w.write_chunk(0)[0].length != arg.size())
            die("the reply's write list does not account for the result");
          if (rr.u32() != arg.size() || !rr.ok() || !std::equal(arg.begin(), arg.end(), s.d.res.begin()))
            die("ECHO result written into the write chunk differs from the call's data");
        } else if (echo) {
          const xdr::Bytes back = rr.opaque();
          if (!rr.ok() || back.size() != arg.size() || !std::equal(back.begin(), back.end(), arg.begin()))
            die("ECHO reply differs from the call's data");
        }
        if (!s.c.release(&err)) die(err);
        return true;
      }
    }
    if (!s.c.release(&err)) die(err);
  }
}

// One call, sent again in the version the responder names; its round trip
// in microseconds (from the last send).
// The offset of ECHO's data in its call: the RPC header and the length.
constexpr uint32_t kEchoDataPos = 44;
// Room kept for the transport header beside an inline RPC message.
constexpr size_t kHeaderRoom = 128;

// Adds the chunks of @plan to @h; @inl becomes what stays inline.
void add_chunks(Session& s, const Plan& plan, const std::vector<uint8_t>& rpcmsg,
                const std::vector<uint8_t>& arg, Header* h, std::vector<uint8_t>* inl) {
  *inl = rpcmsg;
  if (plan.read_chunk && s.o.long_call) {
    std::copy(rpcmsg.begin(), rpcmsg.end(), s.d.arg.begin());
    h->proc = Proc::nomsg;
    h->chunks.add_read({0, {s.d.arg_mr->rkey, uint32_t(rpcmsg.size()), uintptr_t(s.d.arg.data())}});
    inl->clear();
  } else if (plan.read_chunk) {
    std::copy(arg.begin(), arg.end(), s.d.arg.begin());
    h->chunks.add_read({kEchoDataPos, {s.d.arg_mr->rkey, uint32_t(arg.size()), uintptr_t(s.d.arg.data())}});
    inl->resize(kEchoDataPos);
  }
  if (plan.reply_chunk) {
    std::fill(s.d.res.begin(), s.d.res.end(), 0);
    const Segment seg{s.d.res_mr->rkey, uint32_t(s.d.res.size()), uintptr_t(s.d.res.data())};
    h->chunks.set_reply({&seg, 1});
  }
  if (plan.write_chunk) {
    std::fill(s.d.res.begin(), s.d.res.begin() + arg.size(), 0);
    const Segment seg{s.d.res_mr->rkey, uint32_t(arg.size()), uintptr_t(s.d.res.data())};
    h->chunks.add_write({&seg, 1});
  }
}

double call(Session& s, uint32_t xid, uint32_t proc, int32_t size) {
  std::string err;
  std::vector<uint8_t> arg;
  const std::vector<uint8_t> rpcmsg = rpc_call(s.o, xid, proc, size, &arg);
  // DDP-eligible: ECHO's argument and result (RFC 8166 section 6's rule
  // for an upper layer binding, as NFS READ and WRITE data).
  Plan plan;
  const bool echo = proc == rpc::kProcEcho && size >= 0;
  plan.read_chunk = echo && (s.o.long_call || rpcmsg.size() + kHeaderRoom > s.rq.send_inline());
  const bool big_result = echo && 28 + xdr::pad4(arg.size()) + kHeaderRoom > s.rq.recv_inline();
  plan.write_chunk = big_result && !s.o.reply_chunk;
  plan.reply_chunk = big_result && s.o.reply_chunk;
  const bool ddp = plan.read_chunk || plan.write_chunk || plan.reply_chunk;
  if (ddp && (!s.d.arg_mr || rpcmsg.size() > s.d.arg.size()))
    die("no registered memory for a call of " + std::to_string(rpcmsg.size()) + " octets");
  if (ddp) s.ddp_calls++;
  Header h = s.rq.call(xid);
  std::vector<uint8_t> inl;
  for (;;) {
    add_chunks(s, plan, rpcmsg, arg, &h, &inl);
    const size_t len = build(s.c, h, inl, s.rq.send_inline());
    if (!len)
      die("call of " + std::to_string(rpcmsg.size()) + " octets does not fit inline (" +
          std::to_string(s.rq.send_inline()) + "); chunks are not offered yet");
    const auto t0 = std::chrono::steady_clock::now();
    if (!s.c.send(len, &err)) die(err);
    if (await(s, xid, h.vers, arg, echo, plan))
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    h = s.rq.again(xid);
  }
}

// One connection and its calls; the version they ended in. What the
// responder's answers showed goes into @mem.
uint32_t run(const Options& o, PeerMemory& mem, const std::string& peer) {
  std::string err;
  const PrivateData ours{4096, 4096, false};
  tools::Buffers bufs;
  tools::Conn* c = tools::Conn::connect(o.host, o.port, ours, bufs, &err);
  if (!c) die(err);
  const uint32_t first = o.version ? o.version : mem.first_version(peer);
  Requester rq(first, bufs.nrecv);
  rq.connected(ours, c->peer());
  printf("rpcrdma-ping: connected to %s:%s, peer's inline send %u receive %u%s, offering version %u%s\n",
         o.host, o.port, c->peer().send_size, c->peer().recv_size,
         c->peer().remote_invalidate ? ", remote invalidation" : "", first,
         !o.version && first != kVersionTwo ? " (remembered)" : "");
  Ddp d;
  if (o.size > 0) {
    d.arg.resize(size_t(o.size) + 64);
    d.res.resize(size_t(o.size) + 64);
    d.arg_mr = c->reg(d.arg.data(), d.arg.size(), IBV_ACCESS_REMOTE_READ, &err);
    d.res_mr = c->reg(d.res.data(), d.res.size(), IBV_ACCESS_REMOTE_WRITE, &err);
    if (!d.arg_mr || !d.res_mr) die(err);
  }
  Session s{o, *c, rq, d};
  const uint32_t base = uint32_t(getpid()) << 12;
  static uint32_t xid_next = 0;
  uint32_t xid = base + xid_next;
  // The first message of a connection must fit the responder's defaults
  // (1024 octets, one credit): a NULL call goes first when ours would not.
  if (o.size > 512) call(s, xid++, rpc::kProcNull, -1);
  std::vector<double> rtt;
  for (uint32_t i = 0; i < o.count; i++) {
    rtt.push_back(call(s, xid, o.proc, o.size));
    if (!o.quiet)
      printf("rpcrdma-ping: xid %#x version %u: reply in %.0f us\n", xid, rq.version(), rtt.back());
    xid++;
    if (rq.connprop_due()) {
      uint8_t body[64];
      const size_t len = build(*c, rq.connprop(xid++, body, sizeof(body)), {}, rq.send_inline());
      if (!len || !c->send(len, &err)) die("sending CONNPROP: " + err);
    }
  }
  xid_next = xid - base;
  if (s.fell_back_from) mem.err_vers(peer, s.vers_low, s.vers_high);
  mem.replied(peer, rq.version());
  std::sort(rtt.begin(), rtt.end());
  double sum = 0;
  for (double v : rtt) sum += v;
  printf("rpcrdma-ping: %u calls, version %u", o.count, rq.version());
  if (s.fell_back_from) printf(" (fell back from %u)", s.fell_back_from);
  if (!rtt.empty())
    printf(", rtt min/median/avg/max %.0f/%.0f/%.0f/%.0f us", rtt.front(), rtt[rtt.size() / 2],
           sum / rtt.size(), rtt.back());
  printf(", credits %u, inline send %u, calls with chunks %u\n", rq.credits(), rq.send_inline(), s.ddp_calls);
  if (d.arg_mr) ibv_dereg_mr(d.arg_mr);
  if (d.res_mr) ibv_dereg_mr(d.res_mr);
  delete c;
  return rq.version();
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  PeerMemory mem;
  const std::string peer = std::string(o.host) + ":" + o.port;
  for (uint32_t i = 0; i < o.connections; i++) {
    const uint32_t v = run(o, mem, peer);
    if (o.expect && v != o.expect) {
      fprintf(stderr, "rpcrdma-ping: ended in version %u, expected %u\n", v, o.expect);
      return 1;
    }
  }
  return 0;
}

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
#include "client.h"
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

// The offset of ECHO's data in its call: the RPC header and the length.
constexpr uint32_t kEchoDataPos = 44;
// Room kept for the transport header beside an inline RPC message.
constexpr size_t kHeaderRoom = 128;

// One call, checked; its round trip in microseconds. ECHO's argument and
// result are DDP-eligible (RFC 8166 section 6's rule for an upper layer
// binding, as NFS READ and WRITE data): an argument that does not fit
// inline goes in a read chunk at its position (or the whole call as a
// Long Call with -L), a result that would not fit comes back in a write
// chunk (or, with -R, the whole reply in the reply chunk).
double call(const Options& o, tools::Client& cl, Requester& rq, tools::Ddp& d, uint32_t xid, uint32_t proc,
            int32_t size) {
  std::vector<uint8_t> arg;
  const std::vector<uint8_t> rpcmsg = rpc_call(o, xid, proc, size, &arg);
  const bool echo = proc == rpc::kProcEcho && size >= 0;
  tools::Plan plan;
  plan.read_chunk = echo && (o.long_call || rpcmsg.size() + kHeaderRoom > rq.send_inline());
  const bool big_result = echo && 28 + xdr::pad4(arg.size()) + kHeaderRoom > rq.recv_inline();
  plan.write_chunk = big_result && !o.reply_chunk;
  plan.reply_chunk = big_result && o.reply_chunk;
  if ((plan.read_chunk || big_result) && (!d.arg_mr || rpcmsg.size() > d.arg.size()))
    tools::die("no registered memory for a call of " + std::to_string(rpcmsg.size()) + " octets");
  std::vector<uint8_t> inl = rpcmsg;
  if (plan.read_chunk && o.long_call) {
    std::copy(rpcmsg.begin(), rpcmsg.end(), d.arg.begin());
    plan.read_len = uint32_t(rpcmsg.size());
    inl.clear();
  } else if (plan.read_chunk) {
    std::copy(arg.begin(), arg.end(), d.arg.begin());
    plan.read_pos = kEchoDataPos;
    plan.read_len = uint32_t(arg.size());
    inl.resize(kEchoDataPos);
  }
  if (plan.write_chunk) plan.write_len = uint32_t(arg.size());
  const tools::Client::Reply rep = cl.call(xid, inl, plan);
  xdr::Reader rr(rep.rpc);
  rpc::Reply reply;
  if (!rpc::decode_reply(rr, &reply) || reply.xid != xid) tools::die("malformed RPC reply");
  if (!reply.accepted || reply.stat != rpc::kSuccess)
    tools::die("RPC call refused: " + std::string(reply.accepted ? "accept_stat " : "reject_stat ") +
               std::to_string(reply.stat));
  if (echo && plan.write_chunk) {
    // The result's length stays inline; its data came by RDMA WRITE, and
    // the write list returned says how much (one segment).
    const Chunks& w = rep.header.chunks;
    if (w.nwrites != 1 || w.write_chunk(0).size() != 1 || w.write_chunk(0)[0].length != arg.size())
      tools::die("the reply's write list does not account for the result");
    if (rr.u32() != arg.size() || !rr.ok() || !std::equal(arg.begin(), arg.end(), d.res.begin()))
      tools::die("ECHO result written into the write chunk differs from the call's data");
  } else if (echo) {
    const xdr::Bytes back = rr.opaque();
    if (!rr.ok() || back.size() != arg.size() || !std::equal(back.begin(), back.end(), arg.begin()))
      tools::die("ECHO reply differs from the call's data");
  }
  return rep.usec;
}

// One connection and its calls; the version they ended in. What the
// responder's answers showed goes into @mem.
uint32_t run(const Options& o, PeerMemory& mem, const std::string& peer) {
  std::string err;
  const PrivateData ours{4096, 4096, false};
  tools::Buffers bufs;
  tools::Conn* c = tools::Conn::connect(o.host, o.port, ours, bufs, &err);
  if (!c) tools::die(err);
  const uint32_t first = o.version ? o.version : mem.first_version(peer);
  Requester rq(first, bufs.nrecv);
  rq.connected(ours, c->peer());
  printf("rpcrdma-ping: connected to %s:%s, peer's inline send %u receive %u%s, offering version %u%s\n",
         o.host, o.port, c->peer().send_size, c->peer().recv_size,
         c->peer().remote_invalidate ? ", remote invalidation" : "", first,
         !o.version && first != kVersionTwo ? " (remembered)" : "");
  tools::Ddp d;
  if (o.size > 0) d.reg(*c, size_t(o.size) + 64);
  tools::Client cl(*c, rq, d, o.quiet);
  const uint32_t base = uint32_t(getpid()) << 12;
  static uint32_t xid_next = 0;
  uint32_t xid = base + xid_next;
  // The first message of a connection must fit the responder's defaults
  // (1024 octets, one credit): a NULL call goes first when ours would not.
  if (o.size > 512) call(o, cl, rq, d, xid++, rpc::kProcNull, -1);
  std::vector<double> rtt;
  for (uint32_t i = 0; i < o.count; i++) {
    rtt.push_back(call(o, cl, rq, d, xid, o.proc, o.size));
    if (!o.quiet)
      printf("rpcrdma-ping: xid %#x version %u: reply in %.0f us\n", xid, rq.version(), rtt.back());
    xid++;
    cl.connprop(&xid);
  }
  xid_next = xid - base;
  if (cl.fell_back_from()) mem.err_vers(peer, cl.vers_low(), cl.vers_high());
  mem.replied(peer, rq.version());
  std::sort(rtt.begin(), rtt.end());
  double sum = 0;
  for (double v : rtt) sum += v;
  printf("rpcrdma-ping: %u calls, version %u", o.count, rq.version());
  if (cl.fell_back_from()) printf(" (fell back from %u)", cl.fell_back_from());
  if (!rtt.empty())
    printf(", rtt min/median/avg/max %.0f/%.0f/%.0f/%.0f us", rtt.front(), rtt[rtt.size() / 2],
           sum / rtt.size(), rtt.back());
  printf(", credits %u, inline send %u, calls with chunks %u\n", rq.credits(), rq.send_inline(),
         cl.ddp_calls());
  d.dereg();
  delete c;
  return rq.version();
}

}  // namespace

int main(int argc, char** argv) {
  tools::g_tool = "rpcrdma-ping";
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

// SPDX-License-Identifier: GPL-2.0
// rpcrdma-server: serves the test program (NULL and ECHO) over
// RPC-over-RDMA, Version Two and One (or One only, as Linux's nfsd), one
// connection at a time. Every refused message is answered with the error
// the version in use defines.
//
//   rpcrdma-server [-v 1|2] [-a addr] [-p port] [-n connections]
//
// For each connection it prints one line: the peer, the calls served in
// each version, and the errors sent.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rpcrdma/endpoint.h"
#include "rpcrdma/rpc.h"
#include "verbs.h"

using namespace rpcrdma;

namespace {

struct Options {
  uint32_t version = kVersionTwo;
  const char* addr = nullptr;
  const char* port = "20049";
  long connections = -1;  // -1: serve forever
};

[[noreturn]] void usage() {
  fprintf(stderr, "usage: rpcrdma-server [-v 1|2] [-a addr] [-p port] [-n connections]\n");
  exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  int c;
  while ((c = getopt(argc, argv, "v:a:p:n:")) != -1) {
    switch (c) {
      case 'v':
        o.version = strtoul(optarg, nullptr, 0);
        if (o.version != kVersionOne && o.version != kVersionTwo) usage();
        break;
      case 'a':
        o.addr = optarg;
        break;
      case 'p':
        o.port = optarg;
        break;
      case 'n':
        o.connections = strtol(optarg, nullptr, 0);
        break;
      default:
        usage();
    }
  }
  if (optind != argc) usage();
  return o;
}

struct Counts {
  uint32_t calls[3] = {};  // by version
  uint32_t errors = 0;
  uint32_t props = 0;
  uint32_t ddp = 0;           // calls with chunks
  uint32_t reply_chunks = 0;  // replies sent in a reply chunk
};

// Registered memory for calls pulled from read chunks and results pushed
// into write chunks: the largest either may be.
constexpr size_t kDdpMax = 2u << 20;

struct Ddp {
  std::vector<uint8_t> in, out;
  ibv_mr* in_mr = nullptr;
  ibv_mr* out_mr = nullptr;
};

Header error_header(const Responder& rs, const Responder::Request& q, Error e) {
  Header h = rs.reply(q.xid, q.vers);
  h.proc = Proc::error;
  h.error = q.vers == kVersionTwo ? e : Error{ErrCode::bad_xdr};  // ERR_CHUNK
  return h;
}

// The whole RPC call: inline, or with its one read chunk pulled by RDMA
// READ and put back at its position (RFC 8166 section 3.5.3). False with
// the error to send.
bool gather(tools::Conn& c, const Responder::Request& q, xdr::Bytes inl, Ddp& d, std::vector<uint8_t>* call,
            Error* e, std::string* err) {
  const auto reads = q.req.chunks.read_list();
  if (reads.empty()) {
    call->assign(inl.begin(), inl.end());
    return true;
  }
  const uint32_t pos = reads[0].position;
  size_t total = 0;
  for (const ReadSegment& r : reads) {
    if (r.position != pos) {
      *e = {ErrCode::read_chunks, 0, 0, 1};
      return false;
    }
    total += r.target.length;
  }
  if (total > kDdpMax || pos > inl.size() || pos % 4) {
    *e = {total > kDdpMax ? ErrCode::system : ErrCode::bad_xdr};
    return false;
  }
  size_t at = 0;
  for (const ReadSegment& r : reads) {
    if (r.target.length &&
        !c.read(d.in.data() + at, r.target.length, d.in_mr, r.target.offset, r.target.handle, err))
      return false;
    at += r.target.length;
  }
  call->assign(inl.begin(), inl.begin() + pos);
  call->insert(call->end(), d.in.begin(), d.in.begin() + total);
  call->resize(call->size() + xdr::pad4(total) - total, 0);
  call->insert(call->end(), inl.begin() + pos, inl.end());
  return true;
}

// The RPC reply to @call: its header into @w; ECHO's result also into
// @w, or, if @to_chunk, only its length (the data goes by RDMA WRITE):
// *@data is set to it.
void answer(xdr::Bytes call_msg, xdr::Writer& w, bool to_chunk, xdr::Bytes* data) {
  xdr::Reader r(call_msg);
  rpc::Call call;
  *data = {};
  if (!rpc::decode_call(r, &call)) return rpc::encode_reply(w, call.xid, rpc::kGarbageArgs);
  if (call.prog != rpc::kTestProg) return rpc::encode_reply(w, call.xid, rpc::kProgUnavail);
  if (call.vers != rpc::kTestVers) return rpc::encode_reply(w, call.xid, rpc::kProgMismatch);
  if (call.proc == rpc::kProcNull) return rpc::encode_reply(w, call.xid, rpc::kSuccess);
  if (call.proc != rpc::kProcEcho) return rpc::encode_reply(w, call.xid, rpc::kProcUnavail);
  const xdr::Bytes arg = r.opaque();
  if (!r.ok()) return rpc::encode_reply(w, call.xid, rpc::kGarbageArgs);
  rpc::encode_reply(w, call.xid, rpc::kSuccess);
  if (to_chunk)
    w.u32(uint32_t(arg.size()));  // the data item leaves the XDR stream
  else
    w.opaque(arg);
  *data = arg;
}

bool send_header(tools::Conn& c, const Header& h, std::string* err) {
  const size_t n = encode(h, xdr::MutableBytes(c.send_buf(), c.send_room()));
  return n && c.send(n, err);
}

// Pushes @data into the first write chunk and returns the reply's write
// list: that chunk's segments trimmed to what was written, the others
// emptied (RFC 8166 section 4.4.2). False with the error to send.
bool push(tools::Conn& c, const Chunks& offered, xdr::Bytes data, Ddp& d, Chunks* used, Error* e,
          std::string* err) {
  const auto chunk = offered.write_chunk(0);
  uint64_t room = 0;
  for (const Segment& s : chunk) room += s.length;
  if (room < data.size() || data.size() > kDdpMax) {
    *e = {ErrCode::write_resource, 0, 0, 0, 1, uint32_t(data.size())};
    return false;
  }
  std::copy(data.begin(), data.end(), d.in.begin());  // free once the call is gathered
  size_t at = 0;
  std::vector<Segment> segs;
  for (const Segment& s : chunk) {
    const uint32_t n = uint32_t(std::min<size_t>(s.length, data.size() - at));
    if (n && !c.write(d.in.data() + at, n, d.in_mr, s.offset, s.handle, err)) return false;
    segs.push_back({s.handle, n, s.offset});
    at += n;
  }
  used->add_write(segs);
  for (uint32_t i = 1; i < offered.nwrites; i++) {
    segs.clear();
    for (const Segment& s : offered.write_chunk(i)) segs.push_back({s.handle, 0, s.offset});
    used->add_write(segs);
  }
  return true;
}

// Writes the RPC reply staged in d.out (@len octets) into the reply
// chunk; *@used is that chunk trimmed to what was written. False with the
// error to send (the chunk too small: REPLY_RESOURCE and the length).
bool push_reply(tools::Conn& c, const Chunks& offered, size_t len, Ddp& d, Chunks* used, Error* e,
                std::string* err) {
  uint64_t room = 0;
  for (const Segment& s : offered.reply_chunk()) room += s.length;
  if (room < len) {
    *e = {ErrCode::reply_resource};
    e->length_needed = uint32_t(len);
    return false;
  }
  size_t at = 0;
  std::vector<Segment> segs;
  for (const Segment& s : offered.reply_chunk()) {
    const uint32_t n = uint32_t(std::min<size_t>(s.length, len - at));
    if (n && !c.write(d.out.data() + at, n, d.out_mr, s.offset, s.handle, err)) return false;
    segs.push_back({s.handle, n, s.offset});
    at += n;
  }
  used->set_reply(segs);
  return true;
}

// Answers one call: the reply inline (MSG), or all of it in the reply
// chunk (NOMSG) when it does not fit. False if the connection must end.
bool serve_call(tools::Conn& c, Responder& rs, const Responder::Request& q, xdr::Bytes msg, Ddp& d, Counts& n,
                std::string* err) {
  if (rs.connprop_due()) {
    uint8_t body[64];
    if (!send_header(c, rs.connprop(q.xid ^ 0x80000000u, body, sizeof(body)), err)) return false;
  }
  std::vector<uint8_t> call;
  Error e;
  const auto refuse = [&](const Error& why) {
    if (!err->empty()) return false;
    n.errors++;
    return send_header(c, error_header(rs, q, why), err);
  };
  if (!gather(c, q, msg.subspan(q.rpc), d, &call, &e, err)) return refuse(e);
  const Chunks& offered = q.req.chunks;
  const bool to_chunk = offered.nwrites > 0;
  Header h = rs.reply(q.xid, q.vers);
  xdr::Writer w(xdr::MutableBytes(d.out.data(), d.out.size()));  // the RPC reply, in registered memory
  xdr::Bytes data;
  answer(call, w, to_chunk, &data);
  if (!w.ok()) return refuse({ErrCode::system});
  if (to_chunk && !data.empty() && !push(c, offered, data, d, &h.chunks, &e, err)) return refuse(e);
  const size_t limit = std::min<size_t>(rs.send_inline(), c.send_room());
  size_t hl = encode(h, xdr::MutableBytes(c.send_buf(), c.send_room()));
  if (hl && hl + w.length() <= limit) {
    memcpy(c.send_buf() + hl, d.out.data(), w.length());
    hl += w.length();
  } else if (offered.has_reply) {
    if (!push_reply(c, offered, w.length(), d, &h.chunks, &e, err)) return refuse(e);
    h.proc = Proc::nomsg;
    hl = encode(h, xdr::MutableBytes(c.send_buf(), c.send_room()));
    if (!hl) return refuse({ErrCode::system});
    n.reply_chunks++;
  } else {
    Error big{ErrCode::reply_resource};
    big.length_needed = uint32_t(hl + w.length());
    return refuse(big);
  }
  n.calls[q.vers]++;
  if (!offered.read_list().empty() || to_chunk || offered.has_reply) n.ddp++;
  return c.send(hl, err);
}

// Serves one connection until the peer goes.
Counts serve(tools::Conn& c, Responder& rs) {
  Counts n;
  std::string err;
  Ddp d;
  d.in.resize(kDdpMax);
  d.out.resize(kDdpMax);
  d.in_mr = c.reg(d.in.data(), d.in.size(), 0, &err);
  d.out_mr = c.reg(d.out.data(), d.out.size(), 0, &err);
  while (d.in_mr && d.out_mr) {
    xdr::Bytes msg;
    if (c.recv(&msg, -1, &err) <= 0) break;
    const Responder::Request q = rs.receive(msg);
    bool ok = true;
    switch (q.what) {
      case Responder::Action::call:
        ok = serve_call(c, rs, q, msg, d, n, &err);
        break;
      case Responder::Action::error:
        n.errors++;
        ok = send_header(c, q.answer, &err);
        break;
      case Responder::Action::property:
        n.props++;
        break;
      case Responder::Action::none:
        break;
      case Responder::Action::bad:
        ok = false;
        err = "a message too short to answer";
        break;
    }
    if (!ok || !c.release(&err)) break;
  }
  if (!err.empty()) fprintf(stderr, "rpcrdma-server: %s: %s\n", c.peer_name().c_str(), err.c_str());
  if (d.in_mr) ibv_dereg_mr(d.in_mr);
  if (d.out_mr) ibv_dereg_mr(d.out_mr);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::string err;
  tools::Listener* l = tools::Listener::listen(o.addr, o.port, &err);
  if (!l) {
    fprintf(stderr, "rpcrdma-server: %s\n", err.c_str());
    return 1;
  }
  printf("rpcrdma-server: listening on %s:%s, versions 1..%u\n", o.addr ? o.addr : "*", o.port, o.version);
  fflush(stdout);
  const PrivateData ours{4096, 4096, false};
  tools::Buffers bufs;
  bufs.nrecv = 32;
  for (long i = 0; o.connections < 0 || i < o.connections; i++) {
    tools::Conn* c = l->accept(ours, bufs, &err);
    if (!c) {
      fprintf(stderr, "rpcrdma-server: %s\n", err.c_str());
      continue;
    }
    Responder rs(bufs.nrecv, o.version == kVersionTwo, true);
    rs.connected(ours, c->peer());
    const Counts n = serve(*c, rs);
    printf(
        "rpcrdma-server: %s: calls v1 %u v2 %u (with chunks %u, replies in a reply chunk %u), errors sent "
        "%u, "
        "properties received %u\n",
        c->peer_name().c_str(), n.calls[1], n.calls[2], n.ddp, n.reply_chunks, n.errors, n.props);
    fflush(stdout);
    delete c;
  }
  delete l;
  return 0;
}

// SPDX-License-Identifier: GPL-2.0
// rpcrdma-nfs: NFSv4.0 operations against an NFS server over
// RPC-over-RDMA, through the same requester as rpcrdma-ping (Version Two
// offered first, Version One after ERR_VERS, as Linux's nfsd answers):
//
//   rpcrdma-nfs [-p port] [-e version] [-s size] host file wfile
//
//   NULL        of NFSv4
//   lookup      PUTROOTFH, LOOKUP of each component of FILE, GETFH,
//               GETATTR (type, size)
//   long-call   the same COMPOUND as a Long Call (NOMSG, the whole call
//               in a Position Zero read chunk): the same handle back
//   read        READ of all of FILE (anonymous stateid) into a write
//               chunk; its FNV-1a 64 printed
//   write       WRITE, FILE_SYNC4, of SIZE octets (octet i is
//               (i * 7 + 3) mod 256) from a read chunk at offset 0 of
//               WFILE, an existing file; its FNV-1a 64 printed
//   readdir     READDIR of FILE's directory, the whole reply written into
//               a reply chunk; the names printed
//
// Paths are relative to the server's NFSv4 root. Credentials: AUTH_SYS,
// uid and gid 0. -e: fail unless the calls ended in that version. Exit
// status 0 only if every operation succeeded and checked out.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client.h"
#include "rpcrdma/endpoint.h"
#include "rpcrdma/nfs4.h"
#include "rpcrdma/peer.h"
#include "rpcrdma/rpc.h"
#include "verbs.h"

using namespace rpcrdma;

namespace {

struct Options {
  const char* port = "20049";
  uint32_t expect = 0;
  uint32_t size = 200000;
  const char* host = nullptr;
  std::string file, wfile;
};

[[noreturn]] void usage() {
  fprintf(stderr, "usage: rpcrdma-nfs [-p port] [-e version] [-s size] host file wfile\n");
  exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  int c;
  while ((c = getopt(argc, argv, "p:e:s:")) != -1) {
    switch (c) {
      case 'p':
        o.port = optarg;
        break;
      case 'e':
        o.expect = strtoul(optarg, nullptr, 0);
        break;
      case 's':
        o.size = strtoul(optarg, nullptr, 0);
        if (!o.size || o.size > (1u << 20)) usage();
        break;
      default:
        usage();
    }
  }
  if (optind + 3 != argc) usage();
  o.host = argv[optind];
  o.file = argv[optind + 1];
  o.wfile = argv[optind + 2];
  return o;
}

uint64_t fnv1a64(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    const size_t j = path.find('/', i);
    const size_t end = j == std::string::npos ? path.size() : j;
    if (end > i) out.push_back(path.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

// The largest READ, WRITE and reply the tool asks for.
constexpr uint32_t kMaxData = 1u << 20;

// How a call's octets travel: all inline; its data item (the position
// the arguments' writer returns, the octets already in Ddp::arg) by a
// read chunk; or all of it as a Long Call.
enum class Send { inline_only, data_item, long_call };

class Nfs {
 public:
  Nfs(tools::Client& cl, tools::Ddp& d, uint32_t xid) : cl_(cl), d_(d), xid_(xid) {}

  // A call whose arguments @args writes after the call header (returning
  // the data item's position, if any). Returns the RPC reply's body
  // (after the accepted-success header).
  template <typename Args>
  std::vector<uint8_t> call(uint32_t proc, Send how, tools::Plan plan, Args args) {
    std::vector<uint8_t> msg(64 * 1024);
    xdr::Writer w(msg);
    const rpc::AuthSys cred{0, "xiw", 0, 0};
    const uint32_t xid = xid_++;
    rpc::encode_call(w, {xid, nfs4::kProg, nfs4::kVers, proc}, &cred);
    const size_t pos = args(w);
    msg.resize(w.length());
    if (!w.ok()) tools::die("the call does not fit its buffer");
    std::vector<uint8_t> inl = msg;
    if (how == Send::long_call) {
      std::copy(msg.begin(), msg.end(), d_.arg.begin());
      plan.read_chunk = true;
      plan.read_pos = 0;
      plan.read_len = uint32_t(msg.size());
      inl.clear();
    } else if (how == Send::data_item) {  // the stream ends with the item's length
      plan.read_chunk = true;
      plan.read_pos = uint32_t(pos);
    }
    const tools::Client::Reply rep = cl_.call(xid, inl, plan);
    last_ = rep.header;
    xdr::Reader r(rep.rpc);
    rpc::Reply reply;
    if (!rpc::decode_reply(r, &reply) || reply.xid != xid) tools::die("malformed RPC reply");
    if (!reply.accepted || reply.stat != rpc::kSuccess)
      tools::die("RPC call refused: " + std::string(reply.accepted ? "accept_stat " : "reject_stat ") +
                 std::to_string(reply.stat));
    const xdr::Bytes rest = r.rest();
    cl_.connprop(&xid_);
    return {rest.begin(), rest.end()};
  }

  const Header& last() const { return last_; }

 private:
  tools::Client& cl_;
  tools::Ddp& d_;
  uint32_t xid_;
  Header last_;
};

void check(bool ok, const nfs4::Results& res, const char* what) {
  if (!ok) tools::die(std::string(what) + " failed: NFS4 status " + std::to_string(res.status()));
}

// PUTROOTFH, LOOKUP each component, GETFH, GETATTR; as a Long Call if
// @long_call.
nfs4::Fh lookup(Nfs& nfs, const std::vector<std::string>& path, bool long_call, uint32_t* type,
                uint64_t* size) {
  const Send how = long_call ? Send::long_call : Send::inline_only;
  const std::vector<uint8_t> body = nfs.call(nfs4::kProcCompound, how, {}, [&](xdr::Writer& w) {
    nfs4::Compound c(w, long_call ? "long-call" : "lookup", uint32_t(path.size() + 3));
    c.putrootfh();
    for (const std::string& p : path) c.lookup(p);
    c.getfh();
    c.getattr_type_size();
    return size_t{0};
  });
  xdr::Reader r(body);
  nfs4::Results res(r);
  check(res.putrootfh(), res, "PUTROOTFH");
  for (size_t i = 0; i < path.size(); i++) check(res.lookup(), res, ("LOOKUP " + path[i]).c_str());
  nfs4::Fh fh;
  check(res.getfh(&fh), res, "GETFH");
  check(res.getattr_type_size(type, size), res, "GETATTR");
  return fh;
}

}  // namespace

int main(int argc, char** argv) {
  tools::g_tool = "rpcrdma-nfs";
  const Options o = parse(argc, argv);
  std::string err;
  const PrivateData ours{4096, 4096, false};
  tools::Buffers bufs;
  tools::Conn* c = tools::Conn::connect(o.host, o.port, ours, bufs, &err);
  if (!c) tools::die(err);
  PeerMemory mem;
  Requester rq(mem.first_version(std::string(o.host) + ":" + o.port), bufs.nrecv);
  rq.connected(ours, c->peer());
  tools::Ddp d;
  d.reg(*c, kMaxData + 4096);
  tools::Client cl(*c, rq, d, true);
  Nfs nfs(cl, d, uint32_t(getpid()) << 12);

  nfs.call(0, Send::inline_only, {}, [](xdr::Writer&) { return size_t{0}; });
  printf("rpcrdma-nfs: NULL: ok, version %u\n", rq.version());

  const std::vector<std::string> path = components(o.file);
  if (path.empty()) usage();
  uint32_t type = 0;
  uint64_t size = 0;
  const nfs4::Fh fh = lookup(nfs, path, false, &type, &size);
  printf("rpcrdma-nfs: lookup %s: type %u, %llu octets, handle of %u octets\n", o.file.c_str(), type,
         (unsigned long long)size, fh.len);
  if (type != nfs4::kTypeReg || size > kMaxData) tools::die(o.file + ": not a regular file of at most 1 MiB");

  uint32_t type2 = 0;
  uint64_t size2 = 0;
  const nfs4::Fh fh2 = lookup(nfs, path, true, &type2, &size2);
  if (fh2.len != fh.len || !std::equal(fh.b.begin(), fh.b.begin() + fh.len, fh2.b.begin()) || size2 != size)
    tools::die("the Long Call's LOOKUP returned another handle or size");
  printf("rpcrdma-nfs: long-call: the same handle and size\n");

  // READ of the whole file into a write chunk.
  tools::Plan rplan;
  rplan.write_chunk = true;
  rplan.write_len = uint32_t(size);
  std::vector<uint8_t> body = nfs.call(nfs4::kProcCompound, Send::inline_only, rplan, [&](xdr::Writer& w) {
    nfs4::Compound cpd(w, "read", 2);
    cpd.putfh(fh);
    cpd.read(0, uint32_t(size));
    return size_t{0};
  });
  {
    xdr::Reader r(body);
    nfs4::Results res(r);
    check(res.putfh(), res, "PUTFH");
    bool eof = false;
    uint32_t len = 0;
    check(res.read(&eof, &len, nullptr), res, "READ");
    const Chunks& ch = nfs.last().chunks;
    if (len != size || ch.nwrites != 1 || ch.write_chunk(0).size() != 1 || ch.write_chunk(0)[0].length != len)
      tools::die("READ: " + std::to_string(len) + " octets, the write list does not account for them");
    printf("rpcrdma-nfs: read %s: %u octets by a write chunk%s, fnv1a64 %016llx\n", o.file.c_str(), len,
           eof ? ", eof" : "", (unsigned long long)fnv1a64(d.res.data(), len));
  }

  // WRITE from a read chunk.
  const std::vector<std::string> wpath = components(o.wfile);
  if (wpath.empty()) usage();
  const nfs4::Fh wfh = lookup(nfs, wpath, false, &type, &size);
  for (uint32_t i = 0; i < o.size; i++) d.arg[i] = uint8_t(i * 7 + 3);
  tools::Plan wplan;
  wplan.read_len = o.size;
  body = nfs.call(nfs4::kProcCompound, Send::data_item, wplan, [&](xdr::Writer& w) {
    nfs4::Compound cpd(w, "write", 2);
    cpd.putfh(wfh);
    return cpd.write(0, {d.arg.data(), o.size}, false);
  });
  {
    xdr::Reader r(body);
    nfs4::Results res(r);
    check(res.putfh(), res, "PUTFH");
    uint32_t count = 0, committed = 0;
    check(res.write(&count, &committed), res, "WRITE");
    if (count != o.size || committed != nfs4::kFileSync)
      tools::die("WRITE: " + std::to_string(count) + " octets, committed " + std::to_string(committed));
    printf("rpcrdma-nfs: write %s: %u octets by a read chunk, FILE_SYNC4, fnv1a64 %016llx\n", o.wfile.c_str(),
           count, (unsigned long long)fnv1a64(d.arg.data(), o.size));
  }

  // READDIR of FILE's directory, the reply in a reply chunk.
  std::vector<std::string> dir(path.begin(), path.end() - 1);
  uint32_t dtype = 0;
  uint64_t dsize = 0;
  const nfs4::Fh dfh = lookup(nfs, dir, false, &dtype, &dsize);
  tools::Plan dplan;
  dplan.reply_chunk = true;
  body = nfs.call(nfs4::kProcCompound, Send::inline_only, dplan, [&](xdr::Writer& w) {
    nfs4::Compound cpd(w, "readdir", 2);
    cpd.putfh(dfh);
    cpd.readdir(8192, 65536);
    return size_t{0};
  });
  {
    xdr::Reader r(body);
    nfs4::Results res(r);
    check(res.putfh(), res, "PUTFH");
    std::string names;
    uint32_t n = 0;
    bool eof = false;
    check(res.readdir(
              [&](std::string_view name) {
                names += " " + std::string(name);
                n++;
              },
              &eof),
          res, "READDIR");
    printf("rpcrdma-nfs: readdir: %u entries by a reply chunk%s:%s\n", n, eof ? ", eof" : "", names.c_str());
  }

  printf("rpcrdma-nfs: version %u%s, calls with chunks %u\n", rq.version(),
         cl.fell_back_from() ? " (fell back from 2)" : "", cl.ddp_calls());
  d.dereg();
  delete c;
  if (o.expect && rq.version() != o.expect) {
    fprintf(stderr, "rpcrdma-nfs: ended in version %u, expected %u\n", rq.version(), o.expect);
    return 1;
  }
  return 0;
}

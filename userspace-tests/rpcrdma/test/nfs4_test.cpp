// SPDX-License-Identifier: GPL-2.0
// The NFSv4.0 COMPOUND subset (RFC 7531's XDR) and AUTH_SYS (RFC 5531
// appendix A) against hand-written layouts.
#include "rpcrdma/nfs4.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rpcrdma/rpc.h"
#include "rpcrdma/test/words.h"

namespace {

using namespace rpcrdma;
using test::Bytes;
using test::cat;
using test::words;

TEST(RpcRdmaNfs4, AuthSysCall) {
  Bytes out(128);
  xdr::Writer w(out);
  const rpc::AuthSys cred{7, "vm1", 0, 0};
  rpc::encode_call(w, {0x10, nfs4::kProg, nfs4::kVers, nfs4::kProcCompound}, &cred);
  out.resize(w.length());
  // xid, CALL, 2, prog, vers, proc; AUTH_SYS (1), body of 24 octets: stamp,
  // "vm1" padded, uid, gid, no gids; AUTH_NONE verifier.
  EXPECT_EQ(out, words({0x10, 0, 2, 100003, 4, 1, 1, 24, 7, 3, 0x766d3100, 0, 0, 0, 0, 0}));
  // It decodes as a call whose credential is skipped.
  xdr::Reader r(out);
  rpc::Call c;
  ASSERT_TRUE(rpc::decode_call(r, &c));
  EXPECT_TRUE(r.rest().empty());
  // A machine name longer than 255 octets fails the writer.
  const std::string name(256, 'm');
  const rpc::AuthSys too_long{0, name, 0, 0};
  Bytes out2(512);
  xdr::Writer w2(out2);
  rpc::encode_call(w2, {1, 1, 1, 1}, &too_long);
  EXPECT_FALSE(w2.ok());
}

TEST(RpcRdmaNfs4, LookupCompound) {
  Bytes out(256);
  xdr::Writer w(out);
  nfs4::Compound c(w, "t", 4);
  c.putrootfh();
  c.lookup("f1");
  c.getfh();
  c.getattr_type_size();
  out.resize(w.length());
  EXPECT_EQ(out, words({1, 0x74000000, 0, 4,             // tag "t", minorversion 0, 4 ops
                        24,                              // PUTROOTFH
                        15, 2, 0x66310000,               // LOOKUP "f1"
                        10,                              // GETFH
                        9, 1, (1u << 1) | (1u << 4)}));  // GETATTR {type, size}
}

TEST(RpcRdmaNfs4, ReadAndWrite) {
  Bytes out(256);
  xdr::Writer w(out);
  nfs4::Fh fh;
  fh.len = 4;
  fh.b[0] = 0xab;
  nfs4::Compound c(w, "", 3);
  c.putfh(fh);
  c.read(0x100000000ull, 4096);
  const Bytes data = {1, 2, 3, 4, 5};
  const size_t pos = c.write(8, data, false);
  out.resize(w.length());
  const Bytes want = words({0,  0, 3,                                  // tag "", minorversion, 3 ops
                            22, 4, 0xab000000,                         // PUTFH
                            25, 0, 0,          0, 0, 1, 0, 4096,       // READ anonymous stateid
                            38, 0, 0,          0, 0, 0, 8, 2,    5});  // WRITE, FILE_SYNC4, length 5 only
  EXPECT_EQ(out, want);
  EXPECT_EQ(pos, want.size());  // the data's octets would begin here
  // Inline, the octets follow, padded.
  Bytes out2(64);
  xdr::Writer w2(out2);
  nfs4::Compound c2(w2, "", 1);
  c2.write(0, data, true);
  out2.resize(w2.length());
  EXPECT_EQ(out2, words({0, 0, 1, 38, 0, 0, 0, 0, 0, 0, 2, 5, 0x01020304, 0x05000000}));
}

TEST(RpcRdmaNfs4, LookupResults) {
  const Bytes in = words({0,  0, 4,                                         // NFS4_OK, tag "", 4 results
                          24, 0, 15, 0,                                     // PUTROOTFH, LOOKUP
                          10, 0, 8,  0x01020304, 0x05060708,                // GETFH
                          9,  0, 1,  0x12,       12,         1, 0, 5000});  // GETATTR: regular, 5000 octets
  xdr::Reader r(in);
  nfs4::Results res(r);
  EXPECT_EQ(res.count(), 4u);
  EXPECT_TRUE(res.putrootfh());
  EXPECT_TRUE(res.lookup());
  nfs4::Fh fh;
  ASSERT_TRUE(res.getfh(&fh));
  EXPECT_EQ(Bytes(fh.bytes().begin(), fh.bytes().end()), words({0x01020304, 0x05060708}));
  uint32_t type = 0;
  uint64_t size = 0;
  ASSERT_TRUE(res.getattr_type_size(&type, &size));
  EXPECT_EQ(type, nfs4::kTypeReg);
  EXPECT_EQ(size, 5000u);
  EXPECT_TRUE(r.rest().empty());
  EXPECT_FALSE(res.putfh());  // no fifth result
}

TEST(RpcRdmaNfs4, FailedOpStopsTheResults) {
  // LOOKUP failed with NFS4ERR_NOENT (2): the COMPOUND's status is the
  // failing op's, and its results end there.
  const Bytes in = words({2, 0, 2, 24, 0, 15, 2});
  xdr::Reader r(in);
  nfs4::Results res(r);
  EXPECT_TRUE(res.putrootfh());
  EXPECT_FALSE(res.lookup());
  EXPECT_EQ(res.status(), 2u);
  EXPECT_TRUE(r.ok());
}

TEST(RpcRdmaNfs4, WrongOpOrTruncationFails) {
  const Bytes in = words({0, 0, 1, 22, 0});
  xdr::Reader r(in);
  nfs4::Results res(r);
  EXPECT_FALSE(res.putrootfh());  // it was PUTFH
  EXPECT_FALSE(r.ok());
  const Bytes cut = words({0, 0, 1, 10, 0, 8, 0x01020304});  // a GETFH short of its handle
  xdr::Reader r2(cut);
  nfs4::Results res2(r2);
  nfs4::Fh fh;
  EXPECT_FALSE(res2.getfh(&fh));
  // A handle longer than NFS4_FHSIZE is refused.
  Bytes big = words({0, 0, 1, 10, 0, 132});
  big.resize(big.size() + 132);
  xdr::Reader r3(big);
  nfs4::Results res3(r3);
  EXPECT_FALSE(res3.getfh(&fh));
}

TEST(RpcRdmaNfs4, ReadResults) {
  // By a write chunk: eof and the length stay, the octets went by RDMA.
  const Bytes chunked = words({0, 0, 2, 22, 0, 25, 0, 1, 70000});
  xdr::Reader r(chunked);
  nfs4::Results res(r);
  ASSERT_TRUE(res.putfh());
  bool eof = false;
  uint32_t len = 0;
  ASSERT_TRUE(res.read(&eof, &len, nullptr));
  EXPECT_TRUE(eof);
  EXPECT_EQ(len, 70000u);
  // Inline.
  const Bytes in = words({0, 0, 1, 25, 0, 0, 3, 0x61626300});
  xdr::Reader r2(in);
  nfs4::Results res2(r2);
  xdr::Bytes data;
  ASSERT_TRUE(res2.read(&eof, &len, &data));
  EXPECT_FALSE(eof);
  EXPECT_EQ(std::string(data.begin(), data.end()), "abc");
}

TEST(RpcRdmaNfs4, WriteAndReaddirResults) {
  const Bytes in =
      cat(words({0,  0, 2, 38, 0,          5, 2, 0xaaaa, 0xbbbb,  // WRITE: 5, FILE_SYNC4, verifier
                 26, 0, 0, 0,                                     // READDIR, cookieverf
                 1,  0, 1, 1,  0x61000000, 0, 0,                  // "a", no attributes
                 1,  0, 2, 2,  0x62620000, 0, 0}),                // "bb"
          words({0, 1}));                                         // no more; eof
  xdr::Reader r(in);
  nfs4::Results res(r);
  uint32_t count = 0, committed = 0;
  ASSERT_TRUE(res.write(&count, &committed));
  EXPECT_EQ(count, 5u);
  EXPECT_EQ(committed, nfs4::kFileSync);
  std::vector<std::string> names;
  bool eof = false;
  ASSERT_TRUE(res.readdir([&](std::string_view n) { names.emplace_back(n); }, &eof));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "bb"}));
  EXPECT_TRUE(eof);
  EXPECT_TRUE(r.rest().empty());
  // A list that never ends fails.
  const Bytes endless = words({0, 0, 1, 26, 0, 0, 0, 1, 0, 1, 1, 0x61000000, 0, 0, 1});
  xdr::Reader r2(endless);
  nfs4::Results res2(r2);
  EXPECT_FALSE(res2.readdir([](std::string_view) {}, &eof));
}

}  // namespace

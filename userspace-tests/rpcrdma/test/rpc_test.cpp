// SPDX-License-Identifier: GPL-2.0
// The ONC RPC headers the tools use (RFC 5531 section 9), against
// hand-written layouts.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rpcrdma/rpc.h"
#include "rpcrdma/test/words.h"

namespace {

using namespace rpcrdma;
using test::Bytes;
using test::words;

TEST(RpcRdmaOncRpc, NfsNullCall) {
  Bytes out(64);
  xdr::Writer w(out);
  rpc::encode_call(w, {0x77, 100003, 3, 0});
  out.resize(w.length());
  // xid, CALL, rpcvers 2, prog, vers, proc, AUTH_NONE credential and verifier
  EXPECT_EQ(out, words({0x77, 0, 2, 100003, 3, 0, 0, 0, 0, 0}));
  xdr::Reader r(out);
  rpc::Call c;
  ASSERT_TRUE(rpc::decode_call(r, &c));
  EXPECT_EQ(c.prog, 100003u);
  // A credential of another flavor is skipped, with its body.
  Bytes unix_cred = words({0x78, 0, 2, 1, 1, 1, 1, 8, 0xaaaa, 0xbbbb, 0, 0});
  xdr::Reader r2(unix_cred);
  ASSERT_TRUE(rpc::decode_call(r2, &c));
  EXPECT_TRUE(r2.rest().empty());
  // A REPLY, or RPC version 3, is not a call.
  const Bytes r3_in = words({0x79, 1, 2, 1, 1, 1, 0, 0, 0, 0});
  xdr::Reader r3(r3_in);
  EXPECT_FALSE(rpc::decode_call(r3, &c));
  const Bytes r4_in = words({0x79, 0, 3, 1, 1, 1, 0, 0, 0, 0});
  xdr::Reader r4(r4_in);
  EXPECT_FALSE(rpc::decode_call(r4, &c));
}

TEST(RpcRdmaOncRpc, Replies) {
  Bytes out(64);
  xdr::Writer w(out);
  rpc::encode_reply(w, 0x77, rpc::kProgMismatch);
  out.resize(w.length());
  EXPECT_EQ(out, words({0x77, 1, 0, 0, 0, 2, 1, 1}));
  xdr::Reader r(out);
  rpc::Reply rep;
  ASSERT_TRUE(rpc::decode_reply(r, &rep));
  EXPECT_TRUE(rep.accepted);
  EXPECT_EQ(rep.stat, uint32_t(rpc::kProgMismatch));
  EXPECT_TRUE(r.rest().empty());
  // MSG_DENIED, AUTH_ERROR (1) with auth_stat 1.
  const Bytes d_in = words({0x77, 1, 1, 1, 1});
  xdr::Reader d(d_in);
  ASSERT_TRUE(rpc::decode_reply(d, &rep));
  EXPECT_FALSE(rep.accepted);
  EXPECT_EQ(rep.stat, 1u);
  const Bytes bad_in = words({0x77, 1, 2});
  xdr::Reader bad(bad_in);
  EXPECT_FALSE(rpc::decode_reply(bad, &rep));
  const Bytes cut_in = words({0x77, 1, 0, 0});
  xdr::Reader cut(cut_in);
  EXPECT_FALSE(rpc::decode_reply(cut, &rep));
}

}  // namespace

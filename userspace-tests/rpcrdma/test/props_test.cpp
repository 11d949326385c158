// SPDX-License-Identifier: GPL-2.0
// Version Two transport property operations, carried as RDMA2_OPTIONAL
// types 1..4 (props.h says why), against layouts written out from the
// seed's XDR.
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <initializer_list>
#include <memory>
#include <vector>

#include "rpcrdma/header.h"
#include "rpcrdma/props.h"
#include "rpcrdma/test/words.h"

namespace {

using namespace rpcrdma;
using test::Bytes;
using test::words;

Bytes enc(const PropMsg& m) {
  Bytes out(1024);
  out.resize(encode_props(m, out));
  return out;
}

// Decodes from an exact-size heap copy (ASan sees any read past its end)
// that stays alive until the next call: the values are views into it.
PropStatus dec(uint32_t type, const Bytes& b, PropMsg* m) {
  static std::unique_ptr<uint8_t[]> copy;
  copy.reset(new uint8_t[b.size() + !b.size()]);
  std::copy(b.begin(), b.end(), copy.get());
  return decode_props(type, xdr::Bytes(copy.get(), b.size()), m);
}

TEST(RpcRdmaProps, ConnpropLayout) {
  PropMsg m;
  m.type = OptType::connprop;
  const U32Value rbsiz(8192), brs(kBrsGenl);
  ASSERT_TRUE(m.set.add(kPropRbsiz, rbsiz.bytes()));
  ASSERT_TRUE(m.set.add(kPropBrs, brs.bytes()));
  m.nochg.set(0);                             // the receive buffer size will not change
  const Bytes want = words({2,                // rdma_start: two propvals
                            1, 4, 8192,       //   RBSIZ, opaque<4>
                            2, 4, 2,          //   BRS, opaque<4> GENL
                            1, 0x00000001});  // rdma_nochg: one word, bit 0
  EXPECT_EQ(enc(m), want);
  PropMsg back;
  ASSERT_EQ(dec(1, want, &back), PropStatus::ok);
  uint32_t v = 0;
  ASSERT_TRUE(back.set.u32(kPropRbsiz, &v));
  EXPECT_EQ(v, 8192u);
  ASSERT_TRUE(back.set.u32(kPropBrs, &v));
  EXPECT_EQ(v, kBrsGenl);
  EXPECT_TRUE(back.nochg.has(0));
  EXPECT_FALSE(back.nochg.has(1));
  EXPECT_FALSE(back.nochg.has(999));
}

TEST(RpcRdmaProps, ResspropLayout) {
  PropMsg m;
  m.type = OptType::resprop;
  m.done.set(0);
  m.rejected.set(1);
  const U32Value rbsiz(4096);
  m.set.add(kPropRbsiz, rbsiz.bytes());
  const Bytes want = words({1, 1, 1, 2, 1, 1, 4, 4096});
  EXPECT_EQ(enc(m), want);
  PropMsg back;
  ASSERT_EQ(dec(3, want, &back), PropStatus::ok);
  EXPECT_TRUE(back.done.has(0));
  EXPECT_TRUE(back.rejected.has(1));
  EXPECT_EQ(back.set.n, 1u);
}

TEST(RpcRdmaProps, ReqpropAndUpdprop) {
  for (uint32_t type : {2u, 4u}) {
    PropMsg m;
    m.type = OptType(type);
    const uint8_t odd[] = {1, 2, 3};
    m.set.add(0xffffff01, odd);  // an experimental property, three octets
    const Bytes want = words({1, 0xffffff01, 3, 0x01020300});
    EXPECT_EQ(enc(m), want);
    PropMsg back;
    ASSERT_EQ(dec(type, want, &back), PropStatus::ok);
    uint32_t v;
    EXPECT_FALSE(back.set.u32(0xffffff01, &v));  // not a uint32
    EXPECT_EQ(back.set.v[0].data.size(), 3u);
  }
}

// Unknown properties decode (the receiver skips them); unknown types do not.
TEST(RpcRdmaProps, UnknownTypeAndTrailingOctets) {
  PropMsg m;
  EXPECT_EQ(dec(5, words({0}), &m), PropStatus::unknown_type);
  EXPECT_EQ(dec(0, words({0}), &m), PropStatus::unknown_type);
  EXPECT_EQ(dec(2, words({0, 0}), &m), PropStatus::bad_xdr);
  EXPECT_EQ(dec(2, words({0}), &m), PropStatus::ok);
  EXPECT_EQ(dec(2, words({1, 12345, 0}), &m), PropStatus::ok);
  EXPECT_EQ(m.set.v[0].which, 12345u);
}

TEST(RpcRdmaProps, HostileCounts) {
  PropMsg m;
  EXPECT_EQ(dec(2, words({0xffffffff}), &m), PropStatus::bad_xdr);
  EXPECT_EQ(dec(1, words({0, 0x40000000}), &m), PropStatus::bad_xdr);
  Bytes many = words({kMaxProps + 1});
  for (uint32_t i = 0; i <= kMaxProps; i++) {
    const Bytes e = words({i, 0});
    many.insert(many.end(), e.begin(), e.end());
  }
  EXPECT_EQ(dec(2, many, &m), PropStatus::too_many);
  // An opaque that runs past the end.
  EXPECT_EQ(dec(2, words({1, 1, 8, 0}), &m), PropStatus::bad_xdr);
  // A subset longer than any set: words past what is kept must be zero.
  EXPECT_EQ(dec(1, words({0, 3, 1, 0, 0}), &m), PropStatus::ok);
  EXPECT_FALSE(m.nochg.beyond);
  EXPECT_EQ(dec(1, words({0, 3, 1, 0, 4}), &m), PropStatus::ok);
  EXPECT_TRUE(m.nochg.beyond);
}

TEST(RpcRdmaProps, EveryTruncation) {
  PropMsg m;
  m.type = OptType::resprop;
  m.done.set(2);
  m.rejected.set(0);
  const U32Value v(1);
  m.set.add(kPropBrs, v.bytes());
  const Bytes b = enc(m);
  PropMsg back;
  ASSERT_EQ(dec(3, b, &back), PropStatus::ok);
  for (size_t n = 0; n < b.size(); n++)
    EXPECT_EQ(dec(3, Bytes(b.begin(), b.begin() + n), &back), PropStatus::bad_xdr);
}

// A property operation travels inside an OPTIONAL message.
TEST(RpcRdmaProps, InsideOptional) {
  PropMsg m;
  m.type = OptType::connprop;
  const U32Value rbsiz(16384);
  m.set.add(kPropRbsiz, rbsiz.bytes());
  uint8_t body[64];
  const size_t n = encode_props(m, body);
  ASSERT_GT(n, 0u);
  Header h;
  h.proc = Proc::optional;
  h.optional.type = uint32_t(OptType::connprop);
  h.optional.info = xdr::Bytes(body, n);
  uint8_t wire[128];
  const size_t len = encode(h, wire);
  ASSERT_GT(len, 0u);
  Header back;
  ASSERT_EQ(decode(xdr::Bytes(wire, len), &back).status, Status::ok);
  PropMsg got;
  ASSERT_EQ(decode_props(back.optional.type, back.optional.info, &got), PropStatus::ok);
  uint32_t v = 0;
  ASSERT_TRUE(got.set.u32(kPropRbsiz, &v));
  EXPECT_EQ(v, 16384u);
}

}  // namespace

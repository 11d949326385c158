// SPDX-License-Identifier: GPL-2.0
// RPC-over-RDMA transport headers, Version One (RFC 8166 section 4) and
// the seed's Version Two, against byte layouts written out by hand from
// the XDR (../shared/rpcrdma/rpcrdma1-wire.x, rpcrdma2-seed.x).
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "rpcrdma/header.h"
#include "rpcrdma/test/words.h"

namespace {

using namespace rpcrdma;
using test::Bytes;
using test::cat;
using test::words;

Bytes enc(const Header& h) {
  Bytes out(4096);
  const size_t n = encode(h, out);
  out.resize(n);
  return out;
}

// Decodes from a heap copy of exactly @b's size, so that ASan sees any
// read past the end.
Decoded dec(const Bytes& b, Header* h) {
  std::vector<uint8_t> copy(b);
  return decode(xdr::Bytes(copy.data(), copy.size()), h);
}

Header v1_msg() {
  Header h;
  h.xid = 0x01020304;
  h.vers = kVersionOne;
  h.credit = 32;
  h.proc = Proc::msg;
  return h;
}

TEST(RpcRdmaV1, MsgWithoutChunks) {
  const Bytes want = words({0x01020304, 1, 32, 0, /* reads */ 0, /* writes */ 0, /* reply */ 0});
  EXPECT_EQ(enc(v1_msg()), want);
  Header h;
  const Decoded d = dec(cat(want, {0xde, 0xad}), &h);
  ASSERT_EQ(d.status, Status::ok);
  EXPECT_EQ(d.length, 28u);  // the RPC message begins here
  EXPECT_EQ(h.xid, 0x01020304u);
  EXPECT_EQ(h.credit, 32u);
  EXPECT_EQ(h.chunks.nreads, 0u);
}

// A READ call as Linux's client sends it: one write chunk of two segments
// for the data, and a reply chunk of one.
TEST(RpcRdmaV1, WriteListAndReplyChunk) {
  Header h = v1_msg();
  const Segment a{0x11, 4096, 0x1000}, b{0x22, 8192, 0x200000000ull}, r{0x33, 512, 0x40};
  const Segment chunk[] = {a, b};
  ASSERT_TRUE(h.chunks.add_write(chunk));
  ASSERT_TRUE(h.chunks.set_reply({&r, 1}));
  const Bytes want = words({0x01020304, 1,    32,   0,
                            0,                                        // no reads
                            1,          2,    0x11, 4096, 0, 0x1000,  // a write chunk
                            0x22,       8192, 2,    0,                //   second segment
                            0,                                        // end of write list
                            1,          1,    0x33, 512,  0, 0x40});  // reply chunk
  EXPECT_EQ(enc(h), want);
  Header back;
  ASSERT_EQ(dec(want, &back).status, Status::ok);
  ASSERT_EQ(back.chunks.nwrites, 1u);
  ASSERT_EQ(back.chunks.write_chunk(0).size(), 2u);
  EXPECT_EQ(back.chunks.write_chunk(0)[1], b);
  ASSERT_TRUE(back.chunks.has_reply);
  EXPECT_EQ(back.chunks.reply_chunk()[0], r);
}

// A Long Call: the whole call in a Position Zero read chunk, sent NOMSG.
TEST(RpcRdmaV1, PositionZeroReadChunk) {
  Header h = v1_msg();
  h.proc = Proc::nomsg;
  ASSERT_TRUE(h.chunks.add_read({0, {7, 3000, 0x5000}}));
  ASSERT_TRUE(h.chunks.add_read({0, {8, 1000, 0x9000}}));
  const Bytes want = words({0x01020304, 1, 32, 1,                                   //
                            1, 0, 7, 3000, 0, 0x5000, 1, 0, 8, 1000, 0, 0x9000, 0,  // reads
                            0, 0});
  EXPECT_EQ(enc(h), want);
  Header back;
  ASSERT_EQ(dec(want, &back).status, Status::ok);
  ASSERT_EQ(back.chunks.nreads, 2u);
  EXPECT_EQ(back.chunks.reads[1].target.handle, 8u);
  EXPECT_EQ(back.proc, Proc::nomsg);
}

TEST(RpcRdmaV1, Errors) {
  Header h;
  // ERR_VERS: low 1, high 1.
  ASSERT_EQ(dec(words({9, 1, 4, 4, 1, 1, 1}), &h).status, Status::ok);
  EXPECT_EQ(h.error.code, ErrCode::vers);
  EXPECT_EQ(h.error.vers_low, 1u);
  EXPECT_EQ(h.error.vers_high, 1u);
  // ERR_CHUNK
  ASSERT_EQ(dec(words({9, 1, 4, 4, 2}), &h).status, Status::ok);
  EXPECT_EQ(h.error.code, ErrCode::bad_xdr);
  // Version Two's codes do not exist in Version One.
  for (uint32_t code = 3; code <= 11; code++)
    EXPECT_EQ(dec(words({9, 1, 4, 4, code, 0, 0}), &h).status, Status::bad_xdr);
  // And cannot be sent in it.
  h = v1_msg();
  h.proc = Proc::error;
  h.error.code = ErrCode::segments;
  EXPECT_TRUE(enc(h).empty());
}

TEST(RpcRdmaV1, ProcsNotToBeUsed) {
  Header h;
  EXPECT_EQ(dec(words({9, 1, 4, 2, 0, 0, 0, 0, 0}), &h).status, Status::inval_proc);  // RDMA_MSGP
  EXPECT_EQ(dec(words({9, 1, 4, 3}), &h).status, Status::inval_proc);                 // RDMA_DONE
  EXPECT_EQ(dec(words({9, 1, 4, 5, 0, 0, 0}), &h).status, Status::inval_proc);        // no OPTIONAL in One
}

Header v2_msg() {
  Header h;
  h.xid = 0xa0b0c0d0;
  h.vers = kVersionTwo;
  h.credit = 1;
  h.proc = Proc::msg;
  h.dir = Direction::call;
  h.inv_handle = 0x11;
  return h;
}

TEST(RpcRdmaV2, MsgLayout) {
  Header h = v2_msg();
  const Segment w{0x11, 65536, 0xfeedbeef00ull};
  ASSERT_TRUE(h.chunks.add_read({24, {5, 100, 0x10}}));
  ASSERT_TRUE(h.chunks.add_write({&w, 1}));
  const Bytes want = words({0xa0b0c0d0, 2,  1,    0,
                            0,                                                 // rdma_direction CALL
                            0x11,                                              // rdma_inv_handle
                            1,          24, 5,    100,   0,    0x10,       0,  // read list
                            1,          1,  0x11, 65536, 0xfe, 0xedbeef00, 0,  // write list
                            0});                                               // no reply chunk
  EXPECT_EQ(enc(h), want);
  Header back;
  const Decoded d = dec(want, &back);
  ASSERT_EQ(d.status, Status::ok);
  EXPECT_EQ(d.length, want.size());
  EXPECT_EQ(back.dir, Direction::call);
  EXPECT_EQ(back.inv_handle, 0x11u);
  EXPECT_EQ(back.chunks.reads[0].position, 24u);
  EXPECT_EQ(back.chunks.write_chunk(0)[0], w);
}

TEST(RpcRdmaV2, NomsgReply) {
  Header h = v2_msg();
  h.proc = Proc::nomsg;
  h.dir = Direction::reply;
  h.inv_handle = 0;
  const Bytes want = words({0xa0b0c0d0, 2, 1, 1, 1, 0, 0, 0, 0});
  EXPECT_EQ(enc(h), want);
  Header back;
  ASSERT_EQ(dec(want, &back).status, Status::ok);
  EXPECT_EQ(back.dir, Direction::reply);
  // A direction other than CALL or REPLY is bad XDR.
  EXPECT_EQ(dec(words({0xa0b0c0d0, 2, 1, 1, 2, 0, 0, 0, 0}), &back).status, Status::bad_xdr);
}

struct ErrLayout {
  Error e;
  Bytes body;  // after rdma_err
};

TEST(RpcRdmaV2, EveryErrorCode) {
  const ErrLayout all[] = {
      {{ErrCode::vers, 1, 2}, words({1, 2})},
      {{ErrCode::bad_xdr}, {}},
      {{ErrCode::inval_proc}, {}},
      {{ErrCode::read_chunks, 0, 0, 8}, words({8})},
      {{ErrCode::write_chunks, 0, 0, 3}, words({3})},
      {{ErrCode::segments, 0, 0, 16}, words({16})},
      {{ErrCode::write_resource, 0, 0, 0, 2, 70000}, words({2, 70000})},
      {{ErrCode::reply_resource, 0, 0, 0, 0, 9000}, words({9000})},
      {{ErrCode::inval_option}, {}},
      {{ErrCode::system}, {}},
  };
  for (const ErrLayout& l : all) {
    Header h;
    h.xid = 5;
    h.credit = 3;
    h.proc = Proc::error;
    h.error = l.e;
    const Bytes want = cat(words({5, 2, 3, 4, uint32_t(l.e.code)}), l.body);
    EXPECT_EQ(enc(h), want) << "code " << uint32_t(l.e.code);
    Header back;
    ASSERT_EQ(dec(want, &back).status, Status::ok) << "code " << uint32_t(l.e.code);
    EXPECT_EQ(back.error.code, l.e.code);
    EXPECT_EQ(back.error.max, l.e.max);
    EXPECT_EQ(back.error.chunk_index, l.e.chunk_index);
    EXPECT_EQ(back.error.length_needed, l.e.length_needed);
  }
  Header h;
  EXPECT_EQ(dec(words({5, 2, 3, 4, 11}), &h).status, Status::bad_xdr);
  EXPECT_EQ(dec(words({5, 2, 3, 4, 0}), &h).status, Status::bad_xdr);
}

TEST(RpcRdmaV2, OptionalKeepsItsBodyAsAView) {
  Header h;
  h.xid = 1;
  h.proc = Proc::optional;
  h.optional.dir = Direction::call;
  h.optional.type = 77;
  const uint8_t info[] = {1, 2, 3, 4, 5};
  h.optional.info = info;
  const Bytes want = cat(words({1, 2, 0, 5, 0, 77, 5}), {1, 2, 3, 4, 5, 0, 0, 0});
  EXPECT_EQ(enc(h), want);
  std::vector<uint8_t> copy(want);
  Header back;
  ASSERT_EQ(decode(copy, &back).status, Status::ok);
  EXPECT_EQ(back.optional.type, 77u);
  ASSERT_EQ(back.optional.info.size(), 5u);
  EXPECT_EQ(back.optional.info.data(), copy.data() + 28);
  // An opaque longer than the message.
  EXPECT_EQ(dec(words({1, 2, 0, 5, 0, 77, 9, 0}), &back).status, Status::bad_xdr);
}

TEST(RpcRdmaV2, PropertyProcsOfTheSeedXdrAreNotProcs) {
  Header h;
  for (uint32_t proc = 6; proc <= 9; proc++)
    EXPECT_EQ(dec(words({1, 2, 0, proc, 0, 0}), &h).status, Status::inval_proc);
  EXPECT_EQ(dec(words({1, 2, 0, 2, 0, 0, 0, 0, 0}), &h).status, Status::inval_proc);
}

TEST(RpcRdmaAnyVersion, UnknownVersionAndItsErrVers) {
  Header h;
  EXPECT_EQ(dec(words({1, 3, 0, 0, 0, 0, 0}), &h).status, Status::vers);
  EXPECT_EQ(dec(words({1, 0, 0, 0, 0, 0, 0}), &h).status, Status::vers);
  // ERR_VERS is readable in any version: its form is fixed.
  ASSERT_EQ(dec(words({1, 7, 0, 4, 1, 1, 2}), &h).status, Status::ok);
  EXPECT_EQ(h.error.vers_high, 2u);
  EXPECT_EQ(dec(words({1, 7, 0, 4, 2}), &h).status, Status::vers);
  // Cut short, it is a message in a version we do not speak (found by
  // fuzzing: it was answered with an error that cannot be encoded).
  EXPECT_EQ(dec(words({1, 7, 0, 4, 1, 1}), &h).status, Status::vers);
  EXPECT_EQ(dec(words({1, 7, 0}), &h).status, Status::truncated);
}

TEST(RpcRdmaAnyVersion, ErrorFor) {
  // An unknown version: ERR_VERS with our range, xid and vers echoed.
  Header e = error_for({0x1234, 3, 9, 0}, Status::vers, 5);
  EXPECT_EQ(enc(e), words({0x1234, 3, 5, 4, 1, 1, 2}));
  EXPECT_EQ(enc(error_for({0x1234, 3, 9, 0}, Status::bad_xdr, 5)), words({0x1234, 3, 5, 4, 1, 1, 2}));
  // Version Two: the error that names the problem and its limit.
  EXPECT_EQ(enc(error_for({1, 2, 0, 8}, Status::inval_proc, 5)), words({1, 2, 5, 4, 3}));
  EXPECT_EQ(enc(error_for({1, 2, 0, 0}, Status::read_chunks, 5)), words({1, 2, 5, 4, 4, kMaxReadChunks}));
  EXPECT_EQ(enc(error_for({1, 2, 0, 0}, Status::write_chunks, 5)), words({1, 2, 5, 4, 5, kMaxWriteChunks}));
  EXPECT_EQ(enc(error_for({1, 2, 0, 0}, Status::segments, 5)), words({1, 2, 5, 4, 6, kMaxChunkSegments}));
  EXPECT_EQ(enc(error_for({1, 2, 0, 0}, Status::bad_xdr, 5)), words({1, 2, 5, 4, 2}));
  // Version One has only ERR_CHUNK for all of these.
  for (Status s : {Status::inval_proc, Status::read_chunks, Status::segments, Status::bad_xdr})
    EXPECT_EQ(enc(error_for({1, 1, 0, 0}, s, 5)), words({1, 1, 5, 4, 2}));
}

// ---- hostile lists -----------------------------------------------------------

Bytes v2_prefix() { return words({1, 2, 0, 0, 0, 0}); }

Bytes read_entry(uint32_t position) { return words({1, position, 1, 1, 0, 0}); }

TEST(RpcRdmaHostile, TooManyReadSegments) {
  Bytes m = v2_prefix();
  for (int i = 0; i < 17; i++) m = cat(m, read_entry(4));
  m = cat(m, words({0, 0, 0}));
  Header h;
  EXPECT_EQ(dec(m, &h).status, Status::segments);
}

TEST(RpcRdmaHostile, TooManyReadChunks) {
  Bytes m = v2_prefix();
  for (uint32_t i = 0; i < 9; i++) m = cat(m, read_entry(4 * (i + 1)));
  m = cat(m, words({0, 0, 0}));
  Header h;
  EXPECT_EQ(dec(m, &h).status, Status::read_chunks);
  // Eight chunks of two segments each fit.
  m = v2_prefix();
  for (uint32_t i = 0; i < 16; i++) m = cat(m, read_entry(4 * (i / 2 + 1)));
  m = cat(m, words({0, 0, 0}));
  ASSERT_EQ(dec(m, &h).status, Status::ok);
  EXPECT_EQ(h.chunks.nreads, 16u);
}

TEST(RpcRdmaHostile, TooManyWriteChunks) {
  Bytes m = cat(v2_prefix(), words({0}));
  for (int i = 0; i < 9; i++) m = cat(m, words({1, 1, 1, 1, 0, 0}));
  m = cat(m, words({0, 0}));
  Header h;
  EXPECT_EQ(dec(m, &h).status, Status::write_chunks);
}

TEST(RpcRdmaHostile, ChunkWithTooManySegments) {
  Bytes m = cat(v2_prefix(), words({0, 1, 17}));
  for (int i = 0; i < 17; i++) m = cat(m, words({1, 1, 0, 0}));
  m = cat(m, words({0, 0}));
  Header h;
  EXPECT_EQ(dec(m, &h).status, Status::segments);
  // The same count with the segments missing is bad XDR, not a limit.
  EXPECT_EQ(dec(cat(v2_prefix(), words({0, 1, 17, 1, 1, 0, 0})), &h).status, Status::bad_xdr);
}

TEST(RpcRdmaHostile, CountsThatOverflow) {
  Header h;
  // 0xffffffff segments of 16 octets: refused by length, before any loop.
  EXPECT_EQ(dec(cat(v2_prefix(), words({0, 1, 0xffffffff, 0, 0})), &h).status, Status::bad_xdr);
  EXPECT_EQ(dec(cat(v2_prefix(), words({0, 0, 1, 0x10000000})), &h).status, Status::bad_xdr);
}

TEST(RpcRdmaHostile, ListThatNeverEnds) {
  // A read list whose last entry says another follows.
  Bytes m = v2_prefix();
  for (int i = 0; i < 3; i++) m = cat(m, read_entry(0));
  Header h;
  EXPECT_EQ(dec(m, &h).status, Status::bad_xdr);
  // A "present" word that is neither 0 nor 1.
  EXPECT_EQ(dec(cat(v2_prefix(), words({2, 0, 0, 0, 0, 0, 0})), &h).status, Status::bad_xdr);
}

// Every proper prefix of every valid header fails to decode, without a
// read past its end (each decode is from an exact-size heap copy).
TEST(RpcRdmaHostile, EveryTruncation) {
  std::vector<Header> all;
  Header h = v2_msg();
  const Segment s[] = {{1, 2, 3}, {4, 5, 6}};
  h.chunks.add_read({0, s[0]});
  h.chunks.add_write(s);
  h.chunks.set_reply({s, 1});
  all.push_back(h);
  h.vers = kVersionOne;
  all.push_back(h);
  h = v2_msg();
  h.proc = Proc::error;
  h.error = {ErrCode::write_resource, 0, 0, 0, 1, 2};
  all.push_back(h);
  h.proc = Proc::optional;
  const uint8_t info[] = {9, 9, 9};
  h.optional.info = info;
  all.push_back(h);
  for (const Header& full : all) {
    const Bytes b = enc(full);
    ASSERT_FALSE(b.empty());
    Header back;
    ASSERT_EQ(dec(b, &back).status, Status::ok);
    for (size_t n = 0; n < b.size(); n++) {
      const Status st = dec(Bytes(b.begin(), b.begin() + n), &back).status;
      EXPECT_EQ(st, n < 16 ? Status::truncated : Status::bad_xdr) << "length " << n;
    }
    // Encoding into any smaller buffer writes nothing past it and fails.
    for (size_t n = 0; n < b.size(); n++) {
      std::vector<uint8_t> out(n);
      EXPECT_EQ(encode(full, out), 0u);
    }
  }
}

TEST(RpcRdmaBuilders, Limits) {
  Chunks c;
  const Segment s[kMaxChunkSegments + 1] = {};
  EXPECT_FALSE(c.add_write({s, kMaxChunkSegments + 1}));
  for (uint32_t i = 0; i < kMaxWriteChunks; i++) EXPECT_TRUE(c.add_write({s, kMaxChunkSegments}));
  EXPECT_FALSE(c.add_write({s, 1}));
  EXPECT_TRUE(c.set_reply({s, kMaxChunkSegments}));
  EXPECT_FALSE(c.set_reply({s, 1}));
  for (uint32_t i = 0; i < kMaxReadSegments; i++) EXPECT_TRUE(c.add_read({}));
  EXPECT_FALSE(c.add_read({}));
}

}  // namespace

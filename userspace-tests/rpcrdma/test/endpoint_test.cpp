// SPDX-License-Identifier: GPL-2.0
// Requester and responder decisions, played against each other in memory:
// version negotiation and fallback (seed: "Protocol Version Negotiation"),
// credits, inline sizes, property exchange, and every error a responder
// sends.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rpcrdma/endpoint.h"
#include "rpcrdma/test/words.h"

namespace {

using namespace rpcrdma;
using test::Bytes;
using test::words;

Bytes msg(const Header& h, const Bytes& rpc = {}) {
  Bytes out(512);
  const size_t n = encode(h, out);
  EXPECT_GT(n, 0u);
  out.resize(n);
  out.insert(out.end(), rpc.begin(), rpc.end());
  return out;
}

Header answer_of(const Responder::Request& q) { return q.answer; }

const PrivateData kLinux{4096, 4096, true};

TEST(RpcRdmaEndpoint, TwoAgainstTwo) {
  Requester rq(kVersionTwo, 16);
  Responder rs(32, true);
  rq.connected(kLinux, kLinux);
  rs.connected(kLinux, kLinux);
  // Before the first reply: one call, at most 1024 octets.
  EXPECT_EQ(rq.credits(), 1u);
  EXPECT_EQ(rq.send_inline(), 1024u);
  const Bytes call = msg(rq.call(7), {0xaa, 0xbb, 0xcc, 0xdd});
  EXPECT_FALSE(rq.may_send());
  const Responder::Request q = rs.receive(call);
  ASSERT_EQ(q.what, Responder::Action::call);
  EXPECT_EQ(q.vers, kVersionTwo);
  EXPECT_EQ(call[q.rpc], 0xaa);
  // The responder announces its properties after the first Version Two call.
  ASSERT_TRUE(rs.connprop_due());
  uint8_t body[64];
  const Bytes rs_props = msg(rs.connprop(100, body, sizeof(body)));
  EXPECT_FALSE(rs.connprop_due());
  const Requester::Received p = rq.receive(rs_props);
  EXPECT_EQ(p.what, Requester::Outcome::property);
  const Requester::Received r = rq.receive(msg(rs.reply(7, q.vers), {1, 2, 3, 4}));
  ASSERT_EQ(r.what, Requester::Outcome::reply);
  EXPECT_EQ(r.xid, 7u);
  // Granted: up to our own limit of 16, and the agreed 4096 octets.
  EXPECT_EQ(rq.credits(), 16u);
  EXPECT_EQ(rq.send_inline(), 4096u);
  EXPECT_EQ(rq.version(), kVersionTwo);
  ASSERT_TRUE(rq.connprop_due());
  const Responder::Request qp = rs.receive(msg(rq.connprop(101, body, sizeof(body))));
  EXPECT_EQ(qp.what, Responder::Action::property);
  EXPECT_FALSE(rq.connprop_due());
}

// Linux's nfsd speaks Version One only: the probe gets ERR_VERS (1, 1),
// the same call goes again in Version One on the same connection.
TEST(RpcRdmaEndpoint, FallsBackToOne) {
  Requester rq(kVersionTwo, 8);
  Responder nfsd(128, false);
  const Bytes rpc{0, 0, 0, 1};
  const Responder::Request q = nfsd.receive(msg(rq.call(0x51), rpc));
  ASSERT_EQ(q.what, Responder::Action::error);
  // The error echoes the caller's xid and version (as nfsd does).
  EXPECT_EQ(msg(answer_of(q)), words({0x51, 2, 128, 4, 1, 1, 1}));
  const Requester::Received r = rq.receive(msg(answer_of(q)));
  ASSERT_EQ(r.what, Requester::Outcome::resend);
  EXPECT_EQ(r.xid, 0x51u);
  EXPECT_EQ(rq.version(), kVersionOne);
  EXPECT_FALSE(rq.may_send());  // the call is still outstanding
  const Responder::Request q1 = nfsd.receive(msg(rq.again(0x51), rpc));
  ASSERT_EQ(q1.what, Responder::Action::call);
  EXPECT_EQ(q1.vers, kVersionOne);
  ASSERT_EQ(rq.receive(msg(nfsd.reply(0x51, q1.vers))).what, Requester::Outcome::reply);
  EXPECT_EQ(rq.credits(), 8u);
  EXPECT_FALSE(rq.connprop_due());  // Version One has no properties
}

TEST(RpcRdmaEndpoint, NoCommonVersion) {
  Requester rq(kVersionTwo, 8);
  rq.call(1);
  Header e;
  e.xid = 1;
  e.vers = 2;
  e.proc = Proc::error;
  e.error = {ErrCode::vers, 3, 4};
  EXPECT_EQ(rq.receive(msg(e)).what, Requester::Outcome::failed);
  // A range naming only the version we spoke ends the call too: no loop.
  Requester rq2(kVersionTwo, 8);
  rq2.call(1);
  e.error = {ErrCode::vers, 2, 2};
  EXPECT_EQ(rq2.receive(msg(e)).what, Requester::Outcome::failed);
  EXPECT_TRUE(rq2.may_send());
}

TEST(RpcRdmaEndpoint, RequesterRefusesWhatIsNotAReply) {
  Requester rq(kVersionTwo, 8);
  Responder rs(4, true);
  // No call outstanding.
  EXPECT_EQ(rq.receive(msg(rs.reply(9, 2))).what, Requester::Outcome::bad);
  rq.call(9);
  Header h = rs.reply(9, 2);
  h.dir = Direction::call;  // a backward-direction call: not offered
  EXPECT_EQ(rq.receive(msg(h)).what, Requester::Outcome::bad);
  EXPECT_EQ(rq.receive(msg(rs.reply(9, 1))).what, Requester::Outcome::bad);  // another version
  EXPECT_EQ(rq.receive(words({9, 2})).what, Requester::Outcome::bad);
  // Credits: a grant of 0 still lets one call through; more than asked is capped.
  h = rs.reply(9, 2);
  h.credit = 0;
  ASSERT_EQ(rq.receive(msg(h)).what, Requester::Outcome::reply);
  EXPECT_EQ(rq.credits(), 1u);
  rq.call(10);
  h.xid = 10;
  h.credit = 1000;
  ASSERT_EQ(rq.receive(msg(h)).what, Requester::Outcome::reply);
  EXPECT_EQ(rq.credits(), 8u);
  // NOMSG is a reply only with the reply chunk it was written into.
  rq.call(13);
  Header nomsg = rs.reply(13, 2);
  nomsg.proc = Proc::nomsg;
  EXPECT_EQ(rq.receive(msg(nomsg)).what, Requester::Outcome::bad);
  const Segment written{5, 300, 0x1000};
  ASSERT_TRUE(nomsg.chunks.set_reply({&written, 1}));
  const Requester::Received in_chunk = rq.receive(msg(nomsg));
  ASSERT_EQ(in_chunk.what, Requester::Outcome::reply);
  EXPECT_EQ(in_chunk.header.chunks.reply_chunk()[0].length, 300u);
  // An RDMA_ERROR ends that call.
  rq.call(11);
  Header e = rs.reply(11, 2);
  e.proc = Proc::error;
  e.error = {ErrCode::system};
  const Requester::Received f = rq.receive(msg(e));
  EXPECT_EQ(f.what, Requester::Outcome::failed);
  EXPECT_EQ(f.error.code, ErrCode::system);
  // An OPTIONAL type we do not know is ignored, never answered.
  Header o;
  o.xid = 12;
  o.proc = Proc::optional;
  o.optional.dir = Direction::reply;
  o.optional.type = 99;
  EXPECT_EQ(rq.receive(msg(o)).what, Requester::Outcome::ignored);
}

TEST(RpcRdmaEndpoint, ResponderErrors) {
  Responder rs(4, true);
  // Unknown version: ERR_VERS 1..2, the request's version echoed.
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 3, 0, 0, 0, 0, 0})))), words({5, 3, 4, 4, 1, 1, 2}));
  // Unknown procedure (the seed XDR's property procs included).
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 7, 0})))), words({5, 2, 4, 4, 3}));
  // Unknown OPTIONAL type, and REQPROP (not supported): INVAL_OPTION.
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 5, 0, 42, 0})))), words({5, 2, 4, 4, 9}));
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 5, 0, 2, 4, 0})))), words({5, 2, 4, 4, 9}));
  // A CONNPROP whose body does not parse: BAD_XDR.
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 5, 0, 1, 4, 7})))), words({5, 2, 4, 4, 2}));
  // Malformed: BAD_XDR in Two, ERR_CHUNK in One.
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 0, 7})))), words({5, 2, 4, 4, 2}));
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 1, 0, 0, 3})))), words({5, 1, 4, 4, 2}));
  // Chunks, not served yet, are refused with a limit of 0.
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 0, 0, 0, 1, 4, 1, 1, 0, 0, 0, 0, 0})))),
            words({5, 2, 4, 4, 4, 0}));
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0})))),
            words({5, 2, 4, 4, 5, 0}));
  EXPECT_EQ(msg(answer_of(rs.receive(words({5, 2, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0})))),
            words({5, 2, 4, 4, 4, 0}));
  // An RDMA_ERROR from a requester is never answered; too short, no xid.
  EXPECT_EQ(rs.receive(words({5, 2, 0, 4, 10})).what, Responder::Action::none);
  EXPECT_EQ(rs.receive(words({5, 2})).what, Responder::Action::bad);
  // A responder of Version One only answers Two with ERR_VERS 1..1.
  Responder one(4, false);
  EXPECT_EQ(msg(answer_of(one.receive(words({5, 2, 0, 0, 0, 0, 0, 0, 0})))), words({5, 2, 4, 4, 1, 1, 1}));
}

TEST(RpcRdmaEndpoint, ResponderServingChunks) {
  Responder rs(4, true, true);
  // A call with a read chunk at position 44 and a write chunk: passed on.
  const Responder::Request q =
      rs.receive(words({5, 2,     0, 0,   0, 0,      1, 44, 9, 100, 0, 0x1000, 0,  // reads
                        1, 1,     8, 100, 0, 0x2000, 0,                            // writes
                        0, 0xcafe}));
  ASSERT_EQ(q.what, Responder::Action::call);
  EXPECT_EQ(q.req.chunks.nreads, 1u);
  EXPECT_EQ(q.req.chunks.reads[0].position, 44u);
  EXPECT_EQ(q.req.chunks.write_chunk(0)[0].handle, 8u);
  // A Long Call: NOMSG with a Position Zero read chunk.
  const Responder::Request l = rs.receive(words({6, 2, 0, 1, 0, 0, 1, 0, 9, 300, 0, 0x1000, 0, 0, 0}));
  ASSERT_EQ(l.what, Responder::Action::call);
  EXPECT_EQ(l.req.proc, Proc::nomsg);
  // NOMSG without one has no message anywhere: BAD_XDR (ERR_CHUNK in One).
  EXPECT_EQ(msg(answer_of(rs.receive(words({7, 2, 0, 1, 0, 0, 1, 8, 9, 300, 0, 0x1000, 0, 0, 0})))),
            words({7, 2, 4, 4, 2}));
  EXPECT_EQ(msg(answer_of(rs.receive(words({7, 1, 0, 1, 0, 0, 0})))), words({7, 1, 4, 4, 2}));
}

// A Version Two call whose responder receives at most @recv octets and
// says so in a CONNPROP before its reply: the requester then sends inline
// at most @want octets.
void send_inline_after_rbsiz(uint32_t recv, uint32_t want) {
  Requester rq(kVersionTwo, 4);
  Responder rs(4, true);
  rq.connected(kLinux, kLinux);
  rs.connected({4096, recv, false}, kLinux);
  rq.call(1);
  ASSERT_EQ(rs.receive(msg(rq.again(1))).what, Responder::Action::call);
  uint8_t body[64];
  ASSERT_EQ(rq.receive(msg(rs.connprop(2, body, sizeof(body)))).what, Requester::Outcome::property);
  ASSERT_EQ(rq.receive(msg(rs.reply(1, 2))).what, Requester::Outcome::reply);
  EXPECT_EQ(rq.send_inline(), want);
}

TEST(RpcRdmaEndpoint, InlineSizes) {
  const Inline a = agree({4096, 8192, false}, {2048, 16384, false});
  EXPECT_EQ(a.send, 4096u);
  EXPECT_EQ(a.recv, 2048u);
  EXPECT_EQ(pick_version(1, 5), 2u);
  EXPECT_EQ(pick_version(1, 1), 1u);
  EXPECT_EQ(pick_version(0, 0), 0u);
  EXPECT_EQ(pick_version(3, 9), 0u);
  // A peer's Receive Buffer Size below the agreed size lowers it.
  send_inline_after_rbsiz(2048, 2048);
}

// A Receive Buffer Size below Version One's default is taken as the
// default: no peer can make a requester send less than 1024 octets.
TEST(RpcRdmaEndpoint, ReceiveBufferSizeFloor) { send_inline_after_rbsiz(100, 1024); }

}  // namespace

// SPDX-License-Identifier: GPL-2.0
// The MPA Startup Phase state machine, both roles wired back to back the
// way two hosts meet over TCP, plus every way a peer can misbehave.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "mpa/handshake.h"

namespace {

using namespace xiw::mpa;
using Bytes = std::vector<uint8_t>;
using Step = Handshake::Step;
using Upcall = Handshake::Upcall;
using State = Handshake::State;

constexpr Timeouts kTimeouts = {1000, 2000, 3000, 4000};

ReadDepths depths(uint16_t ird = 4, uint16_t ord = 4) { return {ird, ord, 128, 128}; }

Bytes bytes(kstd::Bytes b) { return Bytes(b.begin(), b.end()); }

// The reason an administrator reads (failure()), or "(none)".
std::string reason(const Handshake& h) { return h.failure() ? h.failure() : "(none)"; }

Policy p2p(uint8_t types) {
  Policy p;
  p.peer_to_peer = true;
  p.rtr_types = types;
  return p;
}

// Feeds `wire` one octet at a time when `trickle`, else at once.
Step feed(Handshake& h, const Bytes& wire, bool trickle = false) {
  Step last;
  size_t used = 0;
  if (!trickle) {
    last = h.receive(kstd::Bytes(wire.data(), wire.size()));
    return last;
  }
  for (size_t i = 0; i < wire.size(); i++) {
    Step s = h.receive(kstd::Bytes(wire.data() + i, 1));
    used += s.consumed;
    if (s.upcall != Upcall::none || !s.send.empty() || h.state() == State::closed) {
      s.consumed = used;
      return s;
    }
  }
  last.consumed = used;
  return last;
}

struct Pair {
  Handshake ini;
  Handshake res;
  Bytes request, reply;
  Step ini_step, res_step;

  Pair(const Policy& pi, const Policy& pr) : ini(pi, kTimeouts), res(pr, kTimeouts) {}

  // Runs Request, ULP accept and Reply; returns the initiator's last step.
  Step run(const ReadDepths& di = depths(), const ReadDepths& dr = depths(), Bytes pd_i = {}, Bytes pd_r = {},
           bool trickle = false) {
    Step c = ini.connect(di, kstd::Bytes(pd_i.data(), pd_i.size()));
    request = bytes(c.send);
    EXPECT_EQ(c.timer, Handshake::Timer::arm);
    EXPECT_EQ(c.timer_ms, kTimeouts.reply_ms);
    Step l = res.listen();
    EXPECT_EQ(l.timer_ms, kTimeouts.request_ms);
    res_step = feed(res, request, trickle);
    if (res_step.upcall != Upcall::connect_request) return {};
    res_step = res.accept(dr, kstd::Bytes(pd_r.data(), pd_r.size()));
    reply = bytes(res_step.send);
    ini_step = feed(ini, reply, trickle);
    return ini_step;
  }
};

// ---- complete handshakes -----------------------------------------------------

TEST(MpaHandshake, NoFailureWhileStartingOrEstablished) {
  Pair p(Policy{}, Policy{});
  EXPECT_EQ(reason(p.ini), "(none)");
  p.run();
  EXPECT_EQ(reason(p.ini), "(none)");
  EXPECT_EQ(reason(p.res), "(none)");
}

TEST(MpaHandshake, ClientServerEnhanced) {
  Pair p(Policy{}, Policy{});
  const Step s = p.run();
  EXPECT_EQ(s.upcall, Upcall::connected);
  EXPECT_EQ(s.consumed, p.reply.size());
  EXPECT_EQ(p.res_step.upcall, Upcall::connected);
  EXPECT_EQ(p.ini.state(), State::established);
  EXPECT_EQ(p.res.state(), State::established);
  EXPECT_TRUE(p.ini.agreed().enhanced);
  EXPECT_TRUE(p.ini.agreed().crc);
  EXPECT_EQ(p.ini.sent_frame_length(), p.request.size());
}

TEST(MpaHandshake, ClientServerRev1) {
  Policy old;
  old.rev = 1;
  Pair p(old, Policy{});
  EXPECT_EQ(p.run().upcall, Upcall::connected);
  EXPECT_EQ(p.request[17], 1);
  EXPECT_EQ(p.reply[17], 1);
  EXPECT_FALSE(p.res.agreed().enhanced);
}

TEST(MpaHandshake, OctetByOctet) {
  Pair p(Policy{}, Policy{});
  const Bytes pd(100, 0x42);
  const Step s = p.run(depths(), depths(), pd, pd, true);
  EXPECT_EQ(s.upcall, Upcall::connected);
  EXPECT_EQ(s.consumed, p.reply.size());
  EXPECT_EQ(bytes(p.res.request().private_data), pd);
  EXPECT_EQ(bytes(p.ini.reply().private_data), pd);
}

TEST(MpaHandshake, MaximumPrivateDataBothWays) {
  Pair p(Policy{}, Policy{});
  Bytes pd(508);
  for (size_t i = 0; i < pd.size(); i++) pd[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(p.run(depths(), depths(), pd, pd).upcall, Upcall::connected);
  EXPECT_EQ(p.request.size(), 20u + 512);
  EXPECT_EQ(bytes(p.res.request().private_data), pd);  // the prefix is not shown
  EXPECT_EQ(bytes(p.ini.reply().private_data), pd);
}

TEST(MpaHandshake, ReceiveNeedNeverReadsPastTheFrame) {
  Handshake ini(Policy{}, kTimeouts), res(Policy{}, kTimeouts);
  const Bytes pd(33, 1);
  const Bytes req = bytes(ini.connect(depths(), kstd::Bytes(pd.data(), pd.size())).send);
  EXPECT_EQ(res.receive_need(), 0u);
  res.listen();
  EXPECT_EQ(res.receive_need(), 20u);
  res.receive(kstd::Bytes(req.data(), 7));
  EXPECT_EQ(res.receive_need(), 13u);
  res.receive(kstd::Bytes(req.data() + 7, 13));
  EXPECT_EQ(res.receive_need(), 4u + 33);
  const Step s = res.receive(kstd::Bytes(req.data() + 20, 37));
  EXPECT_EQ(s.upcall, Upcall::connect_request);
  EXPECT_EQ(res.receive_need(), 0u);
}

TEST(MpaHandshake, StopsAtTheEndOfTheReply) {
  Pair q(Policy{}, Policy{});
  const Step c = q.ini.connect(depths(), {});
  q.res.listen();
  ASSERT_EQ(feed(q.res, bytes(c.send)).upcall, Upcall::connect_request);
  Bytes wire = bytes(q.res.accept(depths(), {}).send);
  const size_t frame = wire.size();
  wire.insert(wire.end(), {0, 2, 0xaa, 0xbb});  // the start of Full Operation
  const Step s = feed(q.ini, wire);
  EXPECT_EQ(s.upcall, Upcall::connected);
  EXPECT_EQ(s.consumed, frame);
}

// ---- peer-to-peer (RFC 6581 section 9.2) ----------------------------------------

class MpaHandshakeRtr : public ::testing::TestWithParam<uint8_t> {};

TEST_P(MpaHandshakeRtr, EachRtrTypeInEachRole) {
  const uint8_t type = GetParam();
  Pair p(p2p(type), p2p(type));
  const Step s = p.run();
  // The initiator sends exactly the RTR and tells its ULP only after.
  EXPECT_EQ(s.rtr, type);
  EXPECT_EQ(s.upcall, Upcall::none);
  EXPECT_FALSE(p.ini.may_send());
  EXPECT_EQ(p.ini.rtr_sent().upcall, Upcall::connected);
  EXPECT_TRUE(p.ini.may_send());
  // The responder waits for it, with a timer, and sends nothing before.
  EXPECT_EQ(p.res.state(), State::await_rtr);
  EXPECT_EQ(p.res_step.upcall, Upcall::none);
  EXPECT_EQ(p.res_step.timer_ms, kTimeouts.rtr_ms);
  EXPECT_FALSE(p.res.may_send());
  const Step r = p.res.first_fpdu(type);
  EXPECT_EQ(r.upcall, Upcall::connected);
  EXPECT_EQ(r.timer, Handshake::Timer::cancel);
  EXPECT_TRUE(p.res.may_send());
}

INSTANTIATE_TEST_SUITE_P(
    Types, MpaHandshakeRtr, ::testing::Values(kRtrSend, kRtrWrite, kRtrRead), [](const auto& info) {
      return std::string(info.param == kRtrSend ? "Send" : info.param == kRtrWrite ? "Write" : "Read");
    });

TEST(MpaHandshake, WrongRtrTypeIsTerm7) {
  Pair p(p2p(kRtrWrite), p2p(kRtrWrite));
  p.run();
  const Step r = p.res.first_fpdu(kRtrSend);
  EXPECT_EQ(r.terminate, MpaError::no_matching_rtr);
  EXPECT_EQ(r.upcall, Upcall::failed);
  EXPECT_EQ(p.res.state(), State::closed);
  EXPECT_EQ(reason(p.res), "refused with a TERMINATE");
  EXPECT_EQ(p.res.term_sent(), MpaError::no_matching_rtr);
}

TEST(MpaHandshake, NonRtrFirstMessageIsTerm7) {
  Pair p(p2p(kRtrRead), p2p(kRtrRead));
  p.run();
  EXPECT_EQ(p.res.first_fpdu(0).terminate, MpaError::no_matching_rtr);
}

// A first FPDU that cannot be read whole: its own framing error wins
// (RFC 5044 section 8), else it is too long to be an RTR (code 7).
TEST(MpaHandshake, UnreadableFirstFpduNamesItsError) {
  for (const MpaError framing : {MpaError::crc, MpaError::marker, MpaError::none}) {
    Pair p(p2p(kRtrWrite), p2p(kRtrWrite));
    p.run();
    const Step r = p.res.first_fpdu_unreadable(framing);
    EXPECT_EQ(r.terminate, framing == MpaError::none ? MpaError::no_matching_rtr : framing);
    EXPECT_EQ(r.upcall, Upcall::failed);
    EXPECT_EQ(p.res.state(), State::closed);
    EXPECT_EQ(p.res.error(), framing == MpaError::none ? -EOPNOTSUPP : -EBADMSG);
  }
  // Outside the wait for the RTR it changes nothing.
  Pair q(Policy{}, Policy{});
  q.run();
  EXPECT_EQ(q.res.first_fpdu_unreadable(MpaError::crc).upcall, Upcall::none);
  EXPECT_EQ(q.res.state(), State::established);
}

TEST(MpaHandshake, NoMutualRtrIsTerm7FromTheInitiator) {
  Pair p(p2p(kRtrSend), p2p(kRtrRead));
  const Step s = p.run();
  EXPECT_EQ(s.terminate, MpaError::no_matching_rtr);
  EXPECT_EQ(s.upcall, Upcall::failed);
  EXPECT_EQ(p.ini.error(), -EOPNOTSUPP);
}

TEST(MpaHandshake, InsufficientIrdIsTerm6FromTheInitiator) {
  Pair p(Policy{}, Policy{});
  const Step s = p.run({2, 2, 2, 2}, {8, 8, 8, 8});
  // The responder's ORD is capped at our IRD of 2, so this passes...
  EXPECT_EQ(s.upcall, Upcall::connected);
  // ...unless the Reply demands more than the device has.
  Pair q(Policy{}, Policy{});
  Step c = q.ini.connect({2, 2, 2, 2}, {});
  q.res.listen();
  feed(q.res, bytes(c.send));
  Bytes reply = bytes(q.res.accept({8, 8, 8, 8}, {}).send);
  reply[22] = 0x00;  // responder ORD field (octets 22-23)
  reply[23] = 0x05;
  const Step t = feed(q.ini, reply);
  EXPECT_EQ(t.terminate, MpaError::insufficient_ird);
}

// ---- fencing (RFC 5044 section 7.1.2) -------------------------------------------

TEST(MpaHandshake, ResponderSendsNothingBeforeTheFirstFpdu) {
  Pair p(Policy{}, Policy{});
  p.run();
  EXPECT_TRUE(p.ini.may_send());
  EXPECT_FALSE(p.res.may_send());
  EXPECT_EQ(p.res.first_fpdu(0).upcall, Upcall::none);
  EXPECT_TRUE(p.res.may_send());
}

// ---- rejection -------------------------------------------------------------------

TEST(MpaHandshake, UlpRejectDeliversPrivateDataToTheInitiator) {
  Handshake ini(Policy{}, kTimeouts), res(Policy{}, kTimeouts);
  const Step c = ini.connect(depths(), {});
  res.listen();
  ASSERT_EQ(feed(res, bytes(c.send)).upcall, Upcall::connect_request);
  const Bytes why = {'n', 'o'};
  const Step r = res.reject(kstd::Bytes(why.data(), why.size()));
  EXPECT_TRUE(r.close_after_send);
  EXPECT_EQ(res.state(), State::rejected);
  EXPECT_EQ(reason(res), "the ULP rejected the MPA Request");
  const Step s = feed(ini, bytes(r.send));
  EXPECT_EQ(s.upcall, Upcall::rejected);
  EXPECT_EQ(ini.error(), -ECONNREFUSED);
  EXPECT_EQ(reason(ini), "the peer rejected the MPA Request (Reply with R = 1)");
  EXPECT_EQ(bytes(ini.reply().private_data), why);
  EXPECT_TRUE(ini.reply().is_enhanced());
}

TEST(MpaHandshake, PolicyRejectNeverReachesTheUlp) {
  Policy want, refuse;
  want.markers = MarkerPolicy::require;
  refuse.markers = MarkerPolicy::refuse;
  Handshake ini(want, kTimeouts), res(refuse, kTimeouts);
  const Step c = ini.connect(depths(), {});
  res.listen();
  const Step r = feed(res, bytes(c.send));
  EXPECT_EQ(r.upcall, Upcall::none);
  EXPECT_TRUE(r.close_after_send);
  EXPECT_EQ(res.error(), -EOPNOTSUPP);
  EXPECT_EQ(reason(res), "the MPA Request asks for what our settings refuse");
  EXPECT_EQ(feed(ini, bytes(r.send)).upcall, Upcall::rejected);
}

TEST(MpaHandshake, ShortIrdRejectCarriesTheNeededOrd) {
  Policy strict;
  strict.reject_short_ird = true;
  Handshake ini(Policy{}, kTimeouts), res(strict, kTimeouts);
  const Step c = ini.connect({1, 1, 128, 128}, {});
  res.listen();
  feed(res, bytes(c.send));
  const Step r = res.accept({4, 9, 128, 128}, {});
  EXPECT_EQ(r.upcall, Upcall::failed);
  EXPECT_EQ(reason(res), "the Request's IRD cannot cover our ORD (RFC 6581 section 9.1)");
  EXPECT_TRUE(r.close_after_send);
  EXPECT_EQ(feed(ini, bytes(r.send)).upcall, Upcall::rejected);
  EXPECT_EQ(ini.reply().enhanced.ord, 9);
}

// ---- bad frames (RFC 5044 sections 7.1.2, 8) -----------------------------------------

Bytes good_request() {
  Handshake ini(Policy{}, kTimeouts);
  return bytes(ini.connect(depths(), {}).send);
}

Step respond_to(Bytes wire) {
  Handshake res(Policy{}, kTimeouts);
  res.listen();
  Step s = feed(res, wire);
  EXPECT_EQ(res.state(), s.upcall == Upcall::failed ? State::closed : res.state());
  return s;
}

TEST(MpaHandshake, WrongKeyCloses) {
  Bytes w = good_request();
  w[3] = 'X';
  Handshake res(Policy{}, kTimeouts);
  res.listen();
  const Step s = feed(res, w);
  EXPECT_EQ(s.upcall, Upcall::failed);
  EXPECT_EQ(s.terminate, MpaError::none);  // startup errors close, no TERM
  EXPECT_EQ(reason(res), "an MPA Request xiw cannot take");
  EXPECT_EQ(res.term_sent(), MpaError::none);
}

TEST(MpaHandshake, InitiatorSeeingARequestDetectsInitiatorInitiator) {
  Handshake a(Policy{}, kTimeouts), b(Policy{}, kTimeouts);
  a.connect(depths(), {});
  const Step sb = b.connect(depths(), {});
  const Step s = feed(a, bytes(sb.send));
  EXPECT_EQ(s.upcall, Upcall::failed);
  EXPECT_EQ(a.error(), -EPROTO);
}

TEST(MpaHandshake, PdLengthAbove512Closes) {
  Bytes w = good_request();
  w[18] = 0x02;
  w[19] = 0x01;
  EXPECT_EQ(respond_to(w).upcall, Upcall::failed);
}

TEST(MpaHandshake, UnknownRevisionCloses) {
  Bytes w = good_request();
  w[17] = 3;
  const Step s = respond_to(w);
  EXPECT_EQ(s.upcall, Upcall::failed);
}

TEST(MpaHandshake, EnhancedFlagWithoutEnhancedDataCloses) {
  Bytes w = good_request();
  w.resize(20 + 2);
  w[19] = 2;
  EXPECT_EQ(respond_to(w).upcall, Upcall::failed);
}

TEST(MpaHandshake, Rfc5044ResponderClosesOnEnhancedRequest) {
  Policy old;
  old.rev = 1;
  Handshake res(old, kTimeouts);
  res.listen();
  const Step s = feed(res, good_request());
  EXPECT_EQ(s.upcall, Upcall::failed);
  EXPECT_EQ(res.error(), -EPROTONOSUPPORT);
}

// ---- timeouts and loss of the connection ------------------------------------------------

TEST(MpaHandshake, ResponderTimesOutWaitingForTheRequest) {
  Handshake res(Policy{}, kTimeouts);
  res.listen();
  res.receive(kstd::Bytes(good_request().data(), 10));
  const Step s = res.timeout();
  EXPECT_EQ(s.upcall, Upcall::failed);
  EXPECT_EQ(res.error(), -ETIMEDOUT);
  EXPECT_EQ(reason(res), "no MPA Request before the timeout");
}

TEST(MpaHandshake, InitiatorTimesOutWaitingForTheReply) {
  Handshake ini(Policy{}, kTimeouts);
  ini.connect(depths(), {});
  EXPECT_EQ(ini.timeout().upcall, Upcall::failed);
  EXPECT_EQ(ini.error(), -ETIMEDOUT);
  EXPECT_EQ(reason(ini), "no MPA Reply before the timeout");
}

TEST(MpaHandshake, ResponderTimesOutWaitingForTheRtr) {
  Pair p(p2p(kRtrWrite), p2p(kRtrWrite));
  p.run();
  EXPECT_EQ(p.res.timeout().upcall, Upcall::failed);
  EXPECT_EQ(p.res.error(), -ETIMEDOUT);
  EXPECT_EQ(reason(p.res), "no RTR before the timeout");
}

TEST(MpaHandshake, ResponderTimesOutWaitingForTheUlp) {
  Handshake res(Policy{}, kTimeouts);
  res.listen();
  const Step s = feed(res, good_request());
  EXPECT_EQ(s.timer_ms, kTimeouts.ulp_ms);
  EXPECT_EQ(res.timeout().upcall, Upcall::failed);
  EXPECT_EQ(reason(res), "the ULP neither accepted nor rejected the Request in time");
}

TEST(MpaHandshake, TimeoutAfterEstablishmentIsIgnored) {
  Pair p(Policy{}, Policy{});
  p.run();
  EXPECT_EQ(p.ini.timeout().upcall, Upcall::none);
  EXPECT_EQ(p.ini.state(), State::established);
}

TEST(MpaHandshake, LlpLossDuringStartupFails) {
  Handshake ini(Policy{}, kTimeouts);
  ini.connect(depths(), {});
  EXPECT_EQ(ini.llp_closed().upcall, Upcall::failed);
  EXPECT_EQ(ini.error(), -ECONNRESET);
  EXPECT_EQ(reason(ini), "the peer closed before its MPA Reply");
}

// RFC 6581 section 10: an enhanced Request met by a close may be retried
// unenhanced, and the retry then meets an RFC 5044 responder.
TEST(MpaHandshake, EnhancedRequestMetByACloseMayBeRetriedUnenhanced) {
  Policy retry;
  retry.retry_unenhanced = true;
  Policy old;
  old.rev = 1;
  Pair first(retry, old);
  EXPECT_EQ(first.run().upcall, Upcall::none);  // the responder closed instead of a Reply
  EXPECT_EQ(first.res_step.upcall, Upcall::failed);
  const Step closed = first.ini.llp_closed();
  EXPECT_EQ(closed.upcall, Upcall::failed);
  EXPECT_TRUE(closed.retry_unenhanced);
  Policy again = retry;
  again.rev = 1;
  Pair second(again, old);
  EXPECT_EQ(second.run().upcall, Upcall::connected);
  EXPECT_EQ(second.ini.agreed().rev, 1);
  EXPECT_FALSE(second.ini.request().is_enhanced());
}

TEST(MpaHandshake, RetryUnenhancedOnlyForACloseOnAnEnhancedRequest) {
  Policy retry;
  retry.retry_unenhanced = true;
  Handshake off(Policy{}, kTimeouts);  // the policy does not allow it
  off.connect(depths(), {});
  EXPECT_FALSE(off.llp_closed().retry_unenhanced);
  Policy rev1 = retry;  // nothing enhanced to drop
  rev1.rev = 1;
  Handshake plain(rev1, kTimeouts);
  plain.connect(depths(), {});
  EXPECT_FALSE(plain.llp_closed().retry_unenhanced);
  Handshake part(retry, kTimeouts);  // part of a Reply came first
  part.connect(depths(), {});
  part.receive(kstd::Bytes(good_request().data(), 1));
  EXPECT_FALSE(part.llp_closed().retry_unenhanced);
  Handshake slow(retry, kTimeouts);  // a timeout is not a close
  slow.connect(depths(), {});
  EXPECT_FALSE(slow.timeout().retry_unenhanced);
  Handshake res(retry, kTimeouts);  // responders never retry
  res.listen();
  EXPECT_FALSE(res.llp_closed().retry_unenhanced);
}

TEST(MpaHandshake, EventsOutOfOrderAreRefused) {
  Handshake h(Policy{}, kTimeouts);
  EXPECT_EQ(h.accept(depths(), {}).upcall, Upcall::failed);
  Handshake g(Policy{}, kTimeouts);
  g.connect(depths(), {});
  EXPECT_EQ(g.connect(depths(), {}).upcall, Upcall::failed);
  Handshake k(Policy{}, kTimeouts);
  EXPECT_EQ(k.receive(kstd::Bytes(good_request().data(), 20)).consumed, 0u);
}

}  // namespace

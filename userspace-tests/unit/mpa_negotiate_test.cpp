// SPDX-License-Identifier: GPL-2.0
// Connection parameter negotiation: the C, M and Rev rules of RFC 5044
// section 7.1 and the IRD/ORD and peer-to-peer rules of RFC 6581 sections
// 9.1, 9.2 and 10, one test per rule.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "mpa/negotiate.h"

namespace {

using namespace xiw::mpa;

constexpr uint8_t A = EnhancedData::a;

ReadDepths depths(uint16_t ird, uint16_t ord, uint16_t max_ird = 128, uint16_t max_ord = 128) {
  return {ird, ord, max_ird, max_ord};
}

StartupFrame request(const Policy& p, const ReadDepths& d = depths(4, 4)) {
  auto r = make_request(p, d, {});
  EXPECT_TRUE(r.ok());
  return r.value();
}

struct Accepted {
  Decision<Negotiated> d;
  StartupFrame reply;
};

Accepted accept(const Policy& p, const StartupFrame& req, const ReadDepths& d = depths(4, 4)) {
  Accepted a;
  a.d = accept_request(p, req, d, &a.reply, {});
  return a;
}

Policy with_crc(CrcPolicy c) {
  Policy p;
  p.crc = c;
  return p;
}

// ---- RFC 5044 section 7.1: C ----------------------------------------------

TEST(MpaNegotiate, CrcRequiredSetsCInRequestAndReply) {
  const Policy p = with_crc(CrcPolicy::required);
  EXPECT_TRUE(request(p).flags.has(FrameFlags::c));
  const StartupFrame req = request(with_crc(CrcPolicy::suppress));
  const Accepted a = accept(p, req);
  EXPECT_TRUE(a.reply.flags.has(FrameFlags::c));
  EXPECT_TRUE(a.d.value.crc);
}

TEST(MpaNegotiate, CrcPreferredReplyEchoesTheRequest) {
  const Policy p = with_crc(CrcPolicy::preferred);
  EXPECT_TRUE(request(p).flags.has(FrameFlags::c));
  Accepted off = accept(p, request(with_crc(CrcPolicy::suppress)));
  EXPECT_FALSE(off.reply.flags.has(FrameFlags::c));
  EXPECT_FALSE(off.d.value.crc);
  Accepted on = accept(p, request(with_crc(CrcPolicy::required)));
  EXPECT_TRUE(on.reply.flags.has(FrameFlags::c));
  EXPECT_TRUE(on.d.value.crc);
}

TEST(MpaNegotiate, CrcSuppressedOnlyWhenBothSidesAgree) {
  const Policy p = with_crc(CrcPolicy::suppress);
  EXPECT_FALSE(request(p).flags.has(FrameFlags::c));
  // C in either frame means CRC for both directions, and the Reply says so.
  Accepted a = accept(p, request(with_crc(CrcPolicy::required)));
  EXPECT_TRUE(a.reply.flags.has(FrameFlags::c));
  EXPECT_TRUE(a.d.value.crc);
  Accepted b = accept(p, request(p));
  EXPECT_FALSE(b.d.value.crc);
}

TEST(MpaNegotiate, InitiatorUsesCrcIfEitherFrameHasC) {
  const Policy sup = with_crc(CrcPolicy::suppress);
  const StartupFrame req = request(sup);
  const Accepted a = accept(with_crc(CrcPolicy::required), req);
  auto d = accept_reply(sup, req, a.reply, depths(4, 4));
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d.value.crc);
  const Accepted b = accept(sup, req);
  d = accept_reply(sup, req, b.reply, depths(4, 4));
  EXPECT_FALSE(d.value.crc);
}

// ---- G (a Res bit, upstream siw's GSO offer): both must offer ------------

TEST(MpaNegotiate, GsoOfferedOnlyWhenConfigured) {
  Policy gso;
  gso.gso = true;
  EXPECT_FALSE(request(Policy{}).flags.has(FrameFlags::g));
  EXPECT_TRUE(request(gso).flags.has(FrameFlags::g));
  EXPECT_FALSE(accept(Policy{}, request(gso)).reply.flags.has(FrameFlags::g));
  EXPECT_TRUE(accept(gso, request(Policy{})).reply.flags.has(FrameFlags::g));
}

TEST(MpaNegotiate, GsoAgreedOnlyWhenBothOffer) {
  Policy gso;
  gso.gso = true;
  const Policy plain;
  for (int both = 0; both < 4; both++) {
    const Policy& ini = both & 1 ? gso : plain;
    const Policy& res = both & 2 ? gso : plain;
    const StartupFrame req = request(ini);
    const Accepted a = accept(res, req);
    ASSERT_TRUE(a.d.ok());
    EXPECT_EQ(a.d.value.gso, both == 3) << both;
    auto d = accept_reply(ini, req, a.reply, depths(4, 4));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d.value.gso, both == 3) << both;
  }
}

// ---- RFC 5044 section 7.1: M, per direction --------------------------------

TEST(MpaNegotiate, MarkersFollowTheReceiversM) {
  Policy want;
  want.markers = MarkerPolicy::require;
  const Policy plain;
  const StartupFrame req = request(want);
  EXPECT_TRUE(req.flags.has(FrameFlags::m));
  const Accepted a = accept(plain, req);
  EXPECT_FALSE(a.reply.flags.has(FrameFlags::m));
  EXPECT_TRUE(a.d.value.send_markers);  // towards the initiator
  EXPECT_FALSE(a.d.value.recv_markers);
  auto d = accept_reply(want, req, a.reply, depths(4, 4));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d.value.send_markers);
  EXPECT_TRUE(d.value.recv_markers);
}

TEST(MpaNegotiate, MarkersBothDirections) {
  Policy want;
  want.markers = MarkerPolicy::require;
  const StartupFrame req = request(want);
  const Accepted a = accept(want, req);
  EXPECT_TRUE(a.d.value.send_markers && a.d.value.recv_markers);
  auto d = accept_reply(want, req, a.reply, depths(4, 4));
  EXPECT_TRUE(d.value.send_markers && d.value.recv_markers);
}

TEST(MpaNegotiate, ResponderRefusingMarkersRejects) {
  Policy want, refuse;
  want.markers = MarkerPolicy::require;
  refuse.markers = MarkerPolicy::refuse;
  const Failure f = check_request(refuse, request(want));
  EXPECT_EQ(f.action, Failure::Action::reject);
  EXPECT_EQ(f.error, -EOPNOTSUPP);
  // accept_request() hands back the R = 1 Reply to send (found by fuzzing:
  // it used to leave the Reply untouched).
  const Accepted a = accept(refuse, request(want));
  EXPECT_FALSE(a.d.ok());
  EXPECT_EQ(a.reply.type, FrameType::reply);
  EXPECT_TRUE(a.reply.flags.has(FrameFlags::r));
}

TEST(MpaNegotiate, InitiatorRefusingMarkersTerminatesWithCode5) {
  Policy want, refuse;
  want.markers = MarkerPolicy::require;
  refuse.markers = MarkerPolicy::refuse;
  const StartupFrame req = request(refuse);
  const Accepted a = accept(want, req);
  auto d = accept_reply(refuse, req, a.reply, depths(4, 4));
  EXPECT_EQ(d.failure.action, Failure::Action::terminate);
  EXPECT_EQ(d.failure.code, MpaError::local_catastrophic);
}

// ---- Rev and S (RFC 5044 section 7.1, RFC 6581 sections 6, 10) ---------------

TEST(MpaNegotiate, Rev1PolicySendsAnRfc5044Request) {
  Policy p;
  p.rev = 1;
  p.peer_to_peer = true;
  const StartupFrame req = request(p);
  EXPECT_EQ(req.rev, 1);
  EXPECT_FALSE(req.is_enhanced());
}

TEST(MpaNegotiate, EnhancedResponderAnswersUnenhancedRequestUnenhanced) {
  Policy old;
  old.rev = 1;
  const Accepted a = accept(Policy{}, request(old));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.rev, 1);
  EXPECT_FALSE(a.reply.is_enhanced());
  EXPECT_FALSE(a.d.value.enhanced);
}

TEST(MpaNegotiate, EnhancedResponderAnswersEnhancedRequestEnhanced) {
  const Accepted a = accept(Policy{}, request(Policy{}));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.rev, 2);
  EXPECT_TRUE(a.reply.is_enhanced());
}

TEST(MpaNegotiate, Rev2RequestWithoutSGetsRev2ReplyWithoutS) {
  StartupFrame req = request(Policy{});
  req.flags = req.flags.without(FrameFlags::s);
  const Accepted a = accept(Policy{}, req);
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.rev, 2);
  EXPECT_FALSE(a.reply.is_enhanced());
}

TEST(MpaNegotiate, Rfc5044OnlyResponderClosesOnRev2) {
  Policy old;
  old.rev = 1;
  const Failure f = check_request(old, request(Policy{}));
  EXPECT_EQ(f.action, Failure::Action::close);
  EXPECT_EQ(f.error, -EPROTONOSUPPORT);
  // ... and accepts Rev 1.
  EXPECT_EQ(check_request(old, request(old)).error, 0);
}

TEST(MpaNegotiate, ReplyAboveRequestRevisionCloses) {
  Policy old;
  old.rev = 1;
  const StartupFrame req = request(old);
  StartupFrame rep = accept(Policy{}, request(Policy{})).reply;  // Rev 2
  auto d = accept_reply(old, req, rep, depths(4, 4));
  EXPECT_EQ(d.failure.action, Failure::Action::close);
  EXPECT_EQ(d.failure.error, -EPROTONOSUPPORT);
}

TEST(MpaNegotiate, EnhancedReplyToUnenhancedRequestCloses) {
  StartupFrame req = request(Policy{});
  req.flags = req.flags.without(FrameFlags::s);
  const StartupFrame rep = accept(Policy{}, request(Policy{})).reply;
  auto d = accept_reply(Policy{}, req, rep, depths(4, 4));
  EXPECT_EQ(d.failure.action, Failure::Action::close);
}

TEST(MpaNegotiate, UnenhancedReplyToEnhancedRequestLeavesDepthsToUlp) {
  const StartupFrame req = request(Policy{}, depths(3, 5));
  Policy old;
  old.rev = 1;
  const StartupFrame rep = accept(old, request(old)).reply;
  auto d = accept_reply(Policy{}, req, rep, depths(3, 5));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d.value.enhanced);
  EXPECT_EQ(d.value.ird, 3);
  EXPECT_EQ(d.value.ord, 5);
  EXPECT_EQ(d.value.peer_ird, kIrdOrdMax);
}

// ---- RFC 6581 section 9.1: IRD and ORD ---------------------------------------

TEST(MpaNegotiate, RequestCarriesInitiatorIrdAndOrd) {
  const StartupFrame req = request(Policy{}, depths(7, 9));
  EXPECT_EQ(req.enhanced.ird, 7);
  EXPECT_EQ(req.enhanced.ord, 9);
  // Capped by what the device can do.
  EXPECT_EQ(request(Policy{}, depths(700, 900, 16, 32)).enhanced.ird, 16);
  EXPECT_EQ(request(Policy{}, depths(700, 900, 16, 32)).enhanced.ord, 32);
}

TEST(MpaNegotiate, ResponderOrdAtMostInitiatorIrd) {
  const Accepted a = accept(Policy{}, request(Policy{}, depths(4, 8)), depths(2, 16));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.d.value.ord, 4);
  EXPECT_EQ(a.reply.enhanced.ord, 4);
}

TEST(MpaNegotiate, ResponderIrdAtLeastInitiatorOrdWhereResourcesAllow) {
  Accepted a = accept(Policy{}, request(Policy{}, depths(4, 8)), depths(2, 16));
  EXPECT_EQ(a.d.value.ird, 8);
  EXPECT_EQ(a.reply.enhanced.ird, 8);
  a = accept(Policy{}, request(Policy{}, depths(4, 64)), depths(2, 16, 32, 32));
  EXPECT_EQ(a.d.value.ird, 32);  // the device's limit
  EXPECT_EQ(a.reply.enhanced.ird, 32);
}

TEST(MpaNegotiate, PeerValuesGoToTheUlp) {
  const Accepted a = accept(Policy{}, request(Policy{}, depths(5, 6)), depths(2, 2));
  EXPECT_EQ(a.d.value.peer_ird, 5);
  EXPECT_EQ(a.d.value.peer_ord, 6);
  auto d = accept_reply(Policy{}, request(Policy{}, depths(5, 6)), a.reply, depths(5, 6));
  EXPECT_EQ(d.value.peer_ird, a.reply.enhanced.ird);
  EXPECT_EQ(d.value.peer_ord, a.reply.enhanced.ord);
}

TEST(MpaNegotiate, InitiatorIrd3fffLeavesResponderOrdAndIsEchoed) {
  const Accepted a = accept(Policy{}, request(Policy{}, depths(kIrdOrdMax, 2)), depths(3, 9));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.enhanced.ord, kIrdOrdMax);
  EXPECT_EQ(a.d.value.ord, 9);
}

TEST(MpaNegotiate, InitiatorOrd3fffLeavesResponderIrdAndIsEchoed) {
  const Accepted a = accept(Policy{}, request(Policy{}, depths(2, kIrdOrdMax)), depths(3, 1));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.enhanced.ird, kIrdOrdMax);
  EXPECT_EQ(a.d.value.ird, 3);
}

TEST(MpaNegotiate, InitiatorRaisesIrdToResponderOrd) {
  const StartupFrame req = request(Policy{}, depths(4, 4, 8, 8));
  StartupFrame rep = accept(Policy{}, req).reply;
  rep.enhanced.ord = 6;
  rep.enhanced.ird = 2;
  auto d = accept_reply(Policy{}, req, rep, depths(4, 4, 8, 8));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value.ird, 6);
  EXPECT_EQ(d.value.ord, 2);  // and lowers ORD to the responder IRD
}

TEST(MpaNegotiate, InitiatorShortOfIrdTerminatesWithCode6) {
  const StartupFrame req = request(Policy{}, depths(4, 4, 8, 8));
  StartupFrame rep = accept(Policy{}, req).reply;
  rep.enhanced.ord = 9;
  auto d = accept_reply(Policy{}, req, rep, depths(4, 4, 8, 8));
  EXPECT_EQ(d.failure.action, Failure::Action::terminate);
  EXPECT_EQ(d.failure.code, MpaError::insufficient_ird);
  EXPECT_EQ(d.failure.error, -ENOBUFS);
}

TEST(MpaNegotiate, Responder3fffLeavesInitiatorValuesUnchanged) {
  const StartupFrame req = request(Policy{}, depths(4, 5, 8, 8));
  StartupFrame rep = accept(Policy{}, req).reply;
  rep.enhanced.ord = kIrdOrdMax;
  rep.enhanced.ird = kIrdOrdMax;
  auto d = accept_reply(Policy{}, req, rep, depths(4, 5, 8, 8));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value.ird, 4);
  EXPECT_EQ(d.value.ord, 5);
}

TEST(MpaNegotiate, ResponderMayRejectShortInitiatorIrdNamingItsOrd) {
  Policy p;
  p.reject_short_ird = true;
  const Accepted a = accept(p, request(Policy{}, depths(2, 2)), depths(4, 16));
  EXPECT_EQ(a.d.failure.action, Failure::Action::reject);
  EXPECT_EQ(a.d.failure.code, MpaError::insufficient_ird);
  EXPECT_TRUE(a.reply.flags.has(FrameFlags::r));
  EXPECT_EQ(a.reply.enhanced.ord, 16);
}

// ---- RFC 6581 section 9.2: peer-to-peer and RTR --------------------------------

Policy p2p(uint8_t types) {
  Policy p;
  p.peer_to_peer = true;
  p.rtr_types = types;
  return p;
}

TEST(MpaNegotiate, InitiatorOffersItsRtrTypesWithA) {
  const StartupFrame req = request(p2p(kRtrWrite | kRtrRead));
  EXPECT_EQ(req.enhanced.ctrl, A | kRtrWrite | kRtrRead);
}

TEST(MpaNegotiate, ClientServerSendsZeroControlFlags) {
  EXPECT_EQ(request(Policy{}).enhanced.ctrl, 0);
  const Accepted a = accept(p2p(kRtrAll), request(Policy{}));
  EXPECT_EQ(a.reply.enhanced.ctrl, 0);
  EXPECT_FALSE(a.d.value.peer_to_peer);
}

TEST(MpaNegotiate, ResponderEchoesAAndTheMatchingTypes) {
  const Accepted a = accept(p2p(kRtrRead | kRtrSend), request(p2p(kRtrWrite | kRtrRead)));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.enhanced.ctrl, A | kRtrRead);
  EXPECT_TRUE(a.d.value.peer_to_peer);
}

TEST(MpaNegotiate, ResponderEchoesAEvenWhenNotOfferingPeerToPeerItself) {
  Policy cs;  // peer_to_peer is the initiator's knob
  const Accepted a = accept(cs, request(p2p(kRtrSend)));
  EXPECT_EQ(a.reply.enhanced.ctrl & A, A);
}

TEST(MpaNegotiate, ResponderProposesItsOwnTypeWhenNoneMatch) {
  const Accepted a = accept(p2p(kRtrWrite), request(p2p(kRtrSend)));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.reply.enhanced.ctrl, A | kRtrWrite);
}

TEST(MpaNegotiate, ReadRtrGetsOneInboundReadSlot) {
  const Accepted a = accept(p2p(kRtrRead), request(p2p(kRtrRead), depths(0, 0)), depths(0, 0));
  ASSERT_TRUE(a.d.ok());
  EXPECT_EQ(a.d.value.ird, 1);
  EXPECT_EQ(a.reply.enhanced.ird, 1);
}

TEST(MpaNegotiate, InitiatorPicksExactlyOneMutualType) {
  const StartupFrame req = request(p2p(kRtrAll));
  for (uint8_t offered : {kRtrWrite, kRtrRead, kRtrSend, uint8_t(kRtrWrite | kRtrRead), kRtrAll}) {
    StartupFrame rep = accept(p2p(offered), req).reply;
    auto d = accept_reply(p2p(kRtrAll), req, rep, depths(4, 4));
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(d.value.rtr == kRtrWrite || d.value.rtr == kRtrRead || d.value.rtr == kRtrSend);
    EXPECT_TRUE(d.value.rtr & offered);
  }
}

TEST(MpaNegotiate, InitiatorWithoutAMutualTypeTerminatesWithCode7) {
  const StartupFrame req = request(p2p(kRtrSend));
  const StartupFrame rep = accept(p2p(kRtrWrite), req).reply;
  auto d = accept_reply(p2p(kRtrSend), req, rep, depths(4, 4));
  EXPECT_EQ(d.failure.action, Failure::Action::terminate);
  EXPECT_EQ(d.failure.code, MpaError::no_matching_rtr);
}

TEST(MpaNegotiate, ReplyThatDropsAIsMalformed) {
  const StartupFrame req = request(p2p(kRtrAll));
  StartupFrame rep = accept(Policy{}, req).reply;
  rep.enhanced.ctrl = 0;
  auto d = accept_reply(p2p(kRtrAll), req, rep, depths(4, 4));
  EXPECT_EQ(d.failure.action, Failure::Action::close);
  EXPECT_EQ(d.failure.error, -EPROTO);
}

TEST(MpaNegotiate, ResponderChecksTheRtrType) {
  Negotiated n;
  n.peer_to_peer = true;
  n.rtr = kRtrWrite | kRtrRead;
  EXPECT_EQ(check_rtr(n, kRtrWrite), MpaError::none);
  EXPECT_EQ(check_rtr(n, kRtrRead), MpaError::none);
  EXPECT_EQ(check_rtr(n, kRtrSend), MpaError::no_matching_rtr);
  EXPECT_EQ(check_rtr(n, 0), MpaError::no_matching_rtr);
  EXPECT_EQ(check_rtr(n, kRtrWrite | kRtrRead), MpaError::no_matching_rtr);
  n.peer_to_peer = false;
  EXPECT_EQ(check_rtr(n, 0), MpaError::none);
}

// ---- Private data (RFC 5044 section 7.1, RFC 6581 section 7) ------------------

TEST(MpaNegotiate, PrivateDataLimitIncludesTheEnhancedPrefix) {
  std::vector<uint8_t> pd(513);
  Policy old;
  old.rev = 1;
  EXPECT_TRUE(make_request(old, depths(1, 1), kstd::Bytes(pd.data(), 512)).ok());
  EXPECT_EQ(make_request(old, depths(1, 1), kstd::Bytes(pd.data(), 513)).error(), -EINVAL);
  EXPECT_TRUE(make_request(Policy{}, depths(1, 1), kstd::Bytes(pd.data(), 508)).ok());
  EXPECT_EQ(make_request(Policy{}, depths(1, 1), kstd::Bytes(pd.data(), 509)).error(), -EINVAL);
  StartupFrame reply;
  auto d = accept_request(Policy{}, request(Policy{}), depths(1, 1), &reply, kstd::Bytes(pd.data(), 509));
  EXPECT_EQ(d.failure.error, -EINVAL);
}

TEST(MpaNegotiate, RejectAnswersInKindAndFitsItsPrivateData) {
  std::vector<uint8_t> pd(600, 7);
  const StartupFrame rej =
      make_reject(p2p(kRtrRead), request(p2p(kRtrAll)), 3, 4, kstd::Bytes(pd.data(), pd.size()));
  EXPECT_TRUE(rej.flags.has(FrameFlags::r));
  EXPECT_TRUE(rej.is_enhanced());
  EXPECT_EQ(rej.enhanced.ctrl, A | kRtrRead);
  EXPECT_EQ(rej.enhanced.ird, 3);
  EXPECT_EQ(rej.enhanced.ord, 4);
  EXPECT_EQ(rej.wire_pd_length(), 512u);
}

}  // namespace

// SPDX-License-Identifier: GPL-2.0
// DDP Stream Session Control over SCTP (RFC 5043 section 5) with the
// enhanced function codes of RFC 6581 section 7: byte layouts written out
// by hand, one test per receive rule, and the negotiator driven through
// the SCTP messages. See sctp_session.h for what of the RFC 5043 layout
// could not be checked against its text.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <utility>
#include <vector>

#include "mpa/sctp_session.h"

namespace {

using namespace xiw::mpa;
using sctp::FunctionCode;
using sctp::SessionControl;
using Wire = std::vector<uint8_t>;

constexpr uint8_t A = EnhancedData::a;
constexpr uint8_t B = EnhancedData::b;
constexpr uint8_t C = EnhancedData::c;
constexpr uint8_t D = EnhancedData::d;

Wire cat(std::initializer_list<Wire> parts) {
  Wire out;
  for (const Wire& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

kstd::Bytes bytes(const Wire& w) { return kstd::Bytes(w.data(), w.size()); }

// Private Data that outlives the messages pointing at it.
kstd::Bytes keep(Wire w) {
  static std::deque<Wire> store;
  store.push_back(std::move(w));
  return bytes(store.back());
}

SessionControl message(FunctionCode code, Wire pd = {}, EnhancedData e = {}) {
  SessionControl m;
  m.code = code;
  m.enhanced = e;
  m.private_data = keep(std::move(pd));
  return m;
}

EnhancedData enh(uint8_t ctrl, uint16_t ird, uint16_t ord) {
  EnhancedData e;
  e.ctrl = ctrl;
  e.ird = ird;
  e.ord = ord;
  return e;
}

// Encodes into a buffer with room to spare; -errno or the wire bytes.
int encode(const SessionControl& m, Wire* out) {
  out->assign(SessionControl::kHeaderLen + 1024, 0xee);
  const auto n = m.encode(kstd::MutableBytes(out->data(), out->size()));
  if (!n.ok()) return n.error();
  out->resize(n.value());
  return static_cast<int>(n.value());
}

int decode_error(const Wire& w) { return SessionControl::decode(bytes(w)).error(); }

Wire pd_of(const SessionControl& m) { return Wire(m.private_data.begin(), m.private_data.end()); }

ReadDepths depths(uint16_t ird, uint16_t ord, uint16_t max_ird = 128, uint16_t max_ord = 128) {
  return {ird, ord, max_ird, max_ord};
}

Policy enhanced_policy(bool p2p = false) {
  Policy p;
  p.peer_to_peer = p2p;
  return p;
}

Policy rfc5043_policy() {
  Policy p;
  p.rev = 1;
  return p;
}

SessionControl initiate(const Policy& p, const ReadDepths& d = depths(4, 4), Wire pd = {}) {
  auto m = sctp::make_initiate(p, d, keep(std::move(pd)));
  EXPECT_TRUE(m.ok());
  return m.value();
}

// The message as a peer would receive it: through the wire codec.
SessionControl over_the_wire(const SessionControl& m, Wire* storage) {
  EXPECT_GT(encode(m, storage), 0);
  auto back = SessionControl::decode(bytes(*storage));
  EXPECT_TRUE(back.ok());
  return back.value();
}

// ---- Registered values ------------------------------------------------------

TEST(SctpSession, FunctionCodesAreTheRegisteredValues) {
  // RFC 5043 (0x1 to 0x4) and RFC 6581 sections 7 and 11 (0x5 to 0x7).
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::initiate), 0x1);
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::accept), 0x2);
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::reject), 0x3);
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::terminate), 0x4);
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::enhanced_initiate), 0x5);
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::enhanced_accept), 0x6);
  EXPECT_EQ(static_cast<uint16_t>(FunctionCode::enhanced_reject), 0x7);
  // RFC 5043 sections 5.1 and 5.2.
  EXPECT_EQ(sctp::kAdaptationCodePoint, 1u);
  EXPECT_EQ(sctp::kPpidDdpSegment, 16u);
  EXPECT_EQ(sctp::kPpidSessionControl, 17u);
}

// ---- Encoding, byte for byte ------------------------------------------------

TEST(SctpSession, EncodeInitiateWithPrivateData) {
  Wire w;
  ASSERT_EQ(encode(message(FunctionCode::initiate, {'a', 'b', 'c'}), &w), 7);
  EXPECT_EQ(w, (Wire{0x00, 0x01, 0x00, 0x03, 'a', 'b', 'c'}));
}

TEST(SctpSession, EncodeEnhancedInitiatePrefixesTheEnhancedData) {
  // A|IRD 4 = 0x8004, C|ORD 2 = 0x8002 (RFC 6581 section 9), then the
  // ULP's data; PD Length 6 counts the prefix.
  Wire w;
  ASSERT_EQ(encode(message(FunctionCode::enhanced_initiate, {0x5a, 0x5b}, enh(A | C, 4, 2)), &w), 10);
  EXPECT_EQ(w, (Wire{0x00, 0x05, 0x00, 0x06, 0x80, 0x04, 0x80, 0x02, 0x5a, 0x5b}));
}

TEST(SctpSession, EncodeEnhancedAcceptClientServer) {
  Wire w;
  ASSERT_EQ(encode(message(FunctionCode::enhanced_accept, {}, enh(0, 0x3fff, 1)), &w), 8);
  EXPECT_EQ(w, (Wire{0x00, 0x06, 0x00, 0x04, 0x3f, 0xff, 0x00, 0x01}));
}

TEST(SctpSession, EncodeEnhancedRejectNamesTheResponderRtrTypes) {
  Wire w;
  ASSERT_EQ(encode(message(FunctionCode::enhanced_reject, {0x01}, enh(A | B | D, 0, 8)), &w), 9);
  EXPECT_EQ(w, (Wire{0x00, 0x07, 0x00, 0x05, 0xc0, 0x00, 0x40, 0x08, 0x01}));
}

TEST(SctpSession, EncodeUnenhancedCodes) {
  Wire w;
  ASSERT_EQ(encode(message(FunctionCode::accept, {0xab}), &w), 5);
  EXPECT_EQ(w, (Wire{0x00, 0x02, 0x00, 0x01, 0xab}));
  ASSERT_EQ(encode(message(FunctionCode::reject), &w), 4);
  EXPECT_EQ(w, (Wire{0x00, 0x03, 0x00, 0x00}));
  ASSERT_EQ(encode(message(FunctionCode::terminate), &w), 4);
  EXPECT_EQ(w, (Wire{0x00, 0x04, 0x00, 0x00}));
}

TEST(SctpSession, EncodeLargestEnhancedPrivateData) {
  // RFC 6581 section 7: 512 octets with the enhanced data, so 508 of ULP.
  const Wire pd(508, 0x77);
  Wire w;
  ASSERT_EQ(encode(message(FunctionCode::enhanced_accept, pd, enh(0, 1, 1)), &w), 516);
  EXPECT_EQ(w, cat({{0x00, 0x06, 0x02, 0x00, 0x00, 0x01, 0x00, 0x01}, pd}));
}

TEST(SctpSession, EncodeRefusesForbiddenMessages) {
  Wire w;
  // RFC 6581 section 7: no Private Data in the TERM message.
  EXPECT_EQ(encode(message(FunctionCode::terminate, {0x00}), &w), -EINVAL);
  // RFC 6581 section 7: 512 octets at most, the prefix included.
  EXPECT_EQ(encode(message(FunctionCode::enhanced_initiate, Wire(509), enh(0, 1, 1)), &w), -EINVAL);
  // RFC 6581 section 9: 14-bit IRD and ORD; B, C, D only with A.
  EXPECT_EQ(encode(message(FunctionCode::enhanced_initiate, {}, enh(0, 0x4000, 1)), &w), -EINVAL);
  EXPECT_EQ(encode(message(FunctionCode::enhanced_accept, {}, enh(0, 1, 0x4000)), &w), -EINVAL);
  EXPECT_EQ(encode(message(FunctionCode::enhanced_accept, {}, enh(B, 1, 1)), &w), -EINVAL);
  // No code beyond those the RFCs define.
  EXPECT_EQ(encode(message(static_cast<FunctionCode>(0), {}), &w), -EINVAL);
  EXPECT_EQ(encode(message(static_cast<FunctionCode>(8), {}), &w), -EINVAL);
}

TEST(SctpSession, EncodeNeedsRoom) {
  const SessionControl m = message(FunctionCode::enhanced_initiate, {1, 2, 3}, enh(0, 1, 1));
  uint8_t out[11];
  for (size_t n : {0, 4, 8, 10}) EXPECT_EQ(m.encode(kstd::MutableBytes(out, n)).error(), -ENOSPC) << n;
  EXPECT_EQ(m.encode(kstd::MutableBytes(out, 11)).value(), 11u);
}

// ---- Decoding -----------------------------------------------------------------

TEST(SctpSession, DecodeAcceptWithPrivateData) {
  const Wire w = {0x00, 0x02, 0x00, 0x02, 0xab, 0xcd};
  const auto m = SessionControl::decode(bytes(w));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().code, FunctionCode::accept);
  EXPECT_FALSE(m.value().is_enhanced());
  EXPECT_EQ(pd_of(m.value()), (Wire{0xab, 0xcd}));
}

TEST(SctpSession, DecodeEnhancedReject) {
  const Wire w = {0x00, 0x07, 0x00, 0x05, 0xc0, 0x00, 0x40, 0x08, 0xee};
  const auto m = SessionControl::decode(bytes(w));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().code, FunctionCode::enhanced_reject);
  EXPECT_EQ(m.value().enhanced.ctrl, A | B | D);
  EXPECT_EQ(m.value().enhanced.ird, 0);
  EXPECT_EQ(m.value().enhanced.ord, 8);
  // The ULP's part, pointing into the message for the ULP to examine.
  EXPECT_EQ(pd_of(m.value()), (Wire{0xee}));
  EXPECT_EQ(m.value().private_data.data(), w.data() + 8);
}

TEST(SctpSession, EnhancedDataIsTheMpaCodec) {
  // The same 32 bits mean the same in an MPA Reply (RFC 6581 section 9
  // serves both transports).
  const Wire prefix = {0xbf, 0xff, 0x40, 0x07};
  const Wire sctp = cat({{0x00, 0x06, 0x00, 0x04}, prefix});
  const Wire key(kReplyKey, kReplyKey + kKeyLen);
  const Wire mpa = cat({key, {0x10, 0x02, 0x00, 0x04}, prefix});
  const auto m = SessionControl::decode(bytes(sctp));
  const auto f = decode(bytes(mpa), FrameType::reply);
  ASSERT_TRUE(m.ok() && f.ok());
  EXPECT_EQ(m.value().enhanced.ctrl, f.value().enhanced.ctrl);
  EXPECT_EQ(m.value().enhanced.ird, f.value().enhanced.ird);
  EXPECT_EQ(m.value().enhanced.ord, f.value().enhanced.ord);
  EXPECT_EQ(m.value().enhanced.ctrl, A | D);
  EXPECT_EQ(m.value().enhanced.ird, 0x3fff);
}

TEST(SctpSession, UnenhancedCodesCarryNoPrefix) {
  // 0x1 to 0x3: the Private Data is all the ULP's, whatever it looks like.
  const Wire pd = {0x80, 0x04, 0x80, 0x02};
  for (uint8_t code : {0x01, 0x02, 0x03}) {
    const Wire w = cat({{0x00, code, 0x00, 0x04}, pd});
    const auto m = SessionControl::decode(bytes(w));
    ASSERT_TRUE(m.ok()) << int(code);
    EXPECT_FALSE(m.value().is_enhanced());
    EXPECT_EQ(pd_of(m.value()), pd);
  }
}

TEST(SctpSession, ControlFlagsWithoutAAreIgnoredOnReceipt) {
  // RFC 6581 section 9.2: B, C, D are ignored when A is 0.
  const auto m = SessionControl::decode(bytes({0x00, 0x06, 0x00, 0x04, 0x40, 0x01, 0xc0, 0x02}));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().enhanced.ctrl, 0);
  EXPECT_EQ(m.value().enhanced.ird, 1);
  EXPECT_EQ(m.value().enhanced.ord, 2);
}

TEST(SctpSession, RoundTripsEveryCode) {
  const Wire pd = {9, 8, 7};
  for (uint16_t c = 0x1; c <= 0x7; c++) {
    const FunctionCode code = static_cast<FunctionCode>(c);
    const bool term = code == FunctionCode::terminate;
    const SessionControl m = message(code, term ? Wire{} : pd, enh(A | C | D, 0x1234, 0x3fff));
    Wire w;
    const SessionControl back = over_the_wire(m, &w);
    EXPECT_EQ(back.code, code);
    EXPECT_EQ(pd_of(back), pd_of(m)) << c;
    if (back.is_enhanced()) {
      EXPECT_EQ(back.enhanced.ctrl, A | C | D);
      EXPECT_EQ(back.enhanced.ird, 0x1234);
      EXPECT_EQ(back.enhanced.ord, 0x3fff);
    }
  }
}

// ---- Receive-side validation, one rule each --------------------------------

TEST(SctpSession, TruncatedHeaderIsMalformed) {
  const Wire w = {0x00, 0x01, 0x00, 0x00};
  for (size_t n = 0; n < w.size(); n++)
    EXPECT_EQ(decode_error(Wire(w.begin(), w.begin() + n)), -EBADMSG) << n;
}

TEST(SctpSession, UnknownFunctionCodeIsRefused) {
  for (uint8_t code : {0x00, 0x08, 0x10, 0xff})
    EXPECT_EQ(decode_error({0x00, code, 0x00, 0x00}), -EPROTONOSUPPORT) << int(code);
}

TEST(SctpSession, UpperBitsOfTheFunctionCodeAreRefused) {
  // Whether RFC 5043 calls them Reserved or part of the code, a set upper
  // bit is no code that RFC 5043 or RFC 6581 defines.
  for (uint8_t hi : {0x01, 0x10, 0x80})
    EXPECT_EQ(decode_error({hi, 0x01, 0x00, 0x00}), -EPROTONOSUPPORT) << int(hi);
  EXPECT_EQ(decode_error({0xf0, 0x05, 0x00, 0x04, 0, 0, 0, 0}), -EPROTONOSUPPORT);
}

TEST(SctpSession, PdLengthMustMatchTheData) {
  EXPECT_EQ(decode_error({0x00, 0x01, 0x00, 0x03, 1, 2}), -EBADMSG);
  EXPECT_EQ(decode_error({0x00, 0x01, 0x00, 0x03, 1, 2, 3, 4}), -EBADMSG);
  EXPECT_EQ(decode_error({0x00, 0x02, 0x00, 0x00, 1}), -EBADMSG);
  EXPECT_EQ(decode_error({0x00, 0x05, 0x00, 0x05, 0, 1, 0, 1}), -EBADMSG);
}

TEST(SctpSession, EnhancedPrivateDataAbove512IsMalformed) {
  // RFC 6581 section 7: 512 octets in any enhanced message, prefix included.
  for (uint8_t code : {0x05, 0x06, 0x07}) {
    const Wire ok = cat({{0x00, code, 0x02, 0x00}, Wire(512)});
    EXPECT_TRUE(SessionControl::decode(bytes(ok)).ok()) << int(code);
    EXPECT_EQ(decode_error(cat({{0x00, code, 0x02, 0x01}, Wire(513)})), -EBADMSG) << int(code);
  }
}

TEST(SctpSession, PrivateDataInTerminateIsMalformed) {
  // RFC 6581 section 7: Private Data MUST NOT be in the TERM message.
  EXPECT_TRUE(SessionControl::decode(bytes({0x00, 0x04, 0x00, 0x00})).ok());
  EXPECT_EQ(decode_error({0x00, 0x04, 0x00, 0x01, 0x00}), -EBADMSG);
  EXPECT_EQ(decode_error({0x00, 0x04, 0x00, 0x04, 0x80, 0x01, 0x00, 0x01}), -EBADMSG);
}

TEST(SctpSession, EnhancedCodeWithoutRoomForThePrefixIsMalformed) {
  // RFC 6581 sections 7 and 9: the Private Data begins with 4 octets of
  // enhanced data.
  for (uint8_t code : {0x05, 0x06, 0x07}) {
    EXPECT_EQ(decode_error({0x00, code, 0x00, 0x00}), -EBADMSG) << int(code);
    EXPECT_EQ(decode_error({0x00, code, 0x00, 0x03, 0x80, 0x01, 0x00}), -EBADMSG) << int(code);
    EXPECT_TRUE(SessionControl::decode(bytes({0x00, code, 0x00, 0x04, 0x80, 0x01, 0x00, 0x01})).ok());
  }
}

// ---- The negotiator over SCTP -------------------------------------------------

TEST(SctpSession, InitiateIsEnhancedOnlyWhenThePolicyIs) {
  // RFC 6581 section 10: no enhanced code without an enhanced feature.
  const SessionControl plain = initiate(rfc5043_policy());
  EXPECT_EQ(plain.code, FunctionCode::initiate);
  Wire w;
  ASSERT_EQ(encode(plain, &w), 4);
  EXPECT_EQ(w, (Wire{0x00, 0x01, 0x00, 0x00}));

  const SessionControl enhanced = initiate(enhanced_policy(true), depths(3, 5));
  EXPECT_EQ(enhanced.code, FunctionCode::enhanced_initiate);
  ASSERT_EQ(encode(enhanced, &w), 8);
  // A|B|IRD 3, C|D|ORD 5: peer-to-peer offering every RTR type.
  EXPECT_EQ(w, (Wire{0x00, 0x05, 0x00, 0x04, 0xc0, 0x03, 0xc0, 0x05}));
}

TEST(SctpSession, PrivateDataLimitIncludesTheEnhancedPrefix) {
  EXPECT_TRUE(sctp::make_initiate(enhanced_policy(), depths(1, 1), bytes(Wire(508))).ok());
  EXPECT_EQ(sctp::make_initiate(enhanced_policy(), depths(1, 1), bytes(Wire(509))).error(), -EINVAL);
  Wire w;
  const SessionControl m = initiate(enhanced_policy(), depths(1, 1), Wire(508, 0x11));
  EXPECT_EQ(encode(m, &w), 516);
}

TEST(SctpSession, ResponderAnswersEnhancedInitiateWithEnhancedAccept) {
  // RFC 6581 section 7: Accept for an MPA Reply; section 9.1: responder ORD
  // at most the initiator IRD, responder IRD up to the initiator ORD.
  const auto a =
      sctp::accept_initiate(enhanced_policy(), initiate(enhanced_policy(), depths(2, 6)), depths(8, 8), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value.message.code, FunctionCode::enhanced_accept);
  EXPECT_EQ(a.value.message.enhanced.ord, 2);
  EXPECT_EQ(a.value.message.enhanced.ird, 8);
  EXPECT_EQ(a.value.agreed.ord, 2);
  EXPECT_TRUE(a.value.agreed.enhanced);
}

TEST(SctpSession, ResponderKeepsAcceptingUnenhancedInitiate) {
  // RFC 6581 section 10: the responder MUST accept unenhanced requests,
  // and answers them unenhanced.
  const auto a = sctp::accept_initiate(enhanced_policy(), initiate(rfc5043_policy()), depths(4, 4), {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value.message.code, FunctionCode::accept);
  EXPECT_FALSE(a.value.agreed.enhanced);
}

TEST(SctpSession, Rfc5043OnlyResponderClosesOnEnhancedInitiate) {
  const auto a = sctp::accept_initiate(rfc5043_policy(), initiate(enhanced_policy()), depths(4, 4), {});
  EXPECT_EQ(a.failure.action, Failure::Action::close);
  EXPECT_EQ(a.failure.error, -EPROTONOSUPPORT);
}

TEST(SctpSession, NegotiatorDecidesAsForMpa) {
  // The same Policy and depths give the same agreement over SCTP as over
  // MPA (without the MPA-only CRC and Markers).
  for (bool p2p : {false, true}) {
    for (uint16_t ird : {0, 1, 4, 0x3fff}) {
      for (uint16_t ord : {0, 3, 0x3fff}) {
        Policy p = enhanced_policy(p2p);
        p.crc = CrcPolicy::suppress;
        const ReadDepths mine = depths(ird, ord, 16, 16);
        const ReadDepths theirs = depths(2, 5, 16, 16);
        const auto req = make_request(p, mine, {});
        ASSERT_TRUE(req.ok());
        StartupFrame reply;
        const auto mpa = accept_request(p, req.value(), theirs, &reply, {});
        const auto over_sctp = sctp::accept_initiate(p, initiate(p, mine), theirs, {});
        ASSERT_TRUE(mpa.ok() && over_sctp.ok());
        const Negotiated& x = mpa.value;
        const Negotiated& y = over_sctp.value.agreed;
        EXPECT_EQ(x.ird, y.ird);
        EXPECT_EQ(x.ord, y.ord);
        EXPECT_EQ(x.rtr, y.rtr);
        EXPECT_EQ(x.peer_to_peer, y.peer_to_peer);
        EXPECT_EQ(reply.enhanced.ctrl, over_sctp.value.message.enhanced.ctrl);
        EXPECT_EQ(reply.enhanced.ird, over_sctp.value.message.enhanced.ird);
        EXPECT_EQ(reply.enhanced.ord, over_sctp.value.message.enhanced.ord);
      }
    }
  }
}

TEST(SctpSession, CrcAndMarkersPlayNoPart) {
  // SCTP has its own CRC32c and message boundaries: the MPA knobs neither
  // turn anything on nor refuse a peer.
  Policy p = enhanced_policy();
  p.crc = CrcPolicy::required;
  p.markers = MarkerPolicy::require;
  Policy refuse = enhanced_policy();
  refuse.markers = MarkerPolicy::refuse;
  const SessionControl i = initiate(p);
  const auto a = sctp::accept_initiate(refuse, i, depths(4, 4), {});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a.value.agreed.crc);
  EXPECT_FALSE(a.value.agreed.send_markers || a.value.agreed.recv_markers);
  const auto n = sctp::accept_answer(p, i, a.value.message, depths(4, 4));
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n.value.crc);
  EXPECT_FALSE(n.value.send_markers || n.value.recv_markers);
}

TEST(SctpSession, EnhancedRejectForWhatUnenhancedWouldAccept) {
  // RFC 6581 section 7: the Enhanced Reject MUST be used when the session
  // would have been accepted unenhanced. Here the responder needs ORD 4
  // and the initiator offers IRD 1 (section 9.1 MAY reject).
  Policy p = enhanced_policy();
  p.reject_short_ird = true;
  const auto enhanced = sctp::accept_initiate(p, initiate(enhanced_policy(), depths(1, 1)), depths(4, 4), {});
  EXPECT_EQ(enhanced.failure.action, Failure::Action::reject);
  EXPECT_EQ(enhanced.failure.code, MpaError::insufficient_ird);
  EXPECT_EQ(enhanced.value.message.code, FunctionCode::enhanced_reject);
  EXPECT_EQ(enhanced.value.message.enhanced.ord, 4);  // the ORD it needs
  Wire w;
  ASSERT_EQ(encode(enhanced.value.message, &w), 8);
  EXPECT_EQ(w, (Wire{0x00, 0x07, 0x00, 0x04, 0x00, 0x04, 0x00, 0x04}));

  const auto plain = sctp::accept_initiate(p, initiate(rfc5043_policy(), depths(1, 1)), depths(4, 4), {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value.message.code, FunctionCode::accept);
}

TEST(SctpSession, UlpRejectAnswersInKind) {
  // RFC 6581 section 7: Enhanced Active/Passive Session Rejected is RFC
  // 5043 section 6.3 with the extended codes; a reject may name the RTR
  // types the responder supports.
  Policy p = enhanced_policy();
  p.rtr_types = kRtrWrite;
  const Wire pd = {'n', 'o'};
  const auto plain = sctp::make_reject(p, initiate(rfc5043_policy()), 0, 0, bytes(pd));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value().code, FunctionCode::reject);
  EXPECT_EQ(pd_of(plain.value()), pd);
  const auto enhanced = sctp::make_reject(p, initiate(enhanced_policy(true)), 2, 3, bytes(pd));
  ASSERT_TRUE(enhanced.ok());
  EXPECT_EQ(enhanced.value().code, FunctionCode::enhanced_reject);
  EXPECT_EQ(enhanced.value().enhanced.ctrl, A | C);
  Wire w;
  ASSERT_EQ(encode(enhanced.value(), &w), 10);
  EXPECT_EQ(w, (Wire{0x00, 0x07, 0x00, 0x06, 0x80, 0x02, 0x80, 0x03, 'n', 'o'}));
  EXPECT_EQ(sctp::make_reject(p, sctp::make_terminate(), 0, 0, {}).error(), -EPROTO);
}

TEST(SctpSession, PeerToPeerSessionEndToEnd) {
  // Initiate, Accept and the initiator's decision, each through the codec.
  const Policy p = enhanced_policy(true);
  Wire w1, w2;
  const SessionControl i = initiate(p, depths(4, 2), {'h', 'i'});
  const SessionControl got_i = over_the_wire(i, &w1);
  EXPECT_EQ(pd_of(got_i), (Wire{'h', 'i'}));
  const Wire pd = {'o', 'k'};
  const auto a = sctp::accept_initiate(p, got_i, depths(3, 3), bytes(pd));
  ASSERT_TRUE(a.ok());
  const SessionControl got_a = over_the_wire(a.value.message, &w2);
  EXPECT_EQ(got_a.code, FunctionCode::enhanced_accept);
  EXPECT_EQ(pd_of(got_a), pd);
  const auto n = sctp::accept_answer(p, i, got_a, depths(4, 2));
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n.value.peer_to_peer);
  EXPECT_EQ(n.value.rtr, kRtrWrite);  // one of the mutual types
  EXPECT_GE(n.value.ird, a.value.agreed.ord);
  EXPECT_LE(n.value.ord, a.value.agreed.ird);
  EXPECT_EQ(n.value.peer_ird, got_a.enhanced.ird);
}

TEST(SctpSession, InitiatorShortOfIrdTerminatesWithCode6) {
  // RFC 6581 section 9.1, decided by the same negotiator over SCTP.
  const SessionControl i = initiate(enhanced_policy(), depths(2, 2, 2, 2));
  const SessionControl accept = message(FunctionCode::enhanced_accept, {}, enh(0, 2, 8));
  const auto n = sctp::accept_answer(enhanced_policy(), i, accept, depths(2, 2, 2, 2));
  EXPECT_EQ(n.failure.action, Failure::Action::terminate);
  EXPECT_EQ(n.failure.code, MpaError::insufficient_ird);
}

TEST(SctpSession, InitiatorTreatsRejectAsRefusal) {
  const SessionControl i = initiate(enhanced_policy());
  for (const SessionControl& r :
       {message(FunctionCode::reject, {}), message(FunctionCode::enhanced_reject, {}, enh(0, 0, 4))}) {
    const auto n = sctp::accept_answer(enhanced_policy(), i, r, depths(4, 4));
    EXPECT_EQ(n.failure.action, Failure::Action::close);
    EXPECT_EQ(n.failure.error, -ECONNREFUSED);
  }
}

TEST(SctpSession, AnswerOutOfPlaceIsMalformed) {
  const SessionControl plain = initiate(rfc5043_policy());
  const SessionControl enhanced = initiate(enhanced_policy());
  // Not an answer at all.
  for (FunctionCode c : {FunctionCode::initiate, FunctionCode::enhanced_initiate, FunctionCode::terminate}) {
    const auto n =
        sctp::accept_answer(enhanced_policy(), enhanced, message(c, {}, enh(0, 1, 1)), depths(4, 4));
    EXPECT_EQ(n.failure.action, Failure::Action::close);
    EXPECT_EQ(n.failure.error, -EPROTO);
  }
  // An Enhanced Accept to an unenhanced Initiate (RFC 6581 section 10).
  const auto n = sctp::accept_answer(enhanced_policy(), plain,
                                     message(FunctionCode::enhanced_accept, {}, enh(0, 1, 1)), depths(4, 4));
  EXPECT_EQ(n.failure.action, Failure::Action::close);
  // A responder handed something other than an Initiate.
  const auto a = sctp::accept_initiate(enhanced_policy(), message(FunctionCode::accept), depths(4, 4), {});
  EXPECT_EQ(a.failure.action, Failure::Action::close);
  EXPECT_EQ(a.failure.error, -EPROTO);
}

TEST(SctpSession, EnhancedSessionEndsWithTheOrdinaryTerminate) {
  // RFC 6581 section 7: streams set up with the enhanced codes end with
  // the DDP Stream Session Terminate code, without Private Data.
  const SessionControl t = sctp::make_terminate();
  EXPECT_EQ(t.code, FunctionCode::terminate);
  Wire w;
  ASSERT_EQ(encode(t, &w), 4);
  EXPECT_EQ(w, (Wire{0x00, 0x04, 0x00, 0x00}));
}

TEST(SctpSession, ViewsMapCodesToFrames) {
  const auto req = sctp::request_view(message(FunctionCode::enhanced_initiate, {}, enh(A | B, 1, 2)));
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(req.value().type, FrameType::request);
  EXPECT_EQ(req.value().rev, kRevEnhanced);
  EXPECT_EQ(req.value().flags.bits(), FrameFlags::s);
  const auto rej = sctp::reply_view(message(FunctionCode::reject, {}));
  ASSERT_TRUE(rej.ok());
  EXPECT_EQ(rej.value().rev, kRevUnenhanced);
  EXPECT_EQ(rej.value().flags.bits(), FrameFlags::r);
  const auto erej = sctp::reply_view(message(FunctionCode::enhanced_reject, {}, enh(0, 1, 1)));
  EXPECT_EQ(erej.value().flags.bits(), FrameFlags::s | FrameFlags::r);
  EXPECT_EQ(sctp::request_view(message(FunctionCode::accept)).error(), -EPROTO);
  EXPECT_EQ(sctp::reply_view(message(FunctionCode::terminate)).error(), -EPROTO);
}

}  // namespace

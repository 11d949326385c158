// SPDX-License-Identifier: GPL-2.0
// PeerMemory: the version a requester offers first on a new connection,
// after what earlier connections to that responder showed.
#include "rpcrdma/peer.h"

#include <gtest/gtest.h>

#include <string>

#include "rpcrdma/header.h"

namespace rpcrdma {
namespace {

TEST(PeerMemory, UnknownPeerGetsTwo) {
  PeerMemory m;
  EXPECT_EQ(m.first_version("10.77.0.1:20049"), kVersionTwo);
  EXPECT_EQ(m.size(), 0u);
}

TEST(PeerMemory, ErrVersWithoutTwoMeansOneNextTime) {
  PeerMemory m;
  m.err_vers("10.77.0.1:20049", 1, 1);
  EXPECT_EQ(m.first_version("10.77.0.1:20049"), kVersionOne);
  // Per peer: another port or address is another responder.
  EXPECT_EQ(m.first_version("10.77.0.1:20050"), kVersionTwo);
  EXPECT_EQ(m.first_version("10.77.0.2:20049"), kVersionTwo);
}

TEST(PeerMemory, ErrVersNamingTwoChangesNothing) {
  PeerMemory m;
  m.err_vers("a:1", 1, 3);
  EXPECT_EQ(m.first_version("a:1"), kVersionTwo);
  m.err_vers("a:1", 1, 1);
  m.err_vers("a:1", 2, 2);  // a responder upgraded since
  EXPECT_EQ(m.first_version("a:1"), kVersionTwo);
}

TEST(PeerMemory, LostProbeMeansOne) {
  PeerMemory m;
  m.probe_lost("a:1");
  EXPECT_EQ(m.first_version("a:1"), kVersionOne);
}

TEST(PeerMemory, ReplyInTwoForgets) {
  PeerMemory m;
  m.probe_lost("a:1");
  m.replied("a:1", kVersionOne);
  EXPECT_EQ(m.first_version("a:1"), kVersionOne);
  m.replied("a:1", kVersionTwo);
  EXPECT_EQ(m.first_version("a:1"), kVersionTwo);
  EXPECT_EQ(m.size(), 0u);
}

TEST(PeerMemory, RememberedTwiceIsOneEntry) {
  PeerMemory m;
  m.err_vers("a:1", 1, 1);
  m.probe_lost("a:1");
  EXPECT_EQ(m.size(), 1u);
}

TEST(PeerMemory, FullTableDropsTheOldest) {
  PeerMemory m;
  for (uint32_t i = 0; i < PeerMemory::kPeers; i++) m.probe_lost("p" + std::to_string(i));
  m.probe_lost("p0");  // written again: now the newest
  m.probe_lost("new");
  EXPECT_EQ(m.size(), PeerMemory::kPeers);
  EXPECT_EQ(m.first_version("new"), kVersionOne);
  EXPECT_EQ(m.first_version("p0"), kVersionOne);
  EXPECT_EQ(m.first_version("p1"), kVersionTwo);  // the oldest went
  for (uint32_t i = 2; i < PeerMemory::kPeers; i++)
    EXPECT_EQ(m.first_version("p" + std::to_string(i)), kVersionOne) << i;
}

TEST(PeerMemory, ForgettingKeepsTheOthers) {
  PeerMemory m;
  m.probe_lost("a:1");
  m.probe_lost("b:1");
  m.probe_lost("c:1");
  m.replied("a:1", kVersionTwo);
  EXPECT_EQ(m.first_version("a:1"), kVersionTwo);
  EXPECT_EQ(m.first_version("b:1"), kVersionOne);
  EXPECT_EQ(m.first_version("c:1"), kVersionOne);
}

TEST(PeerMemory, LongKeysAreCut) {
  PeerMemory m;
  const std::string a(100, 'a'), b = std::string(PeerMemory::kKeyLen, 'a') + "b";
  m.probe_lost(a);
  // Equal in their first kKeyLen octets: one peer to the table.
  EXPECT_EQ(m.first_version(b), kVersionOne);
  EXPECT_EQ(m.size(), 1u);
}

}  // namespace
}  // namespace rpcrdma

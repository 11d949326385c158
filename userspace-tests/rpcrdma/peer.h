// SPDX-License-Identifier: GPL-2.0
// What a requester remembers of each responder across connections: the
// seed's way out of a version negotiation loop. "If the connection is
// lost immediately after an RDMA2_ERROR / RDMA2_ERR_VERS message is
// received, a client can avoid a possible version negotiation loop when
// re-establishing another connection by assuming that particular server
// does not support RPC-over-RDMA Version Two. A client can assume the
// same situation [...] if the initial negotiation message is lost or
// dropped."
//
// This library remembers more than the loop needs: a responder that
// answered ERR_VERS without Two in its range, or never answered the
// first Version Two message of a connection, gets Version One first on
// every later connection until it is seen speaking Two (a connection
// started in One never learns that: the memory lasts as long as this
// object, a process's lifetime in the tools). A fixed table, no
// allocation; with more peers than it holds, the oldest entry goes.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace rpcrdma {

class PeerMemory {
 public:
  static constexpr uint32_t kPeers = 16;
  static constexpr uint32_t kKeyLen = 64;  // "address:port", longer keys cut

  // The version to offer first on a new connection to @peer.
  uint32_t first_version(std::string_view peer) const;

  // What a connection to @peer showed:
  // an ERR_VERS naming [@low, @high] in answer to our Version Two;
  void err_vers(std::string_view peer, uint32_t low, uint32_t high);
  // the first Version Two message got no answer before the connection
  // ended or the requester gave up;
  void probe_lost(std::string_view peer);
  // a reply in @version (not an error).
  void replied(std::string_view peer, uint32_t version);

  uint32_t size() const { return n_; }

 private:
  struct Entry {
    std::array<char, kKeyLen> key{};
    uint32_t len = 0;
    uint32_t age = 0;  // larger: more recently written
  };
  int index(std::string_view peer) const;  // -1: not remembered
  void remember_one(std::string_view peer);
  void forget(std::string_view peer);

  std::array<Entry, kPeers> e_{};
  uint32_t n_ = 0;
  uint32_t clock_ = 0;
};

}  // namespace rpcrdma

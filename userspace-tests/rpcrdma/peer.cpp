// SPDX-License-Identifier: GPL-2.0
#include "peer.h"

#include <algorithm>

#include "header.h"

namespace rpcrdma {

namespace {

std::string_view cut(std::string_view peer) { return peer.substr(0, PeerMemory::kKeyLen); }

}  // namespace

int PeerMemory::index(std::string_view peer) const {
  peer = cut(peer);
  for (uint32_t i = 0; i < n_; i++)
    if (std::string_view(e_[i].key.data(), e_[i].len) == peer) return int(i);
  return -1;
}

uint32_t PeerMemory::first_version(std::string_view peer) const {
  return index(peer) < 0 ? kVersionTwo : kVersionOne;
}

void PeerMemory::remember_one(std::string_view peer) {
  peer = cut(peer);
  const int i = index(peer);
  Entry* slot = i >= 0 ? &e_[uint32_t(i)] : n_ < kPeers ? &e_[n_++] : nullptr;
  if (!slot)  // full: the entry written longest ago goes
    slot =
        std::min_element(e_.begin(), e_.end(), [](const Entry& a, const Entry& b) { return a.age < b.age; });
  std::copy(peer.begin(), peer.end(), slot->key.begin());
  slot->len = uint32_t(peer.size());
  slot->age = ++clock_;
}

void PeerMemory::forget(std::string_view peer) {
  const int i = index(peer);
  if (i < 0) return;
  e_[uint32_t(i)] = e_[n_ - 1];
  e_[--n_] = Entry{};
}

void PeerMemory::err_vers(std::string_view peer, uint32_t low, uint32_t high) {
  if (low <= kVersionTwo && kVersionTwo <= high)
    forget(peer);
  else
    remember_one(peer);
}

void PeerMemory::probe_lost(std::string_view peer) { remember_one(peer); }

void PeerMemory::replied(std::string_view peer, uint32_t version) {
  if (version == kVersionTwo) forget(peer);
}

}  // namespace rpcrdma

// SPDX-License-Identifier: GPL-2.0
// Version Two transport property operations: decode and encode.
#include "props.h"

namespace rpcrdma {
namespace {

using xdr::Reader;
using xdr::Writer;

PropStatus decode_set(Reader& r, PropSet& s) {
  const uint32_t n = r.u32();
  // Each element is at least eight octets (which, and an empty opaque).
  if (!r.has(size_t{n} * 8)) return PropStatus::bad_xdr;
  if (n > kMaxProps) return PropStatus::too_many;
  s = PropSet{};
  for (uint32_t i = 0; i < n; i++) {
    s.v[i].which = r.u32();
    s.v[i].data = r.opaque();
  }
  s.n = n;
  return r.ok() ? PropStatus::ok : PropStatus::bad_xdr;
}

PropStatus decode_subset(Reader& r, PropSubset& s) {
  const uint32_t n = r.u32();
  if (!r.has(size_t{n} * 4)) return PropStatus::bad_xdr;
  s = PropSubset{};
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t w = r.u32();
    if (i < kMaxSubsetWords)
      s.words[i] = w;
    else if (w)
      s.beyond = true;
  }
  s.nwords = n < kMaxSubsetWords ? n : kMaxSubsetWords;
  return r.ok() ? PropStatus::ok : PropStatus::bad_xdr;
}

void encode_set(Writer& w, const PropSet& s) {
  w.u32(s.n);
  for (uint32_t i = 0; i < s.n; i++) {
    w.u32(s.v[i].which);
    w.opaque(s.v[i].data);
  }
}

void encode_subset(Writer& w, const PropSubset& s) {
  w.u32(s.nwords);
  for (uint32_t i = 0; i < s.nwords; i++) w.u32(s.words[i]);
}

}  // namespace

bool PropSet::add(uint32_t which, xdr::Bytes data) {
  if (n == kMaxProps) return false;
  v[n++] = {which, data};
  return true;
}

bool PropSet::u32(uint32_t which, uint32_t* out) const {
  for (uint32_t i = 0; i < n; i++) {
    if (v[i].which != which) continue;
    if (v[i].data.size() != 4) return false;
    const uint8_t* p = v[i].data.data();
    *out = uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
    return true;
  }
  return false;
}

void PropSubset::set(uint32_t pos) {
  if (pos / 32 >= kMaxSubsetWords) return;
  words[pos / 32] |= 1u << (pos % 32);
  if (nwords <= pos / 32) nwords = pos / 32 + 1;
}

PropStatus decode_props(uint32_t type, xdr::Bytes info, PropMsg* out) {
  Reader r(info);
  PropMsg& m = *out;
  m = PropMsg{};
  PropStatus s;
  switch (type) {
    case uint32_t(OptType::connprop):
      s = decode_set(r, m.set);
      if (s == PropStatus::ok) s = decode_subset(r, m.nochg);
      break;
    case uint32_t(OptType::reqprop):
    case uint32_t(OptType::updprop):
      s = decode_set(r, m.set);
      break;
    case uint32_t(OptType::resprop):
      s = decode_subset(r, m.done);
      if (s == PropStatus::ok) s = decode_subset(r, m.rejected);
      if (s == PropStatus::ok) s = decode_set(r, m.set);
      break;
    default:
      return PropStatus::unknown_type;
  }
  m.type = OptType(type);
  if (s == PropStatus::ok && !r.rest().empty()) s = PropStatus::bad_xdr;
  return s;
}

size_t encode_props(const PropMsg& m, xdr::MutableBytes out) {
  Writer w(out);
  switch (m.type) {
    case OptType::connprop:
      encode_set(w, m.set);
      encode_subset(w, m.nochg);
      break;
    case OptType::reqprop:
    case OptType::updprop:
      encode_set(w, m.set);
      break;
    case OptType::resprop:
      encode_subset(w, m.done);
      encode_subset(w, m.rejected);
      encode_set(w, m.set);
      break;
    default:
      return 0;
  }
  return w.length();
}

}  // namespace rpcrdma

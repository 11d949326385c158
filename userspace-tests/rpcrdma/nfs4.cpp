// SPDX-License-Identifier: GPL-2.0
#include "nfs4.h"

#include <algorithm>
#include <cstdint>

namespace rpcrdma::nfs4 {

namespace {

constexpr uint32_t kMinorVersion = 0;
constexpr uint32_t kAttrType = 1, kAttrSize = 4;

xdr::Bytes text(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// stateid4 {seqid, other[12]}: the anonymous stateid, all zeros.
void anonymous_stateid(xdr::Writer& w) {
  for (int i = 0; i < 4; i++) w.u32(0);
}

}  // namespace

Compound::Compound(xdr::Writer& w, std::string_view tag, uint32_t nops) : w_(w) {
  w_.opaque(text(tag));
  w_.u32(kMinorVersion);
  w_.u32(nops);
}

void Compound::putrootfh() { w_.u32(uint32_t(Op::putrootfh)); }

void Compound::putfh(const Fh& fh) {
  w_.u32(uint32_t(Op::putfh));
  w_.opaque(fh.bytes());
}

void Compound::lookup(std::string_view name) {
  w_.u32(uint32_t(Op::lookup));
  w_.opaque(text(name));
}

void Compound::getfh() { w_.u32(uint32_t(Op::getfh)); }

void Compound::getattr_type_size() {
  w_.u32(uint32_t(Op::getattr));
  w_.u32(1);  // bitmap4 of one word
  w_.u32(1u << kAttrType | 1u << kAttrSize);
}

void Compound::read(uint64_t offset, uint32_t count) {
  w_.u32(uint32_t(Op::read));
  anonymous_stateid(w_);
  w_.u64(offset);
  w_.u32(count);
}

size_t Compound::write(uint64_t offset, xdr::Bytes data, bool inline_data) {
  w_.u32(uint32_t(Op::write));
  anonymous_stateid(w_);
  w_.u64(offset);
  w_.u32(kFileSync);
  if (inline_data) {
    w_.opaque(data);
    return w_.length();
  }
  if (data.size() > UINT32_MAX) w_.fail();
  w_.u32(uint32_t(data.size()));
  return w_.length();
}

void Compound::readdir(uint32_t dircount, uint32_t maxcount) {
  w_.u32(uint32_t(Op::readdir));
  w_.u64(0);  // cookie
  w_.u64(0);  // cookieverf
  w_.u32(dircount);
  w_.u32(maxcount);
  w_.u32(0);  // attr_request: a bitmap4 of no words
}

Results::Results(xdr::Reader& r) : r_(r) {
  status_ = r_.u32();
  r_.opaque();  // tag
  count_ = r_.u32();
}

bool Results::op(Op want) {
  if (!r_.ok() || next_ >= count_) return false;
  next_++;
  const uint32_t got = r_.u32();
  const uint32_t status = r_.u32();
  if (!r_.ok() || got != uint32_t(want)) {
    r_.fail();
    return false;
  }
  status_ = status;
  return status == kOk;
}

bool Results::getfh(Fh* out) {
  if (!op(Op::getfh)) return false;
  const xdr::Bytes fh = r_.opaque();
  if (!r_.ok() || fh.size() > kFhSize) return false;
  std::copy(fh.begin(), fh.end(), out->b.begin());
  out->len = uint32_t(fh.size());
  return true;
}

bool Results::getattr_type_size(uint32_t* type, uint64_t* size) {
  if (!op(Op::getattr)) return false;
  const uint32_t words = r_.u32();
  const uint32_t mask = words ? r_.u32() : 0;
  for (uint32_t i = 1; i < words && r_.ok(); i++) r_.u32();
  const xdr::Bytes vals = r_.opaque();
  if (!r_.ok() || mask != (1u << kAttrType | 1u << kAttrSize)) return false;
  xdr::Reader v(vals);
  *type = v.u32();
  *size = v.u64();
  return v.ok() && v.rest().empty();
}

bool Results::read(bool* eof, uint32_t* len, xdr::Bytes* data) {
  if (!op(Op::read)) return false;
  *eof = r_.present();
  if (data) {
    *data = r_.opaque();
    *len = uint32_t(data->size());
  } else {
    *len = r_.u32();
  }
  return r_.ok();
}

bool Results::write(uint32_t* count, uint32_t* committed) {
  if (!op(Op::write)) return false;
  *count = r_.u32();
  *committed = r_.u32();
  r_.u64();  // writeverf
  return r_.ok();
}

}  // namespace rpcrdma::nfs4

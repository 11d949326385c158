// SPDX-License-Identifier: GPL-2.0
// The NFSv4.0 operations the tools send to Linux's nfsd over
// RPC-over-RDMA (RFC 7530, XDR in RFC 7531): one COMPOUND (procedure 1)
// at a time, written op by op, and its results read back op by op.
// Minor version 0, so no SEQUENCE: READ and WRITE use the anonymous
// stateid (all zeros), which needs no OPEN.
//
// DDP-eligible items (RFC 8267, the NFS upper-layer binding): READ's data
// and WRITE's data. When they go by RDMA, their length stays in the XDR
// stream and their octets (and padding) leave it: Compound::write() says
// where its data would begin (a read chunk's position), Results::read()
// takes the length only.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "xdr.h"

namespace rpcrdma::nfs4 {

constexpr uint32_t kProg = 100003;
constexpr uint32_t kVers = 4;
constexpr uint32_t kProcCompound = 1;

enum class Op : uint32_t {
  getattr = 9,
  getfh = 10,
  lookup = 15,
  putfh = 22,
  putrootfh = 24,
  read = 25,
  readdir = 26,
  write = 38,
};

constexpr uint32_t kOk = 0;        // NFS4_OK
constexpr uint32_t kFileSync = 2;  // stable_how4 FILE_SYNC4
constexpr uint32_t kTypeReg = 1, kTypeDir = 2;
constexpr uint32_t kFhSize = 128;  // NFS4_FHSIZE

struct Fh {
  std::array<uint8_t, kFhSize> b{};
  uint32_t len = 0;
  xdr::Bytes bytes() const { return {b.data(), len}; }
};

// COMPOUND4args, minor version 0, @nops operations that the caller then
// writes with the member functions, in order.
class Compound {
 public:
  Compound(xdr::Writer& w, std::string_view tag, uint32_t nops);

  void putrootfh();
  void putfh(const Fh& fh);
  void lookup(std::string_view name);
  void getfh();
  // GETATTR of type (1) and size (4).
  void getattr_type_size();
  void read(uint64_t offset, uint32_t count);
  // WRITE, FILE_SYNC4, of @data at @offset. With @inline_data false only
  // the length is written; the return value is where the octets begin in
  // the stream (a read chunk's position). 0 if the writer failed.
  size_t write(uint64_t offset, xdr::Bytes data, bool inline_data);
  // READDIR from the start, no attributes.
  void readdir(uint32_t dircount, uint32_t maxcount);

 private:
  xdr::Writer& w_;
};

// COMPOUND4res, read op by op. Each call reads one result and is false if
// it is not the op asked for, its status is not NFS4_OK (status() says
// which), or the XDR does not decode (reader failed).
class Results {
 public:
  explicit Results(xdr::Reader& r);

  uint32_t status() const { return status_; }  // the failing op's, or the COMPOUND's
  uint32_t count() const { return count_; }

  bool putrootfh() { return op(Op::putrootfh); }
  bool putfh() { return op(Op::putfh); }
  bool lookup() { return op(Op::lookup); }
  bool getfh(Fh* out);
  bool getattr_type_size(uint32_t* type, uint64_t* size);
  // With @data null the octets went by RDMA (a write chunk): only the
  // length is in the stream.
  bool read(bool* eof, uint32_t* len, xdr::Bytes* data);
  bool write(uint32_t* count, uint32_t* committed);
  // Each entry's name to @each(name); the listing's eof.
  template <typename F>
  bool readdir(F each, bool* eof);

 private:
  bool op(Op want);

  xdr::Reader& r_;
  uint32_t status_ = 0;
  uint32_t count_ = 0;
  uint32_t next_ = 0;
};

template <typename F>
bool Results::readdir(F each, bool* eof) {
  if (!op(Op::readdir)) return false;
  r_.u64();  // cookieverf
  while (r_.present()) {
    r_.u64();  // cookie
    const xdr::Bytes name = r_.opaque();
    for (uint32_t n = r_.u32(); n && r_.ok(); n--) r_.u32();  // attrmask
    r_.opaque();                                              // attr_vals
    if (!r_.ok()) return false;
    each(std::string_view(reinterpret_cast<const char*>(name.data()), name.size()));
  }
  *eof = r_.present();
  return r_.ok();
}

}  // namespace rpcrdma::nfs4

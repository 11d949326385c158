// SPDX-License-Identifier: GPL-2.0
// Version Two transport properties (seed sections "Transport Properties"
// and "Property Exchange Operations").
//
// The seed contradicts itself on how the four property operations travel:
// its prose makes them RDMA2_OPTIONAL messages of rdma_opttype 1..4 (a
// table of "code" and "XDR type", none with an RPC payload), its XDR makes
// them rdma_proc values 6..9. This library follows the prose: the
// operations are OPTIONAL types, each body the XDR of its structure inside
// rdma_optinfo. Why: the prose's rules only make sense that way (a peer
// that does not support an operation answers RDMA2_ERR_INVAL_OPTION, which
// the seed defines for unknown opttypes; "implementations which send
// RDMA2_REQPROP must support RDMA2_RESPROP" speaks of optional support), and
// a Version Two peer that implements no property operation still rejects
// them with the error the sender expects. A message with rdma_proc 6..9 is
// answered RDMA2_ERR_INVAL_PROC, as any proc the receiver does not define.
#pragma once

#include <array>
#include <cstdint>

#include "xdr.h"

namespace rpcrdma {

enum class OptType : uint32_t { connprop = 1, reqprop = 2, resprop = 3, updprop = 4 };

// Property identifiers (seed: "Basic Transport Properties").
constexpr uint32_t kPropRbsiz = 1;  // Receive Buffer Size: uint32, default 4096
constexpr uint32_t kPropBrs = 2;    // Backward Request Support: enum, default INLINE
// rpcrdma2_bkreqsup
constexpr uint32_t kBrsNone = 0, kBrsInline = 1, kBrsGenl = 2;
// 4,294,967,040 to 4,294,967,295 are for experiments.
constexpr uint32_t kPropExperimentalFirst = 0xffffff00;

constexpr uint32_t kMaxProps = 32;  // one propset
constexpr uint32_t kMaxSubsetWords = kMaxProps / 32;

struct PropVal {
  uint32_t which = 0;
  xdr::Bytes data;  // a view into the decoded buffer
};

struct PropSet {
  std::array<PropVal, kMaxProps> v{};
  uint32_t n = 0;
  bool add(uint32_t which, xdr::Bytes data);
  // The value of property @which as a uint32 (RBSIZ, BRS): false if absent
  // or not four octets.
  bool u32(uint32_t which, uint32_t* out) const;
};

// A bitmap over the positions of a propset sent before: bit N mod 32 of
// word N div 32 stands for the propset's element N.
struct PropSubset {
  std::array<uint32_t, kMaxSubsetWords> words{};
  uint32_t nwords = 0;
  bool beyond = false;  // bits set past what words[] holds: no such element
  bool has(uint32_t pos) const { return pos / 32 < nwords && (words[pos / 32] >> (pos % 32) & 1); }
  void set(uint32_t pos);
};

struct PropMsg {
  OptType type = OptType::connprop;
  PropSet set;          // connprop rdma_start, reqprop rdma_want, resprop rdma_other, updprop rdma_now
  PropSubset nochg;     // connprop
  PropSubset done;      // resprop
  PropSubset rejected;  // resprop
};

enum class PropStatus : uint8_t { ok, bad_xdr, unknown_type, too_many };

// Decodes the rdma_optinfo of an OPTIONAL message of @type. Trailing
// octets after the structure are bad XDR.
PropStatus decode_props(uint32_t type, xdr::Bytes info, PropMsg* out);
// Octets written into @out, 0 if they do not fit.
size_t encode_props(const PropMsg& m, xdr::MutableBytes out);

// The u32 encoding of a property value, for PropSet::add().
struct U32Value {
  std::array<uint8_t, 4> b;
  explicit U32Value(uint32_t v) : b{uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)} {}
  xdr::Bytes bytes() const { return b; }
};

}  // namespace rpcrdma

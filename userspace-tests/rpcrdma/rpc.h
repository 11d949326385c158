// SPDX-License-Identifier: GPL-2.0
// Just enough ONC RPC (RFC 5531) for the tools: call and reply headers
// with AUTH_NONE or AUTH_SYS, and the test program that rpcrdma-server
// serves.
#pragma once

#include <cstdint>
#include <string_view>

#include "xdr.h"

namespace rpcrdma::rpc {

// The test program, in the range RFC 5531 leaves to users
// (0x20000000 - 0x3fffffff): version 1, NULL and ECHO.
constexpr uint32_t kTestProg = 0x20007869;
constexpr uint32_t kTestVers = 1;
constexpr uint32_t kProcNull = 0;
constexpr uint32_t kProcEcho = 1;  // opaque<> in, the same opaque<> out

enum AcceptStat : uint32_t {
  kSuccess = 0,
  kProgUnavail = 1,
  kProgMismatch = 2,
  kProcUnavail = 3,
  kGarbageArgs = 4,
  kSystemErr = 5,
};

struct Call {
  uint32_t xid = 0, prog = 0, vers = 0, proc = 0;
};

struct Reply {
  uint32_t xid = 0;
  bool accepted = false;  // MSG_ACCEPTED (else MSG_DENIED)
  uint32_t stat = 0;      // accept_stat, or reject_stat if denied
};

// An AUTH_SYS credential (RFC 5531 appendix A), no supplementary groups.
struct AuthSys {
  uint32_t stamp = 0;
  std::string_view machine;  // at most 255 octets
  uint32_t uid = 0, gid = 0;
};

// With @cred, an AUTH_SYS credential; else AUTH_NONE. The verifier is
// AUTH_NONE either way.
void encode_call(xdr::Writer& w, const Call& c, const AuthSys* cred = nullptr);
// False unless a CALL of RPC version 2 (its credential and verifier are
// skipped, whatever their flavor).
bool decode_call(xdr::Reader& r, Call* c);
void encode_reply(xdr::Writer& w, uint32_t xid, AcceptStat stat);
bool decode_reply(xdr::Reader& r, Reply* out);

}  // namespace rpcrdma::rpc

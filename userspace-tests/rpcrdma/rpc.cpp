// SPDX-License-Identifier: GPL-2.0
// ONC RPC call and reply headers (RFC 5531 section 9), AUTH_NONE and
// AUTH_SYS.
#include "rpc.h"

namespace rpcrdma::rpc {
namespace {

constexpr uint32_t kCall = 0, kReply = 1, kRpcVers = 2;
constexpr uint32_t kMsgAccepted = 0, kMsgDenied = 1;
constexpr uint32_t kAuthNone = 0, kAuthSys = 1;
constexpr size_t kMaxMachineName = 255;
constexpr uint32_t kRpcMismatch = 0;

void auth_none(xdr::Writer& w) {
  w.u32(kAuthNone);
  w.u32(0);
}

}  // namespace

void encode_call(xdr::Writer& w, const Call& c, const AuthSys* cred) {
  w.u32(c.xid);
  w.u32(kCall);
  w.u32(kRpcVers);
  w.u32(c.prog);
  w.u32(c.vers);
  w.u32(c.proc);
  if (cred) {
    if (cred->machine.size() > kMaxMachineName) return w.fail();
    const auto name =
        xdr::Bytes(reinterpret_cast<const uint8_t*>(cred->machine.data()), cred->machine.size());
    w.u32(kAuthSys);
    w.u32(uint32_t(4 + 4 + xdr::pad4(name.size()) + 4 + 4 + 4));  // the body's length
    w.u32(cred->stamp);
    w.opaque(name);
    w.u32(cred->uid);
    w.u32(cred->gid);
    w.u32(0);  // gids<16>: none
  } else {
    auth_none(w);  // credential
  }
  auth_none(w);  // verifier
}

bool decode_call(xdr::Reader& r, Call* c) {
  c->xid = r.u32();
  if (r.u32() != kCall || r.u32() != kRpcVers) return false;
  c->prog = r.u32();
  c->vers = r.u32();
  c->proc = r.u32();
  for (int i = 0; i < 2; i++) {  // credential, verifier
    r.u32();
    r.opaque();
  }
  return r.ok();
}

void encode_reply(xdr::Writer& w, uint32_t xid, AcceptStat stat) {
  w.u32(xid);
  w.u32(kReply);
  w.u32(kMsgAccepted);
  auth_none(w);
  w.u32(stat);
  if (stat == kProgMismatch) {  // the versions we serve
    w.u32(kTestVers);
    w.u32(kTestVers);
  }
}

bool decode_reply(xdr::Reader& r, Reply* out) {
  out->xid = r.u32();
  if (r.u32() != kReply) return false;
  const uint32_t stat = r.u32();
  if (stat == kMsgAccepted) {
    r.u32();  // verifier flavor
    r.opaque();
    out->accepted = true;
    out->stat = r.u32();
    if (out->stat == kProgMismatch) {
      r.u32();
      r.u32();
    }
  } else if (stat == kMsgDenied) {
    out->accepted = false;
    out->stat = r.u32();
    if (out->stat == kRpcMismatch) {
      r.u32();
      r.u32();
    } else {
      r.u32();  // auth_stat
    }
  } else {
    return false;
  }
  return r.ok();
}

}  // namespace rpcrdma::rpc

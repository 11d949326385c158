// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the RPC-over-RDMA transport header decoder (Version
// One and Two), the property operations and RFC 8797 private data, on
// arbitrary input. Invariants:
//  - a decode never reads outside its input (ASan: the input is an exact
//    heap copy) and never loops longer than its input allows;
//  - what decodes re-encodes to the octets it came from (the header is
//    canonical: XDR bools and enums are checked, and a decoded OPTIONAL
//    body is compared without its pad octets), and decodes again the same;
//  - every refused request has an RDMA_ERROR answer that encodes and
//    decodes as an error of the request's xid and version;
//  - the requester and responder take any message (check_endpoints()).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "rpcrdma/endpoint.h"
#include "rpcrdma/header.h"
#include "rpcrdma/private_data.h"
#include "rpcrdma/props.h"

namespace {

using namespace rpcrdma;

#define CHECK(x)                \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

void check_props(const Header& h) {
  PropMsg m;
  if (decode_props(h.optional.type, h.optional.info, &m) != PropStatus::ok) return;
  std::vector<uint8_t> out(h.optional.info.size() + 8);
  const size_t n = encode_props(m, out);
  CHECK(n > 0);
  // Subsets keep only their first kMaxSubsetWords words, so a longer one
  // re-encodes shorter; otherwise the encoding is the same up to padding.
  PropMsg again;
  CHECK(decode_props(h.optional.type, xdr::Bytes(out.data(), n), &again) == PropStatus::ok);
  CHECK(again.set.n == m.set.n);
  for (uint32_t i = 0; i < m.set.n; i++) {
    CHECK(again.set.v[i].which == m.set.v[i].which);
    CHECK(again.set.v[i].data.size() == m.set.v[i].data.size());
    CHECK(!memcmp(again.set.v[i].data.data(), m.set.v[i].data.data(), m.set.v[i].data.size()));
  }
  for (uint32_t bit = 0; bit < 32 * kMaxSubsetWords; bit++) {
    CHECK(again.nochg.has(bit) == m.nochg.has(bit));
    CHECK(again.done.has(bit) == m.done.has(bit));
    CHECK(again.rejected.has(bit) == m.rejected.has(bit));
  }
}

void check_header(const std::vector<uint8_t>& in) {
  Header h;
  const Decoded d = decode(in, &h);
  Prefix p;
  if (d.status == Status::truncated) {
    CHECK(!peek_prefix(in, &p));
    return;
  }
  CHECK(peek_prefix(in, &p));
  if (d.status != Status::ok) {
    const Header e = error_for(p, d.status, 7);
    std::vector<uint8_t> out(64);
    const size_t n = encode(e, out);
    CHECK(n > 0);
    Header back;
    CHECK(decode(xdr::Bytes(out.data(), n), &back).status == Status::ok);
    CHECK(back.proc == Proc::error && back.xid == p.xid && back.vers == p.vers);
    return;
  }
  CHECK(d.length <= in.size());
  std::vector<uint8_t> out(d.length);
  CHECK(encode(h, out) == d.length);
  const size_t cmp = h.proc == Proc::optional
                         ? d.length - (xdr::pad4(h.optional.info.size()) - h.optional.info.size())
                         : d.length;
  CHECK(!memcmp(out.data(), in.data(), cmp));
  Header again;
  const Decoded d2 = decode(out, &again);
  CHECK(d2.status == Status::ok && d2.length == d.length);
  if (h.proc == Proc::optional) check_props(h);
}

// Both endpoints take any message: a responder's answer always encodes
// (in the request's version, echoing its xid), and a requester never
// counts below zero calls outstanding nor grants itself more credits
// than it asked for.
void check_endpoints(const std::vector<uint8_t>& in) {
  for (const bool two : {false, true}) {
    Responder rs(8, two, true);
    const Responder::Request q = rs.receive(in);
    if (q.what == Responder::Action::error) {
      std::vector<uint8_t> out(64);
      const size_t n = encode(q.answer, out);
      CHECK(n > 0);
      Header back;
      CHECK(decode(xdr::Bytes(out.data(), n), &back).status == Status::ok);
      CHECK(back.proc == Proc::error && back.xid == q.xid && back.vers == q.vers);
    }
  }
  Requester rq(kVersionTwo, 4);
  rq.call(1);
  const Requester::Received r = rq.receive(in);
  CHECK(rq.credits() >= 1 && rq.credits() <= 4);
  if (r.what == Requester::Outcome::reply || r.what == Requester::Outcome::failed) CHECK(rq.may_send());
  if (r.what == Requester::Outcome::resend) CHECK(rq.version() == kVersionOne && !rq.may_send());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> in(data, data + size);
  check_header(in);
  check_endpoints(in);
  const PrivateData pd = decode_private_data(in);
  CHECK(pd.send_size >= kDefaultInline && pd.send_size <= kMaxInline && pd.send_size % 1024 == 0);
  CHECK(pd.recv_size >= kDefaultInline && pd.recv_size <= kMaxInline && pd.recv_size % 1024 == 0);
  const std::array<uint8_t, 8> again = encode_private_data(pd);
  const PrivateData pd2 = decode_private_data(again);
  CHECK(pd2.send_size == pd.send_size && pd2.recv_size == pd.recv_size &&
        pd2.remote_invalidate == pd.remote_invalidate);
  return 0;
}

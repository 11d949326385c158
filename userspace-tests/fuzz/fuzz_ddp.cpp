// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: DDP/RDMAP segment headers and TERMINATE payloads from
// arbitrary octets. A header that decodes must re-encode to the same
// octets (reserved fields aside); every rejection names an RFC error.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ddp/header.h"
#include "ddp/term.h"

namespace {

using namespace xiw::ddp;

#define CHECK(x)                \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const kstd::Bytes in(data, size);
  Header h;
  TermError e;
  const int rc = decode(in, &h, &e);
  if (rc == 0) {
    uint8_t out[64];
    auto n = encode(h, kstd::MutableBytes(out));
    CHECK(n.ok() && n.value() == header_length(h.opcode) && n.value() <= size);
    // Control octets, queue, MSN, MO and Read Request fields survive.
    CHECK(out[0] == (data[0] & 0xc3) && out[1] == (data[1] & 0xcf));
    CHECK(std::memcmp(out + 6, data + 6, n.value() - 6) == 0);
  } else if (rc == -71) {
    CHECK(e.layer == kLayerDdp || e.layer == kLayerRdmap);
  } else {
    CHECK(rc == -22 && size < 46);
  }
  Terminate t;
  if (decode_terminate(in, &t) == 0) {
    uint8_t out[kTerminateMax];
    auto n = encode_terminate(t, 0, kstd::MutableBytes(out));
    CHECK(n.ok());
    CHECK(std::memcmp(out + 18 + 4, data + 4, n.value() - 18 - 4) == 0 || !t.m);
  }
  return 0;
}

// SPDX-License-Identifier: GPL-2.0
// Known-answer checks run once before the core is used, so that a broken
// environment (a wrong CRC32c driver, a miscompiled codec) stops the module
// from loading instead of corrupting connections.
#include <xiw/core.h>

#include "mpa/crc.h"
#include "mpa/startup.h"

namespace xiw {

namespace {

// RFC 3720 appendix B.4: CRC32c of 32 bytes of zeros, and of 0x00..0x1f.
constexpr kstd::u32 kCrcZeros = 0x8a9136aa;
constexpr kstd::u32 kCrcAscending = 0x46dd794e;

bool crc_known_answers(const xiw_env& env) {
  kstd::u8 buf[32] = {};
  mpa::Crc32c zeros(env);
  if (zeros.update(kstd::Bytes(buf)) != 0 || zeros.value() != kCrcZeros) return false;
  for (kstd::usize i = 0; i < sizeof(buf); i++) buf[i] = static_cast<kstd::u8>(i);
  // Two updates over one buffer must equal one: the state carries over.
  mpa::Crc32c ascending(env);
  if (ascending.update(kstd::Bytes(buf).first(5)) != 0 || ascending.update(kstd::Bytes(buf).subspan(5)) != 0)
    return false;
  return ascending.value() == kCrcAscending;
}

bool startup_round_trip() {
  const kstd::u8 ulp[3] = {1, 2, 3};
  mpa::StartupFrame sent;
  sent.type = mpa::FrameType::request;
  sent.flags = mpa::FrameFlags(mpa::FrameFlags::c | mpa::FrameFlags::s);
  sent.rev = 2;
  sent.enhanced = {mpa::EnhancedData::a | mpa::EnhancedData::c, 16, 8};
  sent.private_data = kstd::Bytes(ulp);

  kstd::u8 wire[mpa::kHeaderLen + mpa::EnhancedData::kSize + sizeof(ulp)];
  const kstd::Result<kstd::usize> n = mpa::encode(sent, kstd::MutableBytes(wire));
  if (!n.ok() || n.value() != sizeof(wire)) return false;
  const kstd::Result<mpa::StartupFrame> got = mpa::decode(kstd::Bytes(wire), mpa::FrameType::request);
  if (!got.ok()) return false;
  const mpa::StartupFrame& f = got.value();
  return f.flags.bits() == sent.flags.bits() && f.rev == 2 && f.enhanced.ctrl == sent.enhanced.ctrl &&
         f.enhanced.ird == 16 && f.enhanced.ord == 8 && kstd::equal(f.private_data, sent.private_data);
}

}  // namespace

}  // namespace xiw

extern "C" int xiw_core_check_env(const struct xiw_env* env) {
  if (env == nullptr || env->crc32c_update == nullptr) return kstd::err::inval;
  if (!xiw::crc_known_answers(*env) || !xiw::startup_round_trip()) return kstd::err::io;
  return 0;
}

// SPDX-License-Identifier: GPL-2.0
// CRC32c as the core drives it, against the iSCSI test vectors of
// RFC 3720 appendix B.4, and the environment check that guards it.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "../host_env.h"
#include "mpa/crc.h"
#include <xiw/core.h>

namespace {

uint32_t crc_of(const std::vector<uint8_t>& data) {
  xiw::mpa::Crc32c crc(xiw_test::host_env());
  EXPECT_EQ(crc.update(kstd::Bytes(data.data(), data.size())), 0);
  return crc.value();
}

TEST(Crc32c, Rfc3720ThirtyTwoZeros) { EXPECT_EQ(crc_of(std::vector<uint8_t>(32, 0x00)), 0x8a9136aau); }

TEST(Crc32c, Rfc3720ThirtyTwoOnes) { EXPECT_EQ(crc_of(std::vector<uint8_t>(32, 0xff)), 0x62a8ab43u); }

TEST(Crc32c, Rfc3720Incrementing) {
  std::vector<uint8_t> v(32);
  for (int i = 0; i < 32; i++) v[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(crc_of(v), 0x46dd794eu);
}

TEST(Crc32c, Rfc3720Decrementing) {
  std::vector<uint8_t> v(32);
  for (int i = 0; i < 32; i++) v[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(crc_of(v), 0x113fdb5cu);
}

// RFC 3720 B.4: an iSCSI SCSI Read (10) command PDU.
TEST(Crc32c, Rfc3720ScsiReadCommand) {
  const std::vector<uint8_t> pdu = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
      0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  };
  EXPECT_EQ(crc_of(pdu), 0xd9963a56u);
}

TEST(Crc32c, SplitUpdatesEqualOne) {
  std::vector<uint8_t> v(1000);
  for (size_t i = 0; i < v.size(); i++) v[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t cut : {0u, 1u, 3u, 511u, 999u, 1000u}) {
    xiw::mpa::Crc32c crc(xiw_test::host_env());
    ASSERT_EQ(crc.update(kstd::Bytes(v.data(), cut)), 0);
    ASSERT_EQ(crc.update(kstd::Bytes(v.data() + cut, v.size() - cut)), 0);
    EXPECT_EQ(crc.value(), crc_of(v)) << "cut at " << cut;
  }
}

TEST(Crc32c, EnvironmentErrorIsReturned) {
  const xiw_env failing = {nullptr, [](void*, xiw_u32*, const void*, xiw_size) { return -ENOMEM; }};
  xiw::mpa::Crc32c crc(failing);
  const uint8_t byte = 0;
  EXPECT_EQ(crc.update(kstd::Bytes(&byte, 1)), -ENOMEM);
}

TEST(CoreCheckEnv, AcceptsCorrectCrc) { EXPECT_EQ(xiw_core_check_env(&xiw_test::host_env()), 0); }

TEST(CoreCheckEnv, RejectsWrongCrc) {
  // A plain (non-Castagnoli) reflected CRC-32: well behaved, wrong polynomial.
  const xiw_env wrong = {nullptr, [](void*, xiw_u32* state, const void* buf, xiw_size len) {
                           const auto* p = static_cast<const uint8_t*>(buf);
                           for (xiw_size i = 0; i < len; i++) {
                             *state ^= p[i];
                             for (int k = 0; k < 8; k++)
                               *state = (*state & 1) ? (*state >> 1) ^ 0xedb88320u : *state >> 1;
                           }
                           return 0;
                         }};
  EXPECT_EQ(xiw_core_check_env(&wrong), -EIO);
}

TEST(CoreCheckEnv, RejectsStatelessCrc) {
  // Ignores the carried-in state: single updates look right, split ones do not.
  const xiw_env stateless = {nullptr, [](void* ctx, xiw_u32* state, const void* buf, xiw_size len) {
                               *state = ~0u;
                               return xiw_test::host_crc32c_update(ctx, state, buf, len);
                             }};
  EXPECT_EQ(xiw_core_check_env(&stateless), -EIO);
}

TEST(CoreCheckEnv, RejectsMissingCallback) {
  const xiw_env empty = {nullptr, nullptr};
  EXPECT_EQ(xiw_core_check_env(&empty), -EINVAL);
  EXPECT_EQ(xiw_core_check_env(nullptr), -EINVAL);
}

}  // namespace

// SPDX-License-Identifier: GPL-2.0
// RFC 8797 private data, against what Linux's client and server send.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "rpcrdma/private_data.h"

namespace {

using namespace rpcrdma;

PrivateData dec(std::vector<uint8_t> b) { return decode_private_data(xdr::Bytes(b.data(), b.size())); }

TEST(RpcRdmaPrivateData, LinuxClientAndServer) {
  const PrivateData c = dec({0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x03});
  EXPECT_EQ(c.send_size, 4096u);
  EXPECT_EQ(c.recv_size, 4096u);
  EXPECT_TRUE(c.remote_invalidate);
  const PrivateData s = dec({0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0x03, 0x03});
  EXPECT_FALSE(s.remote_invalidate);
  const std::array<uint8_t, 8> want{0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x03};
  EXPECT_EQ(encode_private_data({4096, 4096, true}), want);
}

TEST(RpcRdmaPrivateData, AbsentOrUnknownMeansDefaults) {
  for (const std::vector<uint8_t>& b :
       std::vector<std::vector<uint8_t>>{{},
                                         {0xf6, 0xab, 0x0e, 0x18},
                                         {0xf6, 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03},
                                         {0xf6, 0xab, 0x0e, 0x19, 0x01, 0x01, 0x03, 0x03},
                                         {0xf6, 0xab, 0x0e, 0x18, 0x02, 0x01, 0x03, 0x03}}) {
    const PrivateData pd = dec(b);
    EXPECT_EQ(pd.send_size, 1024u);
    EXPECT_EQ(pd.recv_size, 1024u);
    EXPECT_FALSE(pd.remote_invalidate);
  }
  // Octets past the eighth are not looked at.
  EXPECT_EQ(dec({0xf6, 0xab, 0x0e, 0x18, 0x01, 0x00, 0xff, 0x00, 0x55}).send_size, 256u * 1024);
}

TEST(RpcRdmaPrivateData, SizesClamped) {
  EXPECT_EQ(encode_private_data({100, 1u << 30, false})[6], 0);
  EXPECT_EQ(encode_private_data({100, 1u << 30, false})[7], 0xff);
  EXPECT_EQ(encode_private_data({5000, 4096, false})[6], 3);  // rounded down
}

}  // namespace

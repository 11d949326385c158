// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the MPA Full Operation receiver (markers, CRC) over an
// arbitrary byte stream, and a transmit/receive round trip of arbitrary
// ULPDUs. Input: flags(1) chunk(1) stream...
//   flags bit 0: markers, bit 1: CRC, bit 2: round trip instead of parse.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../host_env.h"
#include "mpa/fpdu.h"

namespace {

using xiw::mpa::FpduRx;
using xiw::mpa::FpduTx;

#define CHECK(x)                \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

struct Sink {
  std::vector<std::vector<uint8_t>> done;
  std::vector<uint8_t> cur;
  size_t want = 0;
  bool open = false;
  int ulpdu_begin(uint16_t len) {
    CHECK(!open);
    open = true;
    want = len;
    cur.clear();
    return 0;
  }
  int ulpdu_data(kstd::Bytes run) {
    CHECK(open && !run.empty() && cur.size() + run.size() <= want);
    cur.insert(cur.end(), run.begin(), run.end());
    return 0;
  }
  int ulpdu_end() {
    CHECK(open && cur.size() == want);
    open = false;
    done.push_back(cur);
    return 0;
  }
};

void parse(bool markers, bool crc, size_t chunk, const uint8_t* data, size_t size) {
  FpduRx rx(xiw_test::host_env());
  rx.start(markers, crc);
  Sink sink;
  for (size_t at = 0; at < size; at += chunk) {
    const size_t n = size - at < chunk ? size - at : chunk;
    const int rc = rx.consume(kstd::Bytes(data + at, n), sink);
    if (rc != 0) {
      CHECK(rc == -74 || rc == -71);  // -EBADMSG (CRC) or -EPROTO (Marker)
      CHECK(rx.error() != xiw::mpa::MpaError::none);
      CHECK(rx.consume(kstd::Bytes(data, 0), sink) == rc);
      return;
    }
  }
  CHECK(rx.position() == size);
}

void round_trip(bool markers, bool crc, size_t chunk, const uint8_t* data, size_t size) {
  // ULPDUs: a length octet (times 37) then that many input octets.
  std::vector<std::vector<uint8_t>> ulpdus;
  for (size_t at = 0; at < size;) {
    size_t len = static_cast<size_t>(data[at++]) * 37;
    if (len > size - at) len = size - at;
    ulpdus.emplace_back(data + at, data + at + len);
    at += len;
  }
  FpduTx tx(xiw_test::host_env());
  tx.start(markers, crc);
  std::vector<uint8_t> wire;
  for (const auto& u : ulpdus) {
    std::vector<uint8_t> out(xiw::mpa::fpdu_wire_length(u.size(), tx.position(), markers));
    auto n = tx.encode(kstd::Bytes(u.data(), u.size()), kstd::MutableBytes(out.data(), out.size()));
    CHECK(n.ok() && n.value() == out.size());
    wire.insert(wire.end(), out.begin(), out.end());
  }
  FpduRx rx(xiw_test::host_env());
  rx.start(markers, crc);
  Sink sink;
  for (size_t at = 0; at < wire.size(); at += chunk) {
    const size_t n = wire.size() - at < chunk ? wire.size() - at : chunk;
    CHECK(rx.consume(kstd::Bytes(wire.data() + at, n), sink) == 0);
  }
  CHECK(sink.done == ulpdus && rx.at_boundary());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool markers = data[0] & 1, crc = data[0] & 2;
  const size_t chunk = data[1] ? data[1] : 4096;
  if (data[0] & 4)
    round_trip(markers, crc, chunk, data + 2, size - 2);
  else
    parse(markers, crc, chunk, data + 2, size - 2);
  return 0;
}

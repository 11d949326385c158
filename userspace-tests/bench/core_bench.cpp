// SPDX-License-Identifier: GPL-2.0
// The core's FPDU transmit and receive paths on the host, where absolute
// figures mean something (Documentation/performance.rst, "The core on the
// host"). Each benchmark moves RDMA WRITE messages of one size through the
// core's C ABI, as the glue does:
//
//   Tx/copy    xiw_stx_next(): every FPDU built in a buffer, the payload
//              copied in by the fetch callback (a memcpy), CRC32c over it
//   Tx/gather  xiw_stx_next_iov(): framing in a buffer, the payload left
//              in place (the glue hands TCP the runs), CRC32c over it
//   Rx         xiw_srx_consume() over the FPDUs of the same messages, fed
//              in MSS-sized pieces as TCP delivers them, every segment's
//              payload placed (memcpy) at its tagged offset
//
// for 64 B, 4 KiB and 64 KiB messages, CRC32c on and off, Markers on and
// off; and the physical limit in the same binary: memcpy of the same
// octets, and memcpy plus CRC32c of them. CRC32c is the SSE4.2
// instruction, as the kernel's crc32c-intel uses, for the core and for
// the limit alike. Rates are payload octets per second (bytes_per_second)
// and FPDUs per second (fpdus).
#include <benchmark/benchmark.h>
#include <nmmintrin.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include <xiw/mpa_conn.h>
#include <xiw/stream.h>

namespace {

constexpr uint32_t kEmss = 1448;  // MSS 1460 less TCP timestamps
constexpr uint32_t kStag = 0x100;

__attribute__((target("sse4.2"))) uint32_t crc32c_hw(uint32_t c, const void* buf, size_t len) {
  const uint8_t* p = static_cast<const uint8_t*>(buf);
  uint64_t c64 = c;
  for (; len >= 8; len -= 8, p += 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    c64 = _mm_crc32_u64(c64, v);
  }
  c = static_cast<uint32_t>(c64);
  for (; len; len--, p++) c = _mm_crc32_u8(c, *p);
  return c;
}

int env_crc(void*, xiw_u32* state, const void* buf, xiw_size len) {
  *state = crc32c_hw(*state, buf, len);
  return 0;
}

const xiw_env kEnv = {nullptr, env_crc};

xiw_stream_cfg cfg_of(bool crc, bool markers) {
  xiw_stream_cfg c = {};
  c.crc = crc;
  c.markers = markers;
  c.mulpdu = xiw_mpa_mulpdu(kEmss, markers);
  return c;
}

xiw_msg write_of(uint32_t len) {
  xiw_msg m = {};
  m.opcode = XIW_OP_WRITE;
  m.len = len;
  m.stag = kStag;
  return m;
}

struct Source {
  std::vector<uint8_t> data;
  static int fetch(void* ctx, xiw_u32 off, void* dst, xiw_size len) {
    const Source* s = static_cast<const Source*>(ctx);
    if (off + len > s->data.size()) return -EFAULT;
    memcpy(dst, s->data.data() + off, len);
    return 0;
  }
  static int view(void* ctx, xiw_u32 off, xiw_size len, const void** src) {
    const Source* s = static_cast<const Source*>(ctx);
    if (off + len > s->data.size()) return -EFAULT;
    *src = s->data.data() + off;
    return static_cast<int>(len);
  }
};

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i++) v[i] = static_cast<uint8_t>(i * 131 + 7);
  return v;
}

struct Sender {
  explicit Sender(const xiw_stream_cfg& c) : mem(xiw_stx_size()), h(xiw_stx_init(mem.data(), &kEnv, &c)) {
    buf.resize(xiw_stx_fpdu_max(h));
  }
  std::vector<uint8_t> mem;
  xiw_stx* h;
  std::vector<uint8_t> buf;
};

// Args: message size, CRC (0/1), Markers (0/1).
void TxCopy(benchmark::State& state) {
  const uint32_t size = static_cast<uint32_t>(state.range(0));
  Sender tx(cfg_of(state.range(1), state.range(2)));
  Source src{pattern(size)};
  const xiw_msg m = write_of(size);
  int64_t fpdus = 0;
  for (auto _ : state) {
    if (xiw_stx_begin(tx.h, &m) != 0) return state.SkipWithError("begin");
    while (!xiw_stx_idle(tx.h)) {
      const int n = xiw_stx_next(tx.h, tx.buf.data(), tx.buf.size(), Source::fetch, &src);
      if (n <= 0) return state.SkipWithError("next");
      benchmark::DoNotOptimize(tx.buf.data());
      fpdus++;
    }
  }
  state.SetBytesProcessed(state.iterations() * size);
  state.counters["fpdus"] = benchmark::Counter(static_cast<double>(fpdus), benchmark::Counter::kIsRate);
}

void TxGather(benchmark::State& state) {
  const uint32_t size = static_cast<uint32_t>(state.range(0));
  Sender tx(cfg_of(state.range(1), state.range(2)));
  Source src{pattern(size)};
  const xiw_msg m = write_of(size);
  xiw_iov iov[64];
  int64_t fpdus = 0;
  for (auto _ : state) {
    if (xiw_stx_begin(tx.h, &m) != 0) return state.SkipWithError("begin");
    while (!xiw_stx_idle(tx.h)) {
      xiw_u32 runs = 64;
      const int n = xiw_stx_next_iov(tx.h, tx.buf.data(), tx.buf.size(), Source::view, &src, iov, &runs);
      if (n <= 0) return state.SkipWithError("next_iov");
      benchmark::DoNotOptimize(iov);
      fpdus++;
    }
  }
  state.SetBytesProcessed(state.iterations() * size);
  state.counters["fpdus"] = benchmark::Counter(static_cast<double>(fpdus), benchmark::Counter::kIsRate);
}

// The receiver's placement: each tagged segment's payload copied to its
// offset in one sink buffer.
struct Placement {
  std::vector<uint8_t> sink;
  uint8_t* at = nullptr;
  int64_t segs = 0;
  static Placement* of(void* ctx) { return static_cast<Placement*>(ctx); }
  static int begin(void* ctx, const xiw_seg* s) {
    Placement* p = of(ctx);
    if (s->stag != kStag || s->to + s->len > p->sink.size()) return XIW_RX_BOUNDS;
    p->at = p->sink.data() + s->to;
    return 0;
  }
  static int data(void* ctx, const void* buf, xiw_size len) {
    Placement* p = of(ctx);
    memcpy(p->at, buf, len);
    p->at += len;
    return 0;
  }
  static int end(void* ctx, const xiw_seg*) {
    of(ctx)->segs++;
    return 0;
  }
  static void term(void*, const xiw_term_cause*) {}
  static constexpr xiw_stream_sink kSink = {begin, data, end, term};
};

// The wire octets of @count WRITEs of @size, as a sender at stream
// position 0 builds them.
std::vector<uint8_t> wire_of(const xiw_stream_cfg& c, uint32_t size, int count) {
  Sender tx(c);
  Source src{pattern(size)};
  const xiw_msg m = write_of(size);
  std::vector<uint8_t> out;
  for (int i = 0; i < count; i++) {
    xiw_stx_begin(tx.h, &m);
    while (!xiw_stx_idle(tx.h)) {
      const int n = xiw_stx_next(tx.h, tx.buf.data(), tx.buf.size(), Source::fetch, &src);
      if (n <= 0) return {};
      out.insert(out.end(), tx.buf.begin(), tx.buf.begin() + n);
    }
  }
  return out;
}

void Rx(benchmark::State& state) {
  const uint32_t size = static_cast<uint32_t>(state.range(0));
  const xiw_stream_cfg c = cfg_of(state.range(1), state.range(2));
  // Enough messages per round that starting a receiver costs nothing.
  const int count = size >= 65536 ? 4 : size >= 4096 ? 64 : 1024;
  const std::vector<uint8_t> wire = wire_of(c, size, count);
  if (wire.empty()) return state.SkipWithError("wire");
  std::vector<uint8_t> mem(xiw_srx_size());
  Placement place;
  place.sink.resize(size);
  for (auto _ : state) {
    xiw_srx* rx = xiw_srx_init(mem.data(), &kEnv, &c);
    for (size_t off = 0; off < wire.size(); off += kEmss) {
      const size_t n = wire.size() - off < kEmss ? wire.size() - off : kEmss;
      if (xiw_srx_consume(rx, wire.data() + off, n, &Placement::kSink, &place) != 0)
        return state.SkipWithError("consume");
    }
  }
  if (memcmp(place.sink.data(), pattern(size).data(), size) != 0) return state.SkipWithError("placed wrong");
  state.SetBytesProcessed(state.iterations() * count * static_cast<int64_t>(size));
  state.counters["fpdus"] = benchmark::Counter(static_cast<double>(place.segs), benchmark::Counter::kIsRate);
}

// The physical limit: the payload copied once, and copied and CRC'd.
void LimitCopy(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t> src = pattern(size);
  std::vector<uint8_t> dst(size);
  for (auto _ : state) {
    memcpy(dst.data(), src.data(), size);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(state.iterations() * size);
}

void LimitCopyCrc(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t> src = pattern(size);
  std::vector<uint8_t> dst(size);
  for (auto _ : state) {
    memcpy(dst.data(), src.data(), size);
    benchmark::DoNotOptimize(crc32c_hw(~0u, dst.data(), size));
  }
  state.SetBytesProcessed(state.iterations() * size);
}

void Modes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"size", "crc", "markers"});
  for (int64_t size : {64, 4096, 65536})
    for (int64_t crc : {1, 0})
      for (int64_t markers : {0, 1}) b->Args({size, crc, markers});
}

BENCHMARK(TxCopy)->Apply(Modes);
BENCHMARK(TxGather)->Apply(Modes);
BENCHMARK(Rx)->Apply(Modes);
BENCHMARK(LimitCopy)->ArgName("size")->Arg(64)->Arg(4096)->Arg(65536);
BENCHMARK(LimitCopyCrc)->ArgName("size")->Arg(64)->Arg(4096)->Arg(65536);

}  // namespace

BENCHMARK_MAIN();

// SPDX-License-Identifier: GPL-2.0
// The RPC-over-RDMA transport header: Version One (RFC 8166 section 4)
// and Version Two as the seed revision defines it
// (draft-cel-nfsv4-rpcrdma-version-two-04; XDR in
// ../shared/rpcrdma/rpcrdma2-seed.x). One type describes both: the first
// four words (xid, vers, credit, proc), the values of MSG, NOMSG and ERROR
// and the ERR_VERS structure are fixed for all versions (RFC 8166 section
// 4.2), which is what lets a requester fall back from Two to One.
//
// Decoding never allocates and never reads past its input: chunk lists
// land in fixed arrays, and a list longer than they hold is reported with
// the Version Two error that names the limit. OPTIONAL messages keep their
// body as a view into the input (see props.h for the property operations).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "xdr.h"

namespace rpcrdma {

constexpr uint32_t kVersionOne = 1;
constexpr uint32_t kVersionTwo = 2;

// What one decoded header holds at most. A responder advertises these in
// RDMA2_ERR_READ_CHUNKS / _WRITE_CHUNKS / _SEGMENTS.
constexpr uint32_t kMaxReadSegments = 16;  // all read chunks together
constexpr uint32_t kMaxReadChunks = 8;     // distinct positions
constexpr uint32_t kMaxWriteChunks = 8;
constexpr uint32_t kMaxChunkSegments = 16;  // per write or reply chunk
constexpr uint32_t kMaxWriteSegments = kMaxWriteChunks * kMaxChunkSegments + kMaxChunkSegments;

enum class Proc : uint32_t {
  msg = 0,       // RDMA_MSG, RDMA2_MSG
  nomsg = 1,     // RDMA_NOMSG, RDMA2_NOMSG
  msgp = 2,      // Version One only, "not to be used"
  done = 3,      // Version One only, "not to be used"
  error = 4,     // RDMA_ERROR, RDMA2_ERROR
  optional = 5,  // RDMA2_OPTIONAL
};

// RPC msg_type (RFC 5531): Version Two's rdma_direction and rdma_optdir.
enum class Direction : uint32_t { call = 0, reply = 1 };

// Version Two's error codes; Version One has the first two (ERR_VERS, and
// ERR_CHUNK with the value of RDMA2_ERR_BAD_XDR).
enum class ErrCode : uint32_t {
  vers = 1,
  bad_xdr = 2,  // ERR_CHUNK in Version One
  inval_proc = 3,
  read_chunks = 4,
  write_chunks = 5,
  segments = 6,
  write_resource = 7,
  reply_resource = 8,
  inval_option = 9,
  system = 10,
};

struct Segment {
  uint32_t handle = 0;
  uint32_t length = 0;
  uint64_t offset = 0;
  bool operator==(const Segment&) const = default;
};

struct ReadSegment {
  uint32_t position = 0;  // 0: a Position Zero chunk (a Long Call, or NOMSG)
  Segment target;
  bool operator==(const ReadSegment&) const = default;
};

// A write or reply chunk: @count segments from Chunks::segs[@first].
struct ChunkRef {
  uint32_t first = 0;
  uint32_t count = 0;
};

struct Chunks {
  std::array<ReadSegment, kMaxReadSegments> reads{};
  uint32_t nreads = 0;
  std::array<ChunkRef, kMaxWriteChunks> writes{};
  uint32_t nwrites = 0;
  bool has_reply = false;
  ChunkRef reply;
  std::array<Segment, kMaxWriteSegments> segs{};
  uint32_t nsegs = 0;

  std::span<const ReadSegment> read_list() const { return {reads.data(), nreads}; }
  std::span<const Segment> write_chunk(uint32_t i) const {
    return {segs.data() + writes[i].first, writes[i].count};
  }
  std::span<const Segment> reply_chunk() const { return {segs.data() + reply.first, reply.count}; }

  // Builders for an encoder; false when the arrays are full.
  bool add_read(const ReadSegment& r);
  bool add_write(std::span<const Segment> chunk);
  bool set_reply(std::span<const Segment> chunk);
};

struct Error {
  ErrCode code = ErrCode::system;
  uint32_t vers_low = 0, vers_high = 0;  // vers
  uint32_t max = 0;                      // read_chunks, write_chunks, segments
  uint32_t chunk_index = 0;              // write_resource (1-based; 0: unknown)
  uint32_t length_needed = 0;            // write_resource, reply_resource
};

struct Optional {
  Direction dir = Direction::call;
  uint32_t type = 0;
  xdr::Bytes info;  // a view into the decoded buffer
};

struct Header {
  uint32_t xid = 0;
  uint32_t vers = kVersionTwo;
  uint32_t credit = 0;
  Proc proc = Proc::msg;
  // MSG and NOMSG. @dir and @inv_handle are Version Two only.
  Direction dir = Direction::call;
  uint32_t inv_handle = 0;
  Chunks chunks;
  Error error;        // ERROR
  Optional optional;  // OPTIONAL (Version Two)
};

// Why a header did not decode, and the Version Two error a responder
// answers it with (error_for()).
enum class Status : uint8_t {
  ok,
  truncated,     // shorter than the four fixed words: dropped, no xid
  bad_xdr,       // ends inside the header, an XDR bool or enum out of
                 // range, a length past the end
  vers,          // neither Version One nor Two: vers
  inval_proc,    // a proc this version does not define: inval_proc
  read_chunks,   // more read chunks than kMaxReadChunks
  write_chunks,  // more write chunks than kMaxWriteChunks
  segments,      // a chunk with more than kMaxChunkSegments segments,
                 // or more than kMaxReadSegments read segments in all
};

struct Decoded {
  Status status = Status::ok;
  size_t length = 0;  // octets of transport header (the RPC message follows)
};

// The four words every version shares; false if @in is shorter than 16.
struct Prefix {
  uint32_t xid, vers, credit, proc;
};
bool peek_prefix(xdr::Bytes in, Prefix* out);

Decoded decode(xdr::Bytes in, Header* out);

// Octets written, or 0 if @out is too small or @h cannot be encoded in its
// version (an OPTIONAL or a Version Two error code in Version One).
size_t encode(const Header& h, xdr::MutableBytes out);

// The RDMA_ERROR header a responder sends for a request that decoded with
// @s (not ok): the request's xid and vers are copied, as both versions
// require; an unknown version is answered in ERR_VERS form with the range
// this library speaks. Version One has only ERR_VERS and ERR_CHUNK: every
// other failure becomes ERR_CHUNK there.
// @high: the highest version the responder speaks (ERR_VERS names 1..high).
Header error_for(const Prefix& request, Status s, uint32_t credit, uint32_t high = kVersionTwo);

}  // namespace rpcrdma

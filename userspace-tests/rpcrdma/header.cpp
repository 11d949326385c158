// SPDX-License-Identifier: GPL-2.0
// RPC-over-RDMA Version One and Two transport headers: decode and encode.
#include "header.h"

namespace rpcrdma {
namespace {

using xdr::Reader;
using xdr::Writer;

// Each list entry's smallest encoding, to bound a list by what is left of
// the input before walking it.
constexpr size_t kSegmentOctets = 16;

Segment read_segment(Reader& r) {
  Segment s;
  s.handle = r.u32();
  s.length = r.u32();
  s.offset = r.u64();
  return s;
}

void write_segment(Writer& w, const Segment& s) {
  w.u32(s.handle);
  w.u32(s.length);
  w.u64(s.offset);
}

// A read list: entries (present, position, segment) until a 0. Counts
// distinct positions as chunks; keeps reading past a full array so that the
// error names the right limit, bounded by the input.
Status decode_reads(Reader& r, Chunks& c) {
  uint32_t entries = 0, chunks = 0;
  uint32_t last_position = 0;
  while (r.present()) {
    ReadSegment e;
    e.position = r.u32();
    e.target = read_segment(r);
    if (!r.ok()) break;
    if (entries == 0 || e.position != last_position) chunks++;
    last_position = e.position;
    if (entries < kMaxReadSegments) c.reads[entries] = e;
    entries++;
  }
  if (!r.ok()) return Status::bad_xdr;
  if (chunks > kMaxReadChunks) return Status::read_chunks;
  if (entries > kMaxReadSegments) return Status::segments;
  c.nreads = entries;
  return Status::ok;
}

// A write or reply chunk (a counted array of segments) into c.segs.
Status decode_chunk(Reader& r, Chunks& c, ChunkRef* out) {
  const uint32_t n = r.u32();
  if (!r.has(size_t{n} * kSegmentOctets)) return Status::bad_xdr;
  if (n > kMaxChunkSegments) return Status::segments;
  if (c.nsegs + n > kMaxWriteSegments) return Status::write_chunks;
  out->first = c.nsegs;
  out->count = n;
  for (uint32_t i = 0; i < n; i++) c.segs[c.nsegs++] = read_segment(r);
  return r.ok() ? Status::ok : Status::bad_xdr;
}

Status decode_writes(Reader& r, Chunks& c) {
  uint32_t n = 0;
  while (r.present()) {
    if (n == kMaxWriteChunks) return Status::write_chunks;
    const Status s = decode_chunk(r, c, &c.writes[n]);
    if (s != Status::ok) return s;
    n++;
  }
  c.nwrites = n;
  return r.ok() ? Status::ok : Status::bad_xdr;
}

Status decode_chunk_lists(Reader& r, Chunks& c) {
  c = Chunks{};
  Status s = decode_reads(r, c);
  if (s == Status::ok) s = decode_writes(r, c);
  if (s == Status::ok && r.present()) {
    s = decode_chunk(r, c, &c.reply);
    c.has_reply = s == Status::ok;
  }
  if (s == Status::ok && !r.ok()) s = Status::bad_xdr;
  return s;
}

void encode_chunk_lists(Writer& w, const Chunks& c) {
  for (const ReadSegment& e : c.read_list()) {
    w.present(true);
    w.u32(e.position);
    write_segment(w, e.target);
  }
  w.present(false);
  for (uint32_t i = 0; i < c.nwrites; i++) {
    w.present(true);
    w.u32(c.writes[i].count);
    for (const Segment& s : c.write_chunk(i)) write_segment(w, s);
  }
  w.present(false);
  w.present(c.has_reply);
  if (c.has_reply) {
    w.u32(c.reply.count);
    for (const Segment& s : c.reply_chunk()) write_segment(w, s);
  }
}

bool direction(Reader& r, Direction* out) {
  const uint32_t v = r.u32();
  if (v > 1) r.fail();
  *out = Direction(v);
  return r.ok();
}

// The error union. ERR_VERS is read in any version: its form is fixed.
Status decode_error(Reader& r, uint32_t vers, Error& e) {
  const uint32_t code = r.u32();
  e = Error{};
  e.code = ErrCode(code);
  const bool v1 = vers == kVersionOne;
  switch (code) {
    case uint32_t(ErrCode::vers):
      e.vers_low = r.u32();
      e.vers_high = r.u32();
      break;
    case uint32_t(ErrCode::bad_xdr):
      break;
    case uint32_t(ErrCode::read_chunks):
    case uint32_t(ErrCode::write_chunks):
      if (v1) return Status::bad_xdr;
      e.max = r.u32();
      break;
    case uint32_t(ErrCode::segments):
      if (v1) return Status::bad_xdr;
      e.max = r.u32();
      break;
    case uint32_t(ErrCode::write_resource):
      if (v1) return Status::bad_xdr;
      e.chunk_index = r.u32();
      e.length_needed = r.u32();
      break;
    case uint32_t(ErrCode::reply_resource):
      if (v1) return Status::bad_xdr;
      e.length_needed = r.u32();
      break;
    case uint32_t(ErrCode::inval_proc):
    case uint32_t(ErrCode::inval_option):
    case uint32_t(ErrCode::system):
      if (v1) return Status::bad_xdr;
      break;
    default:
      return Status::bad_xdr;
  }
  return r.ok() ? Status::ok : Status::bad_xdr;
}

bool encode_error(Writer& w, uint32_t vers, const Error& e) {
  const bool v1 = vers == kVersionOne;
  if (v1 && e.code != ErrCode::vers && e.code != ErrCode::bad_xdr) return false;
  w.u32(uint32_t(e.code));
  switch (e.code) {
    case ErrCode::vers:
      w.u32(e.vers_low);
      w.u32(e.vers_high);
      break;
    case ErrCode::read_chunks:
    case ErrCode::write_chunks:
    case ErrCode::segments:
      w.u32(e.max);
      break;
    case ErrCode::write_resource:
      w.u32(e.chunk_index);
      w.u32(e.length_needed);
      break;
    case ErrCode::reply_resource:
      w.u32(e.length_needed);
      break;
    case ErrCode::bad_xdr:
    case ErrCode::inval_proc:
    case ErrCode::inval_option:
    case ErrCode::system:
      break;
    default:
      return false;
  }
  return true;
}

Status decode_body(Reader& r, Header& h) {
  const bool v2 = h.vers == kVersionTwo;
  switch (h.proc) {
    case Proc::msg:
    case Proc::nomsg:
      if (v2) {
        if (!direction(r, &h.dir)) return Status::bad_xdr;
        h.inv_handle = r.u32();
      }
      return decode_chunk_lists(r, h.chunks);
    case Proc::error:
      return decode_error(r, h.vers, h.error);
    case Proc::optional:
      if (!v2) return Status::inval_proc;
      if (!direction(r, &h.optional.dir)) return Status::bad_xdr;
      h.optional.type = r.u32();
      h.optional.info = r.opaque();
      return r.ok() ? Status::ok : Status::bad_xdr;
    default:
      // RDMA_MSGP and RDMA_DONE are "not to be used" (RFC 8166 section
      // 4.2.4) and Version Two drops them; procs 6..9 are the seed XDR's
      // property operations, which this library carries as OPTIONAL
      // types instead (props.h).
      return Status::inval_proc;
  }
}

}  // namespace

bool Chunks::add_read(const ReadSegment& r) {
  if (nreads == kMaxReadSegments) return false;
  reads[nreads++] = r;
  return true;
}

bool Chunks::add_write(std::span<const Segment> chunk) {
  if (nwrites == kMaxWriteChunks || chunk.size() > kMaxChunkSegments ||
      nsegs + chunk.size() > kMaxWriteSegments)
    return false;
  writes[nwrites++] = {nsegs, uint32_t(chunk.size())};
  for (const Segment& s : chunk) segs[nsegs++] = s;
  return true;
}

bool Chunks::set_reply(std::span<const Segment> chunk) {
  if (has_reply || chunk.size() > kMaxChunkSegments || nsegs + chunk.size() > kMaxWriteSegments) return false;
  reply = {nsegs, uint32_t(chunk.size())};
  has_reply = true;
  for (const Segment& s : chunk) segs[nsegs++] = s;
  return true;
}

bool peek_prefix(xdr::Bytes in, Prefix* out) {
  Reader r(in);
  out->xid = r.u32();
  out->vers = r.u32();
  out->credit = r.u32();
  out->proc = r.u32();
  return r.ok();
}

Decoded decode(xdr::Bytes in, Header* out) {
  Prefix p;
  if (!peek_prefix(in, &p)) return {Status::truncated, 0};
  Reader r(in.subspan(16));
  Header& h = *out;
  h = Header{};
  h.xid = p.xid;
  h.vers = p.vers;
  h.credit = p.credit;
  h.proc = Proc(p.proc);
  Status s;
  if (p.vers == kVersionOne || p.vers == kVersionTwo) {
    s = decode_body(r, h);
  } else if (h.proc == Proc::error && r.u32() == uint32_t(ErrCode::vers)) {
    // Fixed for all versions: anyone's ERR_VERS can be read.
    h.error = Error{ErrCode::vers, r.u32(), r.u32()};
    if (!r.ok()) return {Status::vers, 0};
    s = Status::ok;
  } else {
    return {Status::vers, 0};
  }
  return {s, s == Status::ok ? 16 + r.pos() : 0};
}

size_t encode(const Header& h, xdr::MutableBytes out) {
  Writer w(out);
  w.u32(h.xid);
  w.u32(h.vers);
  w.u32(h.credit);
  w.u32(uint32_t(h.proc));
  const bool v2 = h.vers == kVersionTwo;
  if (h.vers != kVersionOne && !v2) {
    // Only the all-versions form of ERR_VERS exists outside One and Two.
    if (h.proc != Proc::error || h.error.code != ErrCode::vers) return 0;
    w.u32(uint32_t(ErrCode::vers));
    w.u32(h.error.vers_low);
    w.u32(h.error.vers_high);
    return w.length();
  }
  switch (h.proc) {
    case Proc::msg:
    case Proc::nomsg:
      if (v2) {
        w.u32(uint32_t(h.dir));
        w.u32(h.inv_handle);
      }
      encode_chunk_lists(w, h.chunks);
      break;
    case Proc::error:
      if (!encode_error(w, h.vers, h.error)) return 0;
      break;
    case Proc::optional:
      if (!v2) return 0;
      w.u32(uint32_t(h.optional.dir));
      w.u32(h.optional.type);
      w.opaque(h.optional.info);
      break;
    default:
      return 0;
  }
  return w.length();
}

Header error_for(const Prefix& request, Status s, uint32_t credit, uint32_t high) {
  Header h;
  h.xid = request.xid;
  h.vers = request.vers;
  h.credit = credit;
  h.proc = Proc::error;
  Error& e = h.error;
  if (request.vers < kVersionOne || request.vers > high) s = Status::vers;
  switch (s) {
    case Status::vers:
      e.code = ErrCode::vers;
      e.vers_low = kVersionOne;
      e.vers_high = high;
      return h;
    case Status::inval_proc:
      e.code = ErrCode::inval_proc;
      break;
    case Status::read_chunks:
      e.code = ErrCode::read_chunks;
      e.max = kMaxReadChunks;
      break;
    case Status::write_chunks:
      e.code = ErrCode::write_chunks;
      e.max = kMaxWriteChunks;
      break;
    case Status::segments:
      e.code = ErrCode::segments;
      e.max = kMaxChunkSegments;
      break;
    default:
      e.code = ErrCode::bad_xdr;
      break;
  }
  if (request.vers == kVersionOne) e = Error{ErrCode::bad_xdr};  // ERR_CHUNK
  return h;
}

}  // namespace rpcrdma

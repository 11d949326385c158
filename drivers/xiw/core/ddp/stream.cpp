// SPDX-License-Identifier: GPL-2.0
// The DDP/RDMAP stream; see stream.h.
#include "stream.h"

#include <xiw/mpa.h>

namespace xiw::ddp {

namespace {

constexpr u8 kRtrSend = XIW_MPA_CTRL_B;  // RFC 6581: zero-length SEND
constexpr u8 kRtrRead = XIW_MPA_CTRL_D;  // RFC 6581: zero-length READ

constexpr bool valid_opcode(u8 op) { return op <= static_cast<u8>(Opcode::terminate); }

}  // namespace

TermError cause_of(int reason, Opcode op) {
  const bool tagged = op == Opcode::write || op == Opcode::read_response;
  // RFC 5040 section 7 and RFC 5041 section 7: a tagged buffer error is a
  // DDP error; the source of a Read Request and access rights are RDMAP's.
  switch (reason) {
    case XIW_RX_STAG_INVALID:
      if (tagged) return {kLayerDdp, kDdpTaggedBuffer, kDdpTaggedInvalidStag};
      return {kLayerRdmap, kRdmapRemoteProtection, kRdmapInvalidStag};
    case XIW_RX_BOUNDS:
      if (tagged) return {kLayerDdp, kDdpTaggedBuffer, kDdpTaggedBaseBounds};
      return {kLayerRdmap, kRdmapRemoteProtection, kRdmapBaseBounds};
    case XIW_RX_TO_WRAP:
      if (tagged) return {kLayerDdp, kDdpTaggedBuffer, kDdpTaggedToWrap};
      return {kLayerRdmap, kRdmapRemoteProtection, kRdmapToWrap};
    case XIW_RX_ACCESS:
      return {kLayerRdmap, kRdmapRemoteProtection, kRdmapAccessRights};
    case XIW_RX_NOT_IN_STREAM:
      if (tagged) return {kLayerDdp, kDdpTaggedBuffer, kDdpTaggedStagNotInStream};
      return {kLayerRdmap, kRdmapRemoteProtection, kRdmapStagNotInStream};
    case XIW_RX_NO_BUFFER:
      return {kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedNoBuffer};
    case XIW_RX_TOO_LONG:
      return {kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedTooLong};
    case XIW_RX_CANNOT_INVALIDATE:
      return {kLayerRdmap, kRdmapRemoteOperation, kRdmapCannotInvalidate};
    case XIW_RX_READ_QUEUE_FULL:
      return {kLayerRdmap, kRdmapRemoteOperation, kRdmapCatastrophicStream};
    case XIW_RX_UNEXPECTED:
      return {kLayerRdmap, kRdmapRemoteOperation, kRdmapUnexpectedOpcode};
    default:
      return {kLayerRdmap, kRdmapLocalCatastrophic, 0};
  }
}

// ---- sender -------------------------------------------------------------------

void Sender::start(const xiw_stream_cfg& cfg) {
  fpdu_.start(cfg.markers != 0, cfg.crc != 0);
  fpdu_.set_position(cfg.pos);
  mulpdu_ = cfg.mulpdu < mpa::kMulpduMin ? mpa::kMulpduMin : cfg.mulpdu;
  // An RTR (RFC 6581 section 9.2) was the first message on its queue.
  msn_[kQueueSend] = cfg.rtr_sent == kRtrSend ? 2 : 1;
  msn_[kQueueReadRequest] = cfg.rtr_sent == kRtrRead ? 2 : 1;
  msn_[kQueueTerminate] = 1;
  open_ = false;
  off_ = 0;
}

u16 Sender::set_mulpdu(u16 mulpdu) {
  // DDP segments stand alone (RFC 5041 section 5), so a message may
  // change segment size from one to the next.
  mulpdu_ = mulpdu < mpa::kMulpduMin ? mpa::kMulpduMin : mulpdu > mpa::kMulpduMax ? mpa::kMulpduMax : mulpdu;
  return mulpdu_;
}

usize Sender::fpdu_max() const {
  return mpa::fpdu_wire_length(mulpdu_, mpa::kMarkerInterval - 1, fpdu_.markers());
}

int Sender::begin(const xiw_msg& m) {
  if (open_) return kstd::err::busy;
  if (!valid_opcode(m.opcode) || m.opcode == static_cast<u8>(Opcode::terminate)) return kstd::err::inval;
  Header h;
  h.opcode = static_cast<Opcode>(m.opcode);
  // Read Requests carry no payload; a message must leave room for data.
  if (h.opcode == Opcode::read_request && m.len != 0) return kstd::err::inval;
  if (header_length(h.opcode) >= mulpdu_) return kstd::err::msgsize;
  h.stag = m.stag;
  h.to = m.to;
  h.inval_stag = m.stag;
  h.sink_stag = m.sink_stag;
  h.sink_to = m.sink_to;
  h.read_size = m.read_size;
  h.src_stag = m.src_stag;
  h.src_to = m.src_to;
  if (!h.tagged()) h.msn = msn_[queue_of(h.opcode)]++;
  head_ = h;
  msg_ = m;
  off_ = 0;
  open_ = true;
  return 0;
}

namespace {

// Where Sender::frame() puts an FPDU: every octet into one buffer, the
// payload fetched (copied) between the headers and Markers ...
class CopyOut {
 public:
  CopyOut(kstd::MutableBytes out, xiw_fetch_fn fetch, void* ctx) : out_(out), fetch_(fetch), ctx_(ctx) {}

  bool fits(usize wire, usize /*payload*/) const { return out_.size() >= wire; }
  // Framing octets: ULPDU_Length, DDP/RDMAP headers, Markers, PAD, CRC.
  bool put(kstd::Bytes b) {
    kstd::copy(out_.subspan(at_), b);
    at_ += b.size();
    return true;
  }
  // Payload octets [off, off + max) of the message; returns where they
  // now are, which may be fewer than max.
  kstd::Result<kstd::Bytes> payload(u32 off, usize max) {
    u8* dst = out_.data() + at_;
    if (int rc = fetch_(ctx_, off, dst, max)) return kstd::Result<kstd::Bytes>::error(rc);
    at_ += max;
    return kstd::Bytes(dst, max);
  }
  usize length() const { return at_; }

 private:
  kstd::MutableBytes out_;
  xiw_fetch_fn fetch_;
  void* ctx_;
  usize at_ = 0;
};

// ... or as runs: the framing octets in a buffer, the payload in place
// (the glue's view of its memory), for a gathering send.
class IovOut {
 public:
  IovOut(kstd::MutableBytes out, xiw_view_fn view, void* ctx, kstd::Span<xiw_iov> iov)
      : out_(out), view_(view), ctx_(ctx), iov_(iov) {}

  bool fits(usize wire, usize payload) const { return out_.size() >= wire - payload; }
  bool put(kstd::Bytes b) {
    u8* dst = out_.data() + at_;
    kstd::copy(out_.subspan(at_), b);
    at_ += b.size();
    // Framing octets right after framing octets extend their run.
    if (framing_last_) {
      iov_[used_ - 1].len += b.size();
      return true;
    }
    framing_last_ = add(dst, b.size());
    return framing_last_;
  }
  kstd::Result<kstd::Bytes> payload(u32 off, usize max) {
    const void* src = nullptr;
    const int n = view_(ctx_, off, max, &src);
    if (n < 0) return kstd::Result<kstd::Bytes>::error(n);
    if (n == 0 || static_cast<usize>(n) > max || !src)
      return kstd::Result<kstd::Bytes>::error(kstd::err::inval);
    framing_last_ = false;
    if (!add(src, static_cast<usize>(n))) return kstd::Result<kstd::Bytes>::error(kstd::err::nobufs);
    return kstd::Bytes(static_cast<const u8*>(src), static_cast<usize>(n));
  }
  usize runs() const { return used_; }
  usize length() const {
    usize n = 0;
    for (usize i = 0; i < used_; i++) n += iov_[i].len;
    return n;
  }

 private:
  bool add(const void* base, usize len) {
    if (used_ == iov_.size()) return false;
    iov_[used_++] = {base, len};
    return true;
  }

  kstd::MutableBytes out_;
  xiw_view_fn view_;
  void* ctx_;
  kstd::Span<xiw_iov> iov_;
  usize used_ = 0;
  usize at_ = 0;
  bool framing_last_ = false;  // the last run is framing octets, in out_
};

}  // namespace

kstd::Result<usize> Sender::next(kstd::MutableBytes out, xiw_fetch_fn fetch, void* ctx) {
  CopyOut w(out, fetch, ctx);
  return segment(w);
}

kstd::Result<usize> Sender::next_iov(kstd::MutableBytes out, xiw_view_fn view, void* ctx,
                                     kstd::Span<xiw_iov> iov, usize* runs) {
  IovOut w(out, view, ctx, iov);
  const kstd::Result<usize> r = segment(w);
  *runs = r.ok() ? w.runs() : 0;
  return r;
}

template <class Out>
kstd::Result<usize> Sender::segment(Out& w) {
  if (!open_) return kstd::Result<usize>::error(kstd::err::inval);
  Header h = head_;
  const usize room = mulpdu_ - header_length(h.opcode);
  const usize left = msg_.len - off_;
  const usize n = left < room ? left : room;
  h.last = n == left;
  if (h.tagged())
    h.to = head_.to + off_;
  else
    h.mo = off_;
  const kstd::Result<usize> r = frame(h, n, w);
  if (!r.ok()) return r;
  off_ += static_cast<u32>(n);
  if (h.last) open_ = false;
  return r;
}

template <class Out>
kstd::Result<usize> Sender::frame(const Header& h, usize payload, Out& w) {
  u8 head[kHeaderMax];
  const usize hlen = encode(h, head).value();
  const usize len = hlen + payload;
  if (!w.fits(mpa::fpdu_wire_length(len, fpdu_.position(), fpdu_.markers()), payload))
    return kstd::Result<usize>::error(kstd::err::nospc);
  const u32 start = fpdu_.position();
  u8 prefix[mpa::FpduTx::kMaxPrefix];
  kstd::Result<usize> r = fpdu_.begin(len, prefix);
  if (!r.ok()) return r;
  int rc = w.put(kstd::Bytes(prefix, r.value())) ? 0 : kstd::err::nobufs;
  usize done = 0;  // ULPDU octets framed
  while (rc == 0 && done < len) {
    usize run = fpdu_.room();
    if (run == 0) {
      u8 m[mpa::kMarkerLen];
      fpdu_.marker(m);
      if (!w.put(kstd::Bytes(m))) rc = kstd::err::nobufs;
      continue;
    }
    kstd::Bytes placed;
    if (done < hlen) {
      placed = kstd::Bytes(head + done, run < hlen - done ? run : hlen - done);
      if (!w.put(placed)) rc = kstd::err::nobufs;
    } else {
      const kstd::Result<kstd::Bytes> p = w.payload(static_cast<u32>(off_ + done - hlen), run);
      rc = p.error();
      if (p.ok()) placed = p.value();
    }
    if (rc == 0) {
      fpdu_.payload(placed);
      done += placed.size();
    }
  }
  u8 trailer[mpa::FpduTx::kMaxTrailer];
  if (rc == 0) {
    r = fpdu_.end(trailer);
    rc = r.error();
  }
  if (rc == 0 && !w.put(kstd::Bytes(trailer, r.value()))) rc = kstd::err::nobufs;
  if (rc != 0) {
    fpdu_.set_position(start);  // nothing of this FPDU went out
    return kstd::Result<usize>::error(rc);
  }
  return w.length();
}

kstd::Result<usize> Sender::terminate(const Terminate& t, kstd::MutableBytes out) {
  u8 ulpdu[kTerminateMax];
  const kstd::Result<usize> n = encode_terminate(t, msn_[kQueueTerminate], ulpdu);
  if (!n.ok()) return n;
  const kstd::Result<usize> r = fpdu_.encode(kstd::Bytes(ulpdu, n.value()), out);
  if (r.ok()) msn_[kQueueTerminate]++;
  return r;
}

// ---- receiver -----------------------------------------------------------------

void Receiver::start(const xiw_stream_cfg& cfg) {
  fpdu_.start(cfg.markers != 0, cfg.crc != 0);
  fpdu_.set_position(cfg.pos);
  msn_[kQueueSend] = cfg.rtr_recv == kRtrSend ? 2 : 1;
  msn_[kQueueReadRequest] = cfg.rtr_recv == kRtrRead ? 2 : 1;
  msn_[kQueueTerminate] = 1;
  for (u32& mo : mo_) mo = 0;
  // We sent a READ RTR: its zero-length Read Response is still to come.
  rtr_response_ = cfg.rtr_sent == kRtrRead;
  phase_ = Phase::header;
  failed_ = false;
  blamed_ = false;
  cause_ = {};
}

void Receiver::fail(const TermError& e) {
  if (failed_) return;
  failed_ = true;
  cause_ = e;
}

int Receiver::refuse(const TermError& e) {
  fail(e);
  blamed_ = true;
  return kstd::err::proto;
}

int Receiver::refuse_for(int reason) { return refuse(cause_of(reason, h_.opcode)); }

int Receiver::consume(kstd::Bytes in, const xiw_stream_sink& sink, void* ctx) {
  if (failed_) return kstd::err::proto;
  sink_ = &sink;
  ctx_ = ctx;
  const int rc = fpdu_.consume(in, *this);
  if (rc != 0 && !failed_) {
    // The framer stopped the stream: an MPA error (RFC 5044 section 8).
    const mpa::MpaError e = fpdu_.error();
    const u8 code =
        e == mpa::MpaError::none ? static_cast<u8>(mpa::MpaError::local_catastrophic) : static_cast<u8>(e);
    fail({kLayerLlp, mpa::kTermTypeMpa, code});
  }
  return rc;
}

int Receiver::ulpdu_begin(u16 len) {
  ulpdu_len_ = len;
  hdr_have_ = 0;
  hdr_len_ = 0;
  term_have_ = 0;
  phase_ = Phase::header;
  return 0;
}

int Receiver::ulpdu_data(kstd::Bytes run) {
  while (!run.empty()) {
    if (phase_ == Phase::header) {
      const usize want = hdr_len_ ? hdr_len_ : kControlLen;
      usize n = want - hdr_have_;
      if (n > run.size()) n = run.size();
      __builtin_memcpy(hdr_ + hdr_have_, run.data(), n);
      hdr_have_ = static_cast<u8>(hdr_have_ + n);
      run = run.subspan(n);
      if (hdr_have_ < want) continue;
      if (hdr_len_ == 0) {
        TermError e;
        const kstd::Result<usize> len = header_length(kstd::Bytes(hdr_, kControlLen), &e);
        if (!len.ok()) return refuse(e);
        hdr_len_ = static_cast<u8>(len.value());
        if (ulpdu_len_ < hdr_len_) return refuse({kLayerDdp, kDdpLocalCatastrophic, 0});
        continue;
      }
      if (int rc = on_header()) return rc;
      continue;
    }
    if (phase_ == Phase::payload) {
      if (int rc = sink_->seg_data(ctx_, run.data(), run.size()))
        return refuse_for(rc > 0 ? rc : XIW_RX_LOCAL);
    } else if (h_.opcode == Opcode::terminate) {
      usize n = sizeof(term_) - term_have_;
      if (n > run.size()) n = run.size();
      __builtin_memcpy(term_ + term_have_, run.data(), n);
      term_have_ = static_cast<u8>(term_have_ + n);
    }
    return 0;
  }
  return 0;
}

int Receiver::check_untagged() {
  const u32 qn = queue_of(h_.opcode);
  // A TERMINATE is taken as it comes: the peer is going away either way.
  if (qn == kQueueTerminate) return 0;
  if (h_.msn != msn_[qn]) return refuse({kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedMsnRange});
  if (h_.mo != mo_[qn]) return refuse({kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidMo});
  // Every segment but the last moves MO on: an empty one would leave the
  // next at the same MO, and a message that never advances could claim a
  // new receive with each of its segments.
  if (!h_.last && seg_.len == 0) return refuse({kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidMo});
  return 0;
}

int Receiver::on_header() {
  TermError e;
  if (decode(kstd::Bytes(hdr_, hdr_len_), &h_, &e) != 0) return refuse(e);
  seg_ = {};
  seg_.opcode = static_cast<u8>(h_.opcode);
  seg_.last = h_.last;
  seg_.len = ulpdu_len_ - hdr_len_;
  seg_.stag = h_.tagged() ? h_.stag : h_.inval_stag;
  seg_.msn = h_.msn;
  seg_.mo = h_.mo;
  seg_.to = h_.to;
  seg_.read_size = h_.read_size;
  seg_.sink_stag = h_.sink_stag;
  seg_.sink_to = h_.sink_to;
  seg_.src_stag = h_.src_stag;
  seg_.src_to = h_.src_to;
  if (!h_.tagged()) {
    if (int rc = check_untagged()) return rc;
  }
  phase_ = Phase::payload;
  switch (h_.opcode) {
    case Opcode::read_request:
      // RFC 5040 section 4.4: a Read Request is its header alone.
      if (seg_.len != 0) return refuse({kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedTooLong});
      break;
    case Opcode::terminate:
      phase_ = Phase::skip;  // collected, handed over at the end
      return 0;
    case Opcode::read_response:
      if (rtr_response_ && seg_.len == 0 && h_.last) {
        phase_ = Phase::skip;  // the answer to our READ RTR: consumed
        return 0;
      }
      break;
    default:
      break;
  }
  if (const int reason = sink_->seg_begin(ctx_, &seg_)) return refuse_for(reason > 0 ? reason : XIW_RX_LOCAL);
  return 0;
}

int Receiver::ulpdu_end() {
  if (phase_ == Phase::header) {
    // A ULPDU shorter than two octets: no DDP segment at all.
    return refuse({kLayerDdp, kDdpLocalCatastrophic, 0});
  }
  if (!h_.tagged()) {
    const u32 qn = queue_of(h_.opcode);
    mo_[qn] += seg_.len;
    if (h_.last) {
      msn_[qn]++;
      mo_[qn] = 0;
    }
  }
  if (h_.opcode == Opcode::terminate) {
    Terminate t;
    xiw_term_cause c = {};
    if (decode_terminate(kstd::Bytes(term_, term_have_), &t) == 0)
      c = {t.error.layer, t.error.etype, t.error.code, 1};
    sink_->terminate(ctx_, &c);
    return 0;
  }
  if (phase_ == Phase::skip) {
    rtr_response_ = false;
    return 0;
  }
  if (const int reason = sink_->seg_end(ctx_, &seg_)) return refuse_for(reason > 0 ? reason : XIW_RX_LOCAL);
  return 0;
}

Terminate Receiver::terminate() const {
  Terminate t;
  t.error = cause_;
  if (!blamed_ || hdr_len_ == 0 || hdr_have_ < hdr_len_) return t;
  // RFC 5040 section 4.8: the segment length and headers of the segment
  // that caused the error, and a refused Read Request in full.
  // The header as it came: h_ may still be the previous segment's when
  // this one's failed to decode.
  t.m = true;
  t.segment_length = ulpdu_len_;
  t.d = true;
  t.ddp_header_len = static_cast<u8>(hdr_[0] & kFlagTagged ? kTaggedLen : kUntaggedLen);
  __builtin_memcpy(t.ddp_header, hdr_, t.ddp_header_len);
  if (hdr_len_ == kHeaderMax) {  // only a Read Request's is this long
    t.r = true;
    __builtin_memcpy(t.read_request, hdr_ + kUntaggedLen, kReadRequestLen);
  }
  return t;
}

}  // namespace xiw::ddp

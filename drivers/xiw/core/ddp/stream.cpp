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

kstd::Result<usize> Sender::next(kstd::MutableBytes out, xiw_fetch_fn fetch, void* ctx) {
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
  const kstd::Result<usize> r = frame(h, n, out, fetch, ctx);
  if (!r.ok()) return r;
  off_ += static_cast<u32>(n);
  if (h.last) open_ = false;
  return r;
}

kstd::Result<usize> Sender::frame(const Header& h, usize payload, kstd::MutableBytes out, xiw_fetch_fn fetch,
                                  void* ctx) {
  u8 head[kHeaderMax];
  const usize hlen = encode(h, head).value();
  const usize len = hlen + payload;
  if (out.size() < mpa::fpdu_wire_length(len, fpdu_.position(), fpdu_.markers()))
    return kstd::Result<usize>::error(kstd::err::nospc);
  const u32 start = fpdu_.position();
  u8 prefix[mpa::FpduTx::kMaxPrefix];
  kstd::Result<usize> r = fpdu_.begin(len, prefix);
  if (!r.ok()) return r;
  usize at = r.value();
  kstd::copy(out, kstd::Bytes(prefix, at));
  usize done = 0;  // ULPDU octets written
  while (done < len) {
    usize run = fpdu_.room();
    if (run == 0) {
      u8 m[mpa::kMarkerLen];
      fpdu_.marker(m);
      kstd::copy(out.subspan(at), kstd::Bytes(m));
      at += mpa::kMarkerLen;
      continue;
    }
    u8* dst = out.data() + at;
    if (done < hlen) {
      if (run > hlen - done) run = hlen - done;
      __builtin_memcpy(dst, head + done, run);
    } else if (int rc = fetch(ctx, static_cast<u32>(off_ + done - hlen), dst, run)) {
      fpdu_.set_position(start);  // nothing of this FPDU went out
      return kstd::Result<usize>::error(rc);
    }
    fpdu_.payload(kstd::Bytes(dst, run));
    at += run;
    done += run;
  }
  u8 trailer[mpa::FpduTx::kMaxTrailer];
  r = fpdu_.end(trailer);
  if (!r.ok()) return r;
  kstd::copy(out.subspan(at), kstd::Bytes(trailer, r.value()));
  return at + r.value();
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
  t.m = true;
  t.segment_length = ulpdu_len_;
  t.d = true;
  t.ddp_header_len = static_cast<u8>(h_.tagged() ? kTaggedLen : kUntaggedLen);
  __builtin_memcpy(t.ddp_header, hdr_, t.ddp_header_len);
  if (h_.opcode == Opcode::read_request && hdr_len_ == kHeaderMax) {
    t.r = true;
    __builtin_memcpy(t.read_request, hdr_ + kUntaggedLen, kReadRequestLen);
  }
  return t;
}

}  // namespace xiw::ddp

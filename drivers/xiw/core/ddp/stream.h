// SPDX-License-Identifier: GPL-2.0
// The DDP/RDMAP stream of one connection in Full Operation.
//
// Sender: RDMAP messages (RFC 5040 section 4) are cut into DDP segments
// (RFC 5041 section 5) of at most MULPDU octets, each framed as one FPDU.
// Untagged messages carry the next MSN of their queue and the segment's
// MO; tagged segments carry their own TO. The payload is fetched from the
// glue straight into the FPDU buffer, between the Markers, or left in
// place for a gathering send (next_iov) and only read for the CRC.
//
// Receiver: FPDUs are checked by the MPA framer; every ULPDU is one DDP
// segment whose headers are collected (they may be split by Markers or
// TCP), decoded and checked here: versions, opcode and T flag, queue
// number, MSN and MO continuity per queue (TCP delivers in order, so each
// untagged message must be the next one, from MO 0 up, every segment but
// the last carrying payload), Read Requests and
// TERMINATEs as single zero-payload-or-short segments. Then the glue
// places the payload (seg_begin/seg_data) and delivers it once the CRC
// checked out (seg_end). Any refusal stops the stream and leaves the
// TERMINATE's layer, type and code in cause().
#pragma once

#include <xiw/stream.h>

#include "../mpa/fpdu.h"
#include "header.h"
#include "term.h"

namespace xiw::ddp {

inline constexpr usize kQueues = 3;
inline constexpr usize kHeaderMax = kUntaggedLen + kReadRequestLen;

class Sender {
 public:
  explicit Sender(const xiw_env& env) : fpdu_(env) {}

  void start(const xiw_stream_cfg& cfg);
  int begin(const xiw_msg& m);
  bool idle() const { return !open_; }
  usize fpdu_max() const;
  // MULPDU for the FPDUs from the next one on (an MTU change), clamped
  // to RFC 5044's range; returns what is now in effect.
  u16 set_mulpdu(u16 mulpdu);
  u32 position() const { return fpdu_.position(); }
  // The open message's next FPDU; the message closes after its last.
  kstd::Result<usize> next(kstd::MutableBytes out, xiw_fetch_fn fetch, void* ctx);
  // The same FPDU as runs (`iov`, `*runs` used): framing octets written to
  // `out`, payload in place where `view` finds it. -ENOBUFS, or the
  // view's error, leaves the FPDU unsent, to be built again.
  kstd::Result<usize> next_iov(kstd::MutableBytes out, xiw_view_fn view, void* ctx, kstd::Span<xiw_iov> iov,
                               usize* runs);
  // A whole TERMINATE FPDU on queue 2.
  kstd::Result<usize> terminate(const Terminate& t, kstd::MutableBytes out);

 private:
  template <class Out>
  kstd::Result<usize> segment(Out& out);
  template <class Out>
  kstd::Result<usize> frame(const Header& h, usize payload, Out& out);

  mpa::FpduTx fpdu_;
  u16 mulpdu_ = mpa::kMulpduMin;
  u32 msn_[kQueues] = {1, 1, 1};  // next MSN per untagged queue
  bool open_ = false;
  xiw_msg msg_ = {};
  Header head_;  // the open message's header, before per-segment fields
  u32 off_ = 0;  // payload octets already framed
};

class Receiver {
 public:
  explicit Receiver(const xiw_env& env) : fpdu_(env) {}

  void start(const xiw_stream_cfg& cfg);
  int consume(kstd::Bytes in, const xiw_stream_sink& sink, void* ctx);
  const TermError& cause() const { return cause_; }
  bool failed() const { return failed_; }
  void fail(const TermError& e);
  // The TERMINATE reporting the error that stopped the stream.
  Terminate terminate() const;

  // FpduRx's sink interface.
  int ulpdu_begin(u16 len);
  int ulpdu_data(kstd::Bytes run);
  int ulpdu_end();

 private:
  enum class Phase : u8 { header, payload, skip };

  int refuse(const TermError& e);
  int refuse_for(int reason);
  int on_header();
  int check_untagged();

  mpa::FpduRx fpdu_;
  const xiw_stream_sink* sink_ = nullptr;
  void* ctx_ = nullptr;
  u32 msn_[kQueues] = {1, 1, 1};  // next expected MSN per queue
  u32 mo_[kQueues] = {};          // next expected MO per queue
  bool rtr_response_ = false;     // a zero-length Read Response is due
  Phase phase_ = Phase::header;
  u16 ulpdu_len_ = 0;
  u8 hdr_[kHeaderMax] = {};
  u8 hdr_have_ = 0;
  u8 hdr_len_ = 0;
  u8 term_[Terminate::kHeaderMax + 6 + Terminate::kReadRequestLen] = {};
  u8 term_have_ = 0;
  Header h_;
  xiw_seg seg_ = {};
  bool failed_ = false;
  bool blamed_ = false;  // cause_ names a segment: hdr_ goes into the TERMINATE
  TermError cause_;
};

// The TERMINATE cause for a glue refusal of a segment of opcode `op`.
TermError cause_of(int reason, Opcode op);

}  // namespace xiw::ddp

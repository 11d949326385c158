// SPDX-License-Identifier: GPL-2.0
// The placer: the receive side of the RDMAP engine (include/xiw/placer.h).
//
// The stream receiver hands it each checked DDP segment (seg_begin), the
// segment's payload in runs (seg_data) and the segment again once its CRC
// checked out (seg_end). For each segment the placer decides, from the
// segment's own fields and its own queue's state and nothing else, where
// the payload goes:
//   - a SEND (queue 0) into the receive that its MO 0 segment took, at
//     its MO, within the receive's length (RFC 5041 section 5.3);
//   - a WRITE into its STag at its TO, once the memory registry has
//     checked the STag, the PD, REMOTE_WRITE and the bounds (RFC 5040
//     section 5);
//   - a Read Response into the oldest READ outstanding, continuing where
//     the previous response segment ended, within the length the READ
//     asked for (RFC 5040 section 5.4);
//   - a Read Request nowhere: it is queued within the IRD once its source
//     STag is checked for REMOTE_READ (RFC 5040 section 6.4).
// Completions happen only in seg_end, after the CRC: a receive when its
// SEND's last segment arrived (a Send with Invalidate invalidates first),
// a READ when its response is complete.
#pragma once

#include <xiw/placer.h>

#include "../kstd/span.h"
#include "../kstd/types.h"

namespace xiw::rdmap {

using kstd::u32;
using kstd::u64;

class Placer {
 public:
  Placer(const xiw_rx_ops& ops, xiw_qp* qp) : ops_(ops), qp_(qp) {}

  int begin(const xiw_seg& s);
  int data(kstd::Bytes run);
  int end(const xiw_seg& s);
  void terminate(const xiw_term_cause& c);

  static const xiw_stream_sink kSink;

 private:
  int begin_send(const xiw_seg& s, xiw_target* t);
  int begin_write(const xiw_seg& s, xiw_target* t);
  int begin_read_req(const xiw_seg& s);
  int begin_read_resp(const xiw_seg& s, xiw_target* t);
  int end_send(const xiw_seg& s);
  int end_read_resp(const xiw_seg& s);

  const xiw_rx_ops& ops_;
  xiw_qp* const qp_;
  bool dead_ = false;       // the peer terminated: nothing more takes effect
  bool recv_open_ = false;  // a SEND's MO 0 took a receive
  u32 recv_len_ = 0;        // that receive's length
  u32 recv_at_ = 0;         // its octets placed so far: the next MO
  u32 sink_got_ = 0;        // octets of the oldest READ's response placed
  u32 left_ = 0;            // payload octets the current target still takes
};

}  // namespace xiw::rdmap

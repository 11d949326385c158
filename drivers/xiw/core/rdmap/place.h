// SPDX-License-Identifier: GPL-2.0
// Where a received segment's payload may go (RFC 5040 sections 5 and 6,
// RFC 5041 section 5), decided from the segment and the little state the
// glue keeps: the receive a SEND is being placed into, the READs this side
// has outstanding, and how many Read Requests it is answering. Each rule
// returns 0 (place it) or the XIW_RX_* refusal that the stream receiver
// turns into the TERMINATE the RFCs name. The glue places an octet only
// where one of these said 0; the tagged rules for WRITEs (STag, PD,
// rights, bounds) are the memory registry's and stay in the glue.
#pragma once

#include <xiw/stream.h>

#include "../kstd/types.h"

namespace xiw::rdmap {

using kstd::u32;
using kstd::u64;

// A SEND segment (an untagged message on queue 0) of a message that the
// stream receiver has checked to start at MO 0 and continue without a gap:
// its octets [mo, mo + len) must lie inside the receive, whose buffers hold
// recv_len octets (RFC 5041 section 5.3: "DDP Message too long").
constexpr int place_send(u32 mo, u32 len, u32 recv_len) {
  return static_cast<u64>(mo) + len > recv_len ? XIW_RX_TOO_LONG : 0;
}

// A Read Request while `outstanding` earlier ones are queued or still being
// answered, with `ird` allowed (RFC 5040 section 6.4; 0 when the peer was
// told IRD 0, RFC 6581 section 9.1).
constexpr int place_read_req(u32 outstanding, u32 ird) {
  return outstanding >= ird ? XIW_RX_READ_QUEUE_FULL : 0;
}

// A Read Response segment. Responses come in the order of the requests
// (RFC 5040 section 5.4), so it answers the oldest READ outstanding, or
// none. This side asked for the sink at TO 0 of `read.stag`; the response
// must name that STag and continue exactly where the previous segment
// ended, stay within the READ's length, and its last segment must fill it:
// anything else would place octets the READ did not ask for, or complete
// it with octets missing.
constexpr int place_read_resp(u32 stag, u64 to, u32 len, bool last, const xiw_read_sink* read) {
  if (read == nullptr) return XIW_RX_UNEXPECTED;
  if (stag != read->stag) return XIW_RX_STAG_INVALID;
  if (read->got > read->len || to != read->got || len > read->len - read->got) return XIW_RX_BOUNDS;
  if (last && read->got + len != read->len) return XIW_RX_BOUNDS;
  return 0;
}

}  // namespace xiw::rdmap

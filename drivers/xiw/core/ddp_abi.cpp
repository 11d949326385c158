// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/ddp.h: RTR indications (RFC 6581
// section 9.2) and MPA TERMINATEs built from the DDP/RDMAP codec.
#include <xiw/ddp.h>
#include <xiw/mpa.h>

#include "abi.h"
#include "ddp/header.h"
#include "ddp/term.h"

namespace {

using xiw::ddp::Header;
using xiw::ddp::Opcode;

}  // namespace

extern "C" {

int xiw_ddp_encode_rtr(xiw_u8 rtr, void* buf, xiw_size len) {
  Header h;
  switch (rtr) {
    case XIW_MPA_CTRL_B:
      h.opcode = Opcode::send;
      h.msn = 1;  // the first message on the send queue
      break;
    case XIW_MPA_CTRL_C:
      h.opcode = Opcode::write;
      break;
    case XIW_MPA_CTRL_D:
      h.opcode = Opcode::read_request;
      h.msn = 1;  // the first message on the read request queue
      break;
    default:
      return kstd::err::inval;
  }
  return xiw::abi::to_abi(xiw::ddp::encode(h, kstd::as_writable_bytes(buf, len)));
}

int xiw_ddp_parse_rtr(const void* ulpdu, xiw_size len, struct xiw_ddp_rtr* out) {
  *out = {};
  Header h;
  xiw::ddp::TermError e;
  const kstd::Bytes in = kstd::as_bytes(ulpdu, len);
  const int rc = xiw::ddp::decode(in, &h, &e);
  if (rc != 0) return rc == kstd::err::inval ? kstd::err::proto : rc;
  // Zero-length messages only: no payload beyond the headers.
  if (len != xiw::ddp::header_length(h.opcode) || !h.last) return 0;
  if (h.opcode == Opcode::send && h.msn == 1 && h.mo == 0) out->rtr = XIW_MPA_CTRL_B;
  if (h.opcode == Opcode::write) out->rtr = XIW_MPA_CTRL_C;
  if (h.opcode == Opcode::read_request && h.read_size == 0 && h.msn == 1) {
    out->rtr = XIW_MPA_CTRL_D;
    out->sink_stag = h.sink_stag;
    out->sink_to = h.sink_to;
  }
  return 0;
}

int xiw_ddp_encode_rtr_response(const struct xiw_ddp_rtr* rtr, void* buf, xiw_size len) {
  Header h;
  h.opcode = Opcode::read_response;
  h.stag = rtr->sink_stag;
  h.to = rtr->sink_to;
  return xiw::abi::to_abi(xiw::ddp::encode(h, kstd::as_writable_bytes(buf, len)));
}

int xiw_ddp_encode_mpa_term(xiw_u8 code, xiw_u32 msn, void* buf, xiw_size len) {
  xiw::ddp::Terminate t;
  t.error = {xiw::ddp::kLayerLlp, XIW_TERM_ETYPE_MPA, code};
  return xiw::abi::to_abi(xiw::ddp::encode_terminate(t, msn, kstd::as_writable_bytes(buf, len)));
}

const char* xiw_term_name(xiw_u8 layer, xiw_u8 etype, xiw_u8 code) {
  return xiw::ddp::term_name({layer, etype, code});
}

}  // extern "C"

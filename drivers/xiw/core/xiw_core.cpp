// SPDX-License-Identifier: GPL-2.0
// The single C++ translation unit of the module (see Documentation/design.rst:
// several C++ objects would share COMDAT groups that the kernel's partial
// link and objtool do not handle). Every core source is included here.
#include "mpa/startup.cpp"
#include "mpa/fpdu.cpp"
#include "mpa/negotiate.cpp"
#include "mpa/sctp_session.cpp"
#include "mpa/handshake.cpp"
#include "ddp/header.cpp"
#include "ddp/term.cpp"
#include "env_check.cpp"
#include "abi.cpp"
#include "mpa_abi.cpp"
#include "ddp_abi.cpp"
#include "ddp/stream.cpp"
#include "stream_abi.cpp"
#include "rdmap/placer.cpp"
#include "placer_abi.cpp"
#include "rdmap/tx_order.cpp"
#include "tx_order_abi.cpp"
#include "rdmap/send_queue.cpp"
#include "send_queue_abi.cpp"

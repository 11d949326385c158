// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the transmit order (include/xiw/tx_order.h) of two
// RDMAP peers, requester and responder, under an arbitrary interleaving
// of what each side does and what each pipe delivers, against the model
// of ../tx_model.h, which traps on any broken rule: more READs out than
// the ORD, a fenced work request started with a READ out, a work request
// started twice or out of order, a Read Request within the IRD refused,
// a response out of arrival order or for another READ, a READ completed
// twice, the responder's own messages passed over by more than a burst
// of Read Responses; and, drained at the end, work left undone.
// Input: ord(1) ird(1) nwr(1) wr-flags(nwr) events...
//   ord: low 3 bits (0 to 7); ird: ord (1 with ORD 0) plus low 2 bits,
//   and its high 6 bits the responder's own messages (0 to 63);
//   nwr: 1 to 64 work requests; wr-flags bit 0: a READ, bit 1: a fence.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../tx_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint32_t ord = data[0] & 7;
  const uint32_t ird = (ord ? ord : 1) + (data[1] & 3);
  const size_t nwr = 1 + data[2] % 64;
  if (size < 3 + nwr) return 0;
  std::vector<TxSim::Wr> wrs(nwr);
  for (size_t i = 0; i < nwr; i++) {
    wrs[i].read = data[3 + i] & 1;
    wrs[i].fence = data[3 + i] & 2;
  }
  TxSim sim(ord, ird, wrs, false, data[1] >> 2);
  for (size_t i = 3 + nwr; i < size && !sim.violation; i++) sim.step(data[i]);
  sim.drain();
  if (sim.violation) {
    fprintf(stderr, "tx_order: %s\n", sim.violation);
    abort();
  }
  return 0;
}

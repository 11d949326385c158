// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the send queue's life cycle (include/xiw/send_queue.h)
// under an arbitrary schedule of posts, starts, sends, zero-copy releases
// (late ones too), Read Responses, completions, flushes and recoveries,
// against the model of ../sq_model.h, which traps on any broken rule: a
// work request completed twice, never, out of order, before it was done
// or with another's status; a start out of order or against a fence or
// the ORD; a Read Response taken for the wrong READ or for none.
// Input: ord(1) size(1) start(1) events...
//   ord: low 2 bits; size: 2^(low 3 bits % 7) slots; start: bit 0 set
//   begins the indices just below 2^32 (they wrap).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../sq_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  SqSim sim(data[0] & 3, (data[1] & 7) % 7, data[2] & 1 ? 0xFFFFFFF0u : 0);
  for (size_t i = 3; i < size && !sim.violation; i++) sim.step(data[i]);
  sim.drain();
  if (sim.violation) {
    fprintf(stderr, "send_queue: %s\n", sim.violation);
    abort();
  }
  return 0;
}

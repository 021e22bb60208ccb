// The stack a world's orders run on. An event raised inside a rule is
// handled inside it, so a chain nests as deep as its budget; on a thread
// whose stack can't hold that, a chain reaching the stack's last
// kStackKept bytes is ended with a ChainBudget fault, as its budget ends it,
// rather than overflowing it (docs/host-api.md, "The stack an order needs").
#pragma once

#include <cstdint>

namespace ledger::rt {

// Kept for the frames a chain's end takes (its fault journaled, its rules
// unwound), with room to spare for the deepest frames between two checks.
inline constexpr uintptr_t kStackKept = 256 * 1024;

// The lowest address the calling thread's stack may reach, found once a
// thread (the main thread's by its stack limit as it stood then); 0 where
// the system can't tell, which checks nothing. A stack the runtime wasn't
// told of (a fiber's, a coroutine's) lies outside it and is not checked
// either.
uintptr_t threadStackLow();

// Whether a frame at `frame` is within kStackKept of the stack's low end.
inline bool stackRunningOut(const void *frame, uintptr_t stackLow) {
  return uintptr_t(frame) - stackLow < kStackKept;
}

} // namespace ledger::rt

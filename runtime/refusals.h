// The reference's refusal names: why an order was refused or a fault made.
// A step's `as NAME` counts its rows by them (NAME.Blocked), so the IR and
// the kernel share this one list.
#pragma once

#include <cstdint>

namespace ledger::rt {

#define LEDGER_REFUSALS(X)                                                                         \
  X(None) X(NotGranted) X(Blocked) X(OnCooldown) X(Requirement) X(CannotAfford) X(NoTarget)        \
  X(BadTarget) X(Countered) X(Prevented) X(AlreadyHas) X(NothingToApply) X(Gone) X(ChainBudget)     \
  X(MidMoment) X(BadProperty) X(OutOfReach) X(Busy) X(NotHeld) X(IdTaken) X(NotFlying) X(NoPool)    \
  X(Refused)
enum class Refusal : uint8_t {
#define X(Name) Name,
  LEDGER_REFUSALS(X)
#undef X
  Count
};
const char *refusalName(Refusal r);

// A step's result slots: done, made, merged, refused, then one a refusal.
inline constexpr uint32_t kResultSlots = 4 + uint32_t(Refusal::Count);

} // namespace ledger::rt

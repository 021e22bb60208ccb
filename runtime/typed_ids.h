// A pack's content names as typed ids: what the header `ledger build
// --header ids.h` writes is made of these. Each kind of content is its own
// type, none made from another or from a bare id but by the header, so an
// ability's id passed where the host API wants an effect's is a compile
// error, not a refusal when the player presses the key. World takes them
// beside bare ids (runtime/world.h).
#pragma once

#include "pack_format.h"

namespace ledger::ids {

template <typename Kind> struct Typed {
  pack::Id id;
  constexpr explicit Typed(pack::Id of) : id(of) {}
  friend constexpr bool operator==(Typed, Typed) = default;
};

using Archetype = Typed<struct ArchetypeKind>;
using Ability = Typed<struct AbilityKind>;
using Effect = Typed<struct EffectKind>;
// A pool and a stat are both values the world reads; only a pool is set.
using Pool = Typed<struct PoolKind>;
using Stat = Typed<struct StatKind>;
using Event = Typed<struct EventKind>;
using Tag = Typed<struct TagKind>;
using Link = Typed<struct LinkKind>;

} // namespace ledger::ids

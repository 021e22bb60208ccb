// What the compiler decides about a catalog for its specialised pack, beside
// the pack format's own tables: the shape of its world's storage and the
// lists its machinery walks in place of searching (which effects may hear
// each kind of event, which terms move each stat). The code generator lays
// these out as constants in the pack; the machinery (machinery/) reads
// them, and where it reads one at an index it knows, LLVM folds the read.
#pragma once

#include "pack_format.h"

#include <cstdint>
#include <tuple>

namespace ledger::decided {

using pack::Id;

struct Shape {
  uint32_t tagWords = 1;
  uint32_t tagCount = 0, tagSetCount = 0, eventCount = 0, valueCount = 0, linkCount = 0, effectCount = 0;
  uint32_t ruleCount = 0, abilityCount = 0, archetypeCount = 0, bodyCount = 0;
  uint32_t poolCount = 0, statCount = 0; // each value's slot among its kind (Shape's valueSlot)
  uint32_t instanceSlots = 1;            // the most vars and every rules an effect has
  int64_t unitsPerTick = 1;
  int64_t unitsPerSecond = 1'000'000;
  Id allegiance = pack::kNoId;
  Id damagePool = pack::kNoId;
  Id turnEvent = pack::kNoId;
  uint8_t costHeard = 0;      // a before rule may hear a cost: costs are priced
  uint8_t poolsReadWorld = 0; // a pool's bounds or drift read more than its holder's stats
};

// An effect whose rules may hear an event of some kind in some phase: where
// its holder must stand for its rules named by the kind (kindRoles), and by
// a tag alone (tagRoles: the event must carry one of the tags heardTags
// holds for it), each a mask of kSubject, kSource, kCredit.
struct Hearer {
  Id effect = pack::kNoId;
  uint8_t kindRoles = 0;
  uint8_t tagRoles = 0;
};
enum : uint8_t { kSubject = 1, kSource = 2, kCredit = 4 };
enum Phase : uint8_t { kBefore = 0, kAfter = 1, kPhases = 2 };

// A modifier of an effect on a stat.
struct Term {
  Id effect = pack::kNoId;
  uint32_t modifier = 0; // into modifiers
};

// A base or a bound read without running its body: a number, or its
// holder's stat read bare (PackIndex::Plain).
struct Plain {
  uint8_t kind = 0; // 0 a body, 1 a number, 2 the holder's stat
  Id stat = pack::kNoId;
  int64_t number = 0;
};

inline auto fields(Shape &r) {
  return std::tie(r.tagWords, r.tagCount, r.tagSetCount, r.eventCount, r.valueCount, r.linkCount, r.effectCount,
                  r.ruleCount, r.abilityCount, r.archetypeCount, r.bodyCount, r.poolCount,
                  r.statCount, r.instanceSlots, r.unitsPerTick, r.unitsPerSecond, r.allegiance,
                  r.damagePool, r.turnEvent, r.costHeard, r.poolsReadWorld);
}
inline auto fields(Hearer &r) { return std::tie(r.effect, r.kindRoles, r.tagRoles); }
inline auto fields(Term &r) { return std::tie(r.effect, r.modifier); }
inline auto fields(Plain &r) { return std::tie(r.kind, r.stat, r.number); }

} // namespace ledger::decided

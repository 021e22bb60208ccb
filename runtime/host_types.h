// What the host's API speaks in, whichever engine runs a world: handles,
// an order's outcome, what an order gives and what an apply installs.
#pragma once

#include "pack_format.h"
#include "refusals.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ledger::rt {

using Handle = int64_t; // an actor or an instance: (generation << 32) | (index + 1); 0 none

struct Outcome {
  Refusal refusal = Refusal::None;
  std::string text;  // a requirement's own words, a target clause's
  int64_t need = 0, have = 0;
  bool hasNumbers = false;
  // CannotAfford: whose pool, and which, the price wasn't there.
  Handle payer = 0;
  pack::Id pool = pack::kNoId;
  uint32_t element = 0; // a list's element that was refused, 1 the first
  bool ok() const { return refusal == Refusal::None; }
};

// What an order, a step's with or an apply gives: props or vars, each a
// number (millionths) or a tag (its id + 1), said as which, so an order
// giving a tag for a number or a number for a tag is refused BadProperty.
struct Given {
  struct Value {
    pack::Id name = pack::kNoId;
    int64_t value = 0;
    bool tag = false;
  };
  std::vector<Value> values;
  static Value number(pack::Id name, int64_t v) { return {name, v, false}; }
  static Value tagged(pack::Id name, pack::Id tag) { return {name, int64_t(tag) + 1, true}; }
};

enum class DurationUnit : uint8_t { None, Time, Turns, Count };

// What an Apply installs: a time (on its clock, in millionths of the pack's
// unit of time), a count of its holder's turns, a count of events; -1 where it
// counts none.
// An apply's own says what it gives; the effect's lasts the rest. Turns are
// one kind of event among others ("a time and one kind of event"): a count of
// turns and a count of events are one measure, given whole by one of them.
struct Lifetime {
  int64_t time = -1;
  int64_t turns = -1;
  int64_t count = -1;
  // What the count counts: an event's kind, or a pool's change by its tag
  // (Damage); neither, the effect's own filter.
  pack::Id countEvent = pack::kNoId;
  pack::Id countTag = pack::kNoId;
};

// The coverage instrument: what the content exercised, counted once a host
// turns it on (a play does). A rule heard an event its filter matched,
// fired as its steps ran, and changed the event in hand (a before rule)
// or set off what the journal tells (any other); an effect applied, an
// Apply of it landing; an ability used, its Activate landing, or refused,
// an order or cast of it refused or its Activate blocked or prevented;
// an archetype made, an actor of it made or created. A save holds none of
// it: it counts a run, not the world.
struct Coverage {
  std::vector<uint64_t> heard, fired, changed; // by rule
  std::vector<uint64_t> applied;               // by effect
  std::vector<uint64_t> used, refused;         // by ability
  std::vector<uint64_t> made;                  // by archetype
};

} // namespace ledger::rt

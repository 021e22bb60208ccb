// What the kernel reads of a pack besides its tables: which rules may hear
// which events, how each stat is cached, which bodies need not run. Worked
// out once when a pack loads (either kind), shared by all its worlds.
#pragma once

// Relative, as it is installed: include/ledger/kernel beside include/ledger.
#include "../pack_abi.h"
#include "../pack_format.h"

#include <cstdint>
#include <vector>

namespace ledger::rt {

struct PackIndex {
  using Id = pack::Id;
  uint32_t valueCount = 0;
  uint32_t eventCount = 0;
  size_t mostVars = 1;                  // the most vars an effect has
  std::vector<Id> clockStats;           // the stats clocks run at: the time stat first
  std::vector<std::vector<Id>> members; // a stat by type: its members
  std::vector<std::vector<Id>> covers;  // a value, then the by-type groups and stat over it
  std::vector<Id> archetypeBase;        // archetype * values + value: its base's formula, or none
  // An archetype value's base is a number its content says (ARCHETYPE.STAT
  // reads it with no actor; any other reads the stat's default).
  std::vector<uint8_t> archetypeBaseSaid;

  // How a stat is cached: by its holder's changes, by any change in the
  // world, or not at all (it reads a var or a clock).
  // A stat's cache holds until its holder's values change (Holder); or those
  // or who is in play, their links or tags anywhere (Shape: it counts actors);
  // or anything in the world (World); or is never kept (Never).
  enum class StatCache : uint8_t { Holder, Shape, World, Never };
  // Effects whose instances coming and going move what a count of actors
  // reads: their tags, a link they override, a suspension.
  std::vector<uint8_t> shapesCounts;
  std::vector<StatCache> statCache;
  bool poolsReadWorld = false; // a pool's bounds or drift read more than its holder's stats
  bool clocksReadWorld = false; // a clock's stat reads more than its holder's own values
  // Pools whose drift's rate reads more than their holder's own values: each
  // keeps the rate it read at its anchor until the world moves it.
  std::vector<Id> worldDrifts;
  std::vector<uint8_t> driftReadsWorld; // by value
  // Pools with a regen or a refill: those whose drift may reach a bound.
  std::vector<Id> driftingPools;
  // Pools whose bounds read a count of a query ("which inside a moment reads
  // as the last settle left it"): inside a moment, each reads the bounds
  // the last settle took.
  std::vector<Id> countBounds;
  std::vector<uint8_t> boundsReadCount; // by value
  // Pools whose bounds read another actor through a link of their holder's
  // or a global link (and nothing a settle needn't follow, below): as that
  // actor changes, each is settled and its bounds watched as its holder's
  // own are, and as the moment ends settled again and its crossing
  // retimed.
  std::vector<Id> linkBounds;
  std::vector<uint8_t> boundsReadLink; // by value
  // Those three kinds, each pool once: the pools that settle as moments end.
  std::vector<Id> readerPools;
  // What each of those pools reads besides its holder's own stats, so that
  // it settles again as a moment ends only when one of them moved: who is in
  // play and their sides and tags (a count of actors), the actors its
  // holder's links or the global links name (their stats kept by their own
  // changes). One reading anything else (a pool, a var, a query with a
  // when, an actor named otherwise) settles as every moment that moved the
  // world ends.
  struct Reach {
    bool everything = false;
    bool counts = false;
    bool sources = false;    // a live term reads its instance's source
    std::vector<Id> links;   // its holder's
    std::vector<Id> globals;
  };
  std::vector<Reach> reach;       // by value; empty but for readerPools
  Reach clockReach;               // what the clocks' stats read, together
  std::vector<Id> readerLinks;    // every link some such pool or a clock reads through
  std::vector<Id> readerGlobals;  // every global link one does
  bool readersEverything = false; // one such pool reads anything else
  bool readersCount = false;      // one counts actors
  bool readersSources = false;    // one reads the source of an instance its holder holds
  // Values moving with time alone, between moments: a drifting pool, a
  // stat reading one or an instance's time (by value); and the abilities
  // whose requirements or cost amounts read such a thing: an auto they
  // refused is tried again on the next tick (by ability).
  std::vector<uint8_t> movesWithTime;
  std::vector<uint8_t> checkReadsTime;
  // Abilities whose requirements, and whose prices, read only their
  // caster's and their target's own values (kept by their own changes),
  // effects and tags, or those of an actor a link of the caster's or a
  // global link names: an auto they refused waits for one of those to
  // change (by ability). A price is paid by the caster or through its link.
  std::vector<uint8_t> requirementsWait, costsWait;
  // The links those read or pay through, by ability (waitLinksBegin[a] ..
  // [a + 1] into waitLinks).
  std::vector<uint32_t> waitLinksBegin;
  std::vector<Id> waitLinks;
  // Effects blocking by a var of theirs (having self.VAR): by effect. Their
  // steps setting it wake their holder's autos.
  std::vector<uint8_t> blocksByVar;
  // Effects with a live term reading the instance's source: by effect.
  std::vector<uint8_t> termsReadSource;
  // Effects none of whose instances moves a value: no modifier, suspension
  // or link override. Their coming and going leaves the holder's stats
  // standing (its tags too where the effect has none), and its pools' drift
  // where no pool reads the world.
  std::vector<uint8_t> inert;

  // A base or a bound that is a number, or its holder's stat read bare, is
  // read without running its body: most are.
  struct Plain {
    enum Kind : uint8_t { Body, Number, HolderStat } kind = Body;
    Id stat = pack::kNoId;
    int64_t number = 0;
  };
  std::vector<Plain> plain; // by body

  std::vector<uint8_t> wideEffect; // an effect with a rule hearing more than its holder
  std::vector<uint8_t> hears;      // an effect with a rule hearing events
  // (effect * 2 + phase) * events + kind: where its holder must stand in an
  // event of that kind for a rule of that phase (0 before; 1 after, ends on,
  // each … removes) to hear it, a mask of the roles below; 0 none may. One
  // hearing any event, or naming neither a kind nor a tag, may hear every
  // kind; one naming a tag alone is kept below.
  enum : uint8_t { kSubject = 1, kSource = 2, kCredit = 4, kAnyRole = 7 };
  std::vector<uint8_t> heardKinds;
  // A rule named by a tag alone (before Damage) hears only an event carrying
  // it, of whatever kind: (effect * 2 + phase) * tagWords, the tags its rules
  // of that phase name so, and heardTagRoles where its holder must stand.
  uint32_t tagWords = 0;
  std::vector<uint64_t> heardTags;
  std::vector<uint8_t> heardTagRoles;
  // phase * events + kind: some effect has a rule of that phase that may
  // hear the kind. Most events (a cost paid, an activation) none may.
  std::vector<uint8_t> kindHeard;
  std::vector<uint64_t> tagsHeard; // phase * tagWords: what tag rules name
  std::vector<uint64_t> carriedTags; // tagWords: the tags declared carried
  bool anyCarried = false;           // a catalog declaring none carries nothing down
  bool costHeard = false; // a before rule may hear a cost: costs are priced
};

PackIndex indexPack(const pack::Tables &tables);

} // namespace ledger::rt

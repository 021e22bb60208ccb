// The catalog as the machinery reads it: the pack format's tables and what
// the compiler decided (decided.h), each a constant the code generator lays
// out in the pack under these names. Where the machinery reads one at an
// index the code in hand already knows (an event's kind, a stat, an effect
// a rule belongs to), LLVM folds the read, and the branches it decides, as
// it optimises the pack: what the catalog fixes is decided at build time.
#pragma once

#include "compiled/decided.h"
#include "pack_abi.h"
#include "pack_format.h"

#include <cstdint>

extern "C" {
extern const ledger::decided::Shape lp_shape;
extern const ledger::pack::Value lp_values[];
extern const ledger::pack::Tag lp_tags[];
extern const uint64_t lp_tagBits[];
extern const ledger::pack::Link lp_links[];
extern const ledger::pack::Curve lp_curves[];
extern const ledger::pack::Point lp_curvePoints[];
extern const ledger::pack::Effect lp_effects[];
extern const ledger::pack::Var lp_vars[];
extern const ledger::pack::Modifier lp_modifiers[];
extern const ledger::pack::Rule lp_rules[];
extern const ledger::pack::Ability lp_abilities[];
extern const ledger::pack::Cost lp_costs[];
extern const ledger::pack::Requirement lp_requirements[];
extern const ledger::pack::Archetype lp_archetypes[];
extern const ledger::pack::ArchetypeValue lp_archetypeValues[];
extern const uint32_t lp_idLists[];
extern const ledger::pack::AutoGrant lp_autos[];
extern const ledger::pack::SortKey lp_sortKeys[];
extern const ledger::pack::Read lp_reads[];
extern const ledger::pack::Query lp_queries[];
extern const ledger::pack::Action lp_actions[];
extern const ledger::pack::Body lp_bodyInfo[];
// One function a body: a formula's (LedgerFormulaFn) or a steps body's
// (LedgerStepsFn), compiled to call the machinery directly.
extern void *const lp_bodies[];
// Functions the code generator makes for each of a kind of the catalog's
// definitions, each the machinery's own inlined for that one (engine.cpp's
// lm_ functions): by value, a change's landing on that pool (null but for
// pools).
extern void *const lp_landChange[];
// Names, for the words a fault or a refusal says: name i is
// lp_nameChars[lp_nameAt[i], lp_nameAt[i + 1]).
extern const uint32_t lp_nameAt[];
extern const char lp_nameChars[];

// What the compiler decided (decided.h).
extern const uint32_t lp_valueSlot[];   // by value: its index among the pools, or the stats
extern const uint32_t lp_hearBegin[];   // phase * events + kind: into lp_hear, one past the end last
extern const ledger::decided::Hearer lp_hear[];
extern const uint32_t lp_soleRule[];    // phase * events + kind: the one rule hearing it, or none
extern const uint64_t lp_heardTags[];   // (effect * 2 + phase) * tagWords
extern const uint8_t lp_kindHeard[];    // phase * events + kind: some rule names the kind
extern const uint64_t lp_tagsHeard[];   // phase * tagWords: the tags rules named by a tag name
extern const uint32_t lp_termsBegin[];  // by value: into lp_terms, one past the end last
extern const ledger::decided::Term lp_terms[];
extern const uint8_t lp_statCache[];    // by value: PackIndex::StatCache
extern const ledger::decided::Plain lp_plain[]; // by body
extern const uint32_t lp_archetypeBase[]; // archetype * values + value: its base's body, or none
extern const uint8_t lp_inert[];        // by effect: no term, suspension or override
extern const uint8_t lp_shapesCounts[]; // by effect: its coming and going moves a count of actors
extern const uint32_t lp_everyCount[];  // by effect: its every rules
extern const uint32_t lp_grantersBegin[]; // by ability: where its granters start in lp_granters
extern const uint32_t lp_granters[];      // the effects granting each ability, by effect id
extern const uint32_t lp_driftingPools[]; // the pools with a regen or a refill
extern const uint32_t lp_driftingPoolCount;
extern const uint8_t lp_checkReadsTime[]; // by ability
// By ability: an auto its requirements refused, or its prices (paid on a
// pool that doesn't drift, priced by no rule), waits for its holder, the
// actors its clause takes or those its links name to change (reading 139);
// the links its requirements and prices read or pay through, each once
// (lp_waitLinksBegin[a] .. [a + 1] into lp_waitLinks).
extern const uint8_t lp_requirementsWait[];
extern const uint8_t lp_costsWait[];
extern const uint32_t lp_waitLinksBegin[];
extern const uint32_t lp_waitLinks[];
}

namespace ledger::cw {

using pack::Id;
using pack::kNoId;

inline const decided::Shape &shape() { return lp_shape; }
inline uint32_t tagWords() { return lp_shape.tagWords; }
inline const uint64_t *tagSet(pack::TagSet set) { return lp_tagBits + size_t(set) * tagWords(); }
inline const char *nameChars(Id name) { return lp_nameChars + lp_nameAt[name]; }
inline uint32_t nameLength(Id name) { return lp_nameAt[name + 1] - lp_nameAt[name]; }

} // namespace ledger::cw

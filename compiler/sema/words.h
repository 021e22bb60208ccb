// The language's own words the checker knows: the words content can't
// declare, the roots, the built-in functions, events and tags.
#pragma once

#include "parse/tree.h"
#include "sema/check.h"

#include <cstdint>
#include <string_view>

namespace ledger::sema {

inline constexpr std::string_view kReserved[] = {
    // roots
    "holder", "source", "credit", "target", "targets", "it", "self", "grant", "event", "projectile",
    "next",
    // words
    "X", "charged", "radius", "true", "false", "and", "or", "not", "s", "ms", "t",
    // built-in functions
    "chance", "roll", "has", "held", "ordered", "stacks", "highest", "count", "sum", "lowest",
    "pow", "root", "min", "max", "floor", "ceil", "round", "trunc", "abs", "clamp", "if",
    "distance", "position", "active", "remaining", "elapsed", "fact", "portion", "draw", "tag"};

// What a word of kReserved is, said beside the refusal of it as a name.
inline std::string_view reservedWhat(std::string_view name) {
  if (name == "s" || name == "ms" || name == "t")
    return " (a unit of time: 2s, 500ms, 3t)";
  if (name == "and" || name == "or" || name == "not" || name == "true" || name == "false")
    return " (a word of formulas)";
  for (std::string_view root : {"holder", "source", "credit", "target", "targets", "it", "self",
                                "grant", "event", "projectile", "next", "X", "charged", "radius"})
    if (name == root)
      return " (a root a line reads)";
  return " (a function)";
}

// What a formula reads with no declaration: the roots and the language's words.
inline constexpr std::string_view kRoots[] = {
    "holder", "source",     "credit", "target", "targets", "it",     "self", "grant",
    "event",  "projectile", "next",   "X",      "charged", "radius", "true", "false"};

// The built-in functions and how the reference writes each.
struct BuiltinFunction {
  std::string_view name;
  uint32_t least, most;
  const char *written;
};
inline constexpr BuiltinFunction kFunctions[] = {
    {"chance", 1, 1, "chance(F)"},
    {"roll", 2, 2, "roll(F, F)"},
    {"has", 1, 2, "has(ACTOR, EFFECT | TAG) or has(HANDLE)"},
    {"ordered", 1, 2, "ordered(ACTOR [, PROP])"},
    {"stacks", 2, 3, "stacks(ACTOR, EFFECT [, ACTOR])"},
    {"highest stacks", 2, 3, "highest stacks(ACTOR, EFFECT [, ACTOR])"},
    {"count", 1, 3,
     "count(TARGETS), count(held(...)), count(ACTOR, EFFECT [, ACTOR]) or count(ACTOR, TAG)"},
    {"sum", 2, 2, "sum(TARGETS, F)"},
    {"highest", 2, 2, "highest(TARGETS, F)"},
    {"lowest", 2, 2, "lowest(TARGETS, F)"},
    {"pow", 2, 2, "pow(F, N)"},
    {"root", 1, 2, "root(F [, N])"},
    {"min", 2, 2, "min(F, F)"},
    {"max", 2, 2, "max(F, F)"},
    {"floor", 1, 1, "floor(F)"},
    {"ceil", 1, 1, "ceil(F)"},
    {"round", 1, 1, "round(F)"},
    {"trunc", 1, 1, "trunc(F)"},
    {"abs", 1, 1, "abs(F)"},
    {"clamp", 3, 3, "clamp(F, F, F)"},
    {"if", 3, 3, "if(F, F, F)"},
    {"distance", 2, 2, "distance(PLACE, PLACE)"},
    {"position", 1, 1, "position(ACTOR)"},
    {"active", 1, 1, "active(ACTOR)"},
    {"remaining", 1, 1, "remaining(ACTOR)"},
    {"elapsed", 1, 1, "elapsed(ACTOR)"},
    {"fact", 3, 3, "fact(FACT, ACTOR, PLACE)"},
    {"portion", 1, 1, "portion(TAG)"},
    {"draw", 1, 1, "draw(STREAM)"},
    {"tag", 2, 2, "tag(ABILITY, TAG)"},
};

// Why an order was refused or a fault made, as a play names it and a step's
// result counts it: the reference's REASON list, and the refusals its forms
// name beside it.
inline constexpr std::string_view kReasons[] = {
    "NotGranted",  "Blocked",   "OnCooldown",  "Requirement", "CannotAfford",   "NoTarget",
    "BadTarget",   "Countered", "Prevented",   "AlreadyHas",  "NothingToApply", "Gone",
    "ChainBudget", "MidMoment", "BadProperty", "OutOfReach",  "Busy",           "NotHeld",
    "IdTaken",     "NotFlying", "NoPool",      "Waiting",     "Dropped",        "AlreadyMet"};

inline constexpr std::string_view kBuiltinEvents[] = {
    "Apply",    "Remove",   "Create", "Destroy",  "Make",    "Become", "Move",
    "Activate", "Target",   "Commit", "Resolved", "Stopped", "Pulse",  "Finished",
    "Contact",  "Depleted", "Filled", "Enter",    "Leave",   "Cross",  "Damage",
    "Heal",     "Gain",     "Loss",   "Set",      "Cost"};

inline constexpr std::string_view kBuiltinTags[] = {"Damage",        "Heal",
                                                    "Cost",          "Gain",
                                                    "Loss",          "Set",
                                                    "Cooldown",      "Timed",
                                                    "Stop",          "Stop.Broken",
                                                    "Stop.Blocked",  "Stop.Interrupted",
                                                    "Stop.Unpaid",   "Stop.Cancelled",
                                                    "Stop.Gone",     "Stop.Refused",
                                                    "End",           "End.Expired",
                                                    "End.Removed",   "End.Broken",
                                                    "End.Spent",     "End.Replaced",
                                                    "End.Withdrawn", "End.Gone",
                                                    "End.Answered",  "Fallen"};

// An event carries its tags as a fixed set of bits (the pack ABI's
// LEDGER_EVENT_TAG_WORDS words), so a catalog's tags, built-in ones among
// them, are at most that many bits.
inline constexpr size_t kMostTags = 512;

// The runs of a play's repeated lines, those in one another multiplied.
inline constexpr int64_t kMostPlayRepeats = 1'000'000;

template <size_t N> bool among(const std::string_view (&list)[N], std::string_view word) {
  for (std::string_view w : list)
    if (w == word)
      return true;
  return false;
}

inline Namespace namespaceOf(RefKind kind) {
  switch (kind) {
  case RefKind::Effect:
    return Namespace::Effect;
  case RefKind::Ability:
    return Namespace::Ability;
  case RefKind::Archetype:
    return Namespace::Archetype;
  case RefKind::Stat:
  case RefKind::Pool:
    return Namespace::Value;
  case RefKind::Tag:
    return Namespace::Tag;
  default:
    return Namespace::Shared;
  }
}

} // namespace ledger::sema

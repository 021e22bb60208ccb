// Patterns: each form's line as forms.def writes it, compiled once into a
// small tree the parser matches lines against.
#pragma once

#include "parse/tree.h"

#include <set>
#include <string>
#include <vector>

namespace ledger {

using WordSet = std::set<std::string, std::less<>>;

enum class PatOp : uint8_t { Seq, Alt, Opt, Star, CommaList, Group, Lit, Choice, Slot };

struct Pat {
  PatOp op = PatOp::Seq;
  uint16_t label = 0;            // Slot, Choice, and a Seq kept as a Flag
  SlotKind kind = SlotKind::Flag; // Slot
  RefKind ref = RefKind::None;   // Slot of kind Ref or Refs
  Ctx part = Ctx::None;          // Slot of kind Part: the part forms to try
  bool anyWord = false;          // Slot of kind Word: any one name or number
  bool flag = false;             // Seq of literals only, kept as a Flag slot
  std::string lit;               // Lit
  std::vector<std::vector<std::string>> choices; // Choice
  std::vector<uint32_t> kids;
  // Words that may begin it, whether it may match nothing, and (on slots and
  // optional groups) the words that may come right after it.
  WordSet first;
  bool nullable = false;
  WordSet after;
};

struct FormPattern {
  FormKind kind;
  const char *name;
  Ctx ctxs;
  Ctx child;
  std::string source;           // the pattern as forms.def writes it
  std::vector<uint32_t> alts;   // top-level alternatives, each a Seq
  std::vector<std::string> keywords; // each alternative's leading literal, or ""
};

struct PatternTable {
  std::vector<Pat> pats;
  std::vector<FormPattern> forms;

  // The reference's way of writing a form: slots by kind, labels dropped.
  std::string readable(FormKind kind) const;
};

const PatternTable &patternTable();

} // namespace ledger

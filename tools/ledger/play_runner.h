// The play harness: runs each play of a .play file in a world of its own on
// a pack of its catalog, and says of each whether its expectations held.
#pragma once

#include "pack.h"
#include "parse/tree.h"
#include "sema/check.h"

#include <cstdio>
#include <string>
#include <vector>

namespace ledger::play {

struct Result {
  bool passed = true;
  uint32_t failLine = 0;
  std::string why; // what was expected, what was found
  uint64_t events = 0;        // the journal's entries by the play's end
  uint64_t genericEvents = 0; // of which the generic kernel ran for a compiled pack
};

struct Totals {
  size_t passed = 0, failed = 0;
  uint64_t events = 0, genericEvents = 0;
};

// Runs every play in the play file `file` of the tree, on the pack, printing
// a PASS or FAIL line for each to `out`; the journal of each play is written
// to `journal` as it runs, and the bytes of each save a play takes added to
// `saves`, when they aren't null. With `named` given, only the plays whose
// names hold it run.
void runPlays(const SyntaxTree &tree, uint32_t file, const rt::Pack &pack, std::FILE *out,
              Totals &totals, std::FILE *journal, std::vector<std::string> *saves = nullptr,
              std::string_view named = {});

} // namespace ledger::play

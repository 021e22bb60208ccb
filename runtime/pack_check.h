// What a pack's tables must be before an engine runs them: the reader
// (pack_io.cpp) refuses tables read back whole unless they pass. Every index
// points into its table; every body is of the kind its place asks for and
// laid out as the IR lays bodies out (an expression after what it reads,
// a step before the steps in it, none nested past what a formula holds);
// every slot and var a body names lies within the frame that runs it; every
// action has the operands it reads.
#pragma once

#include "pack_format.h"

#include <string>

namespace ledger::pack {

// The most a formula or a step nests: the parser's bound on what a catalog
// nests (200), with room for the few levels lowering adds.
inline constexpr uint32_t kMostNesting = 256;

// Whether an engine may run the tables; if not, why.
bool checkTables(const Tables &tables, std::string &why);

} // namespace ledger::pack

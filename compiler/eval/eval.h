// The reference engine: a pack's bodies evaluated straight from the IR, no
// native code made. Its meaning is the code generator's, record for record
// (compiler/codegen): the two engines' journals are compared event by event.
#pragma once

#include "pack.h"

namespace ledger::eval {

int64_t formula(const pack::Tables &tables, uint32_t body, LedgerFrame *frame);
int32_t steps(const pack::Tables &tables, uint32_t body, LedgerFrame *frame);

// The evaluator a reference pack runs its bodies with.
inline rt::Evaluator evaluator() { return {&formula, &steps}; }

} // namespace ledger::eval

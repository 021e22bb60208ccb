// Which bodies of a pack run hot: what the kernel runs per event or per
// tick takes the build's full pipeline, what runs seldom a short one
// (docs/build.md).
#pragma once

#include "pack_format.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Module.h>

#include <cstdint>

namespace ledger::codegen::detail {

enum class Heat : uint8_t { Hot, Cold };

// Each body function's heat: hot if any body it stands for is, cold if it is
// a number. A function that is no body (the descriptor's accessor, the udiv128 routine)
// has none.
llvm::DenseMap<const llvm::Function *, Heat> functionHeat(llvm::Module &module,
                                                          const pack::Tables &tables);

} // namespace ledger::codegen::detail

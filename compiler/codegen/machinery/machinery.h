// The compiled engine's machinery in a pack: the catalog's tables and what
// the compiler decided about them laid out as constants, the machinery's
// bitcode (runtime/compiled/machinery/) linked beside them, and the bodies
// compiled to call it directly; LLVM then specialises the whole to the
// catalog as it optimises the pack.
#pragma once

#include "pack_format.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace ledger::codegen {

// Why a catalog runs on the generic kernel: each form it uses that the
// compiled engine doesn't specialise yet, in words naming it; empty when
// the machinery runs it whole.
std::vector<std::string> genericBecause(const pack::Tables &tables);

namespace detail {

// The catalog's tables and decisions as the constants machinery/catalog.h
// names, each body function in lp_bodies.
void emitCatalogConstants(llvm::Module &module, const pack::Tables &tables,
                          const std::vector<llvm::Function *> &bodies);

// Links the machinery's bitcode into the module, then keeps only what the
// pack exports (and the byte copies LLVM calls) visible: every table and
// function else is the pack's own, for LLVM to fold and inline. False, with
// why, if the bitcode can't be read or linked.
bool linkMachinery(llvm::Module &module, std::string &error);

} // namespace detail
} // namespace ledger::codegen

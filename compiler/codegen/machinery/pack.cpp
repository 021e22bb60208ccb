// A pack's module: specialised where the compiled engine runs its catalog
// whole, its machinery linked in and its bodies calling it directly; else
// its bodies for the generic kernel, with the forms that kept it there.
#include "codegen/internal.h"
#include "codegen/machinery/machinery.h"

namespace ledger::codegen::detail {

using namespace llvm;

std::unique_ptr<Module> lowerPack(LLVMContext &ctx, const TargetMachine &machine,
                                  const pack::Tables &tables, std::string_view blob, uint64_t hash,
                                  bool specialise, std::string &error) {
  auto module = std::make_unique<Module>("ledger.pack", ctx);
  // Before any load or store is made, so each gets its real alignment.
  module->setTargetTriple(machine.getTargetTriple().str());
  module->setDataLayout(machine.createDataLayout());
  std::vector<std::string> because =
      specialise ? genericBecause(tables) : std::vector<std::string>{"a pack built generic"};
  std::vector<Function *> bodies;
  if (because.empty()) {
    Emitter e(*module, Calls::Direct);
    if (!lowerBodies(e, tables, bodies, error))
      return nullptr;
    emitCatalogConstants(*module, tables, bodies);
    Constant *engine = module->getOrInsertGlobal("lm_engine", e.b.getInt8Ty());
    emitDescriptor(e, {}, blob, hash, engine, "");
    if (!linkMachinery(*module, error))
      return nullptr;
    return module;
  }
  Emitter e(*module);
  if (!lowerBodies(e, tables, bodies, error))
    return nullptr;
  std::string words;
  for (const std::string &w : because)
    words += (words.empty() ? "" : "\n") + w;
  emitDescriptor(e, bodies, blob, hash, nullptr, words);
  return module;
}

} // namespace ledger::codegen::detail

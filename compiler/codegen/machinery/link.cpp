// The machinery's bitcode, embedded in the code generator as Ledger builds
// (runtime/compiled/CMakeLists.txt), linked into a specialised pack.
#include "codegen/machinery/machinery.h"

#include "pack_abi.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <cstddef>
#include <string_view>

namespace ledger::codegen {
extern const unsigned char machineryBitcode[];
extern const std::size_t machineryBitcodeSize;
} // namespace ledger::codegen

namespace ledger::codegen::detail {

using namespace llvm;

bool linkMachinery(Module &module, std::string &error) {
  MemoryBufferRef bitcode(
      StringRef(reinterpret_cast<const char *>(machineryBitcode), machineryBitcodeSize),
      "machinery.bc");
  Expected<std::unique_ptr<Module>> machinery = parseBitcodeFile(bitcode, module.getContext());
  if (!machinery) {
    error = "the machinery's bitcode can't be read: " + toString(machinery.takeError());
    return false;
  }
  (*machinery)->setTargetTriple(module.getTargetTriple());
  (*machinery)->setDataLayout(module.getDataLayout());
  if (Linker::linkModules(module, std::move(*machinery))) {
    error = "the machinery's bitcode can't be linked into the pack";
    return false;
  }
  // The pack exports its descriptor alone; the byte copies stay visible to
  // the code LLVM emits calls to them from.
  internalizeModule(module, [](const GlobalValue &value) {
    std::string_view name(value.getName().data(), value.getName().size());
    return name == LEDGER_PACK_SYMBOL || name == "memcpy" || name == "memmove" || name == "memset";
  });
  return true;
}

} // namespace ledger::codegen::detail

// The host's target machine, the new pass manager's default pipeline, and an
// object file in memory.
#include "codegen/internal.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

namespace ledger::codegen::detail {

using namespace llvm;

namespace {

void initialiseNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

CodeGenOptLevel codeGenLevel(OptLevel level) {
  switch (level) {
  case OptLevel::O0:
    return CodeGenOptLevel::None;
  case OptLevel::O1:
    return CodeGenOptLevel::Less;
  case OptLevel::O2:
    return CodeGenOptLevel::Default;
  case OptLevel::O3:
    return CodeGenOptLevel::Aggressive;
  }
  return CodeGenOptLevel::Default;
}

OptimizationLevel passLevel(OptLevel level) {
  switch (level) {
  case OptLevel::O0:
    return OptimizationLevel::O0;
  case OptLevel::O1:
    return OptimizationLevel::O1;
  case OptLevel::O2:
    return OptimizationLevel::O2;
  case OptLevel::O3:
    return OptimizationLevel::O3;
  }
  return OptimizationLevel::O2;
}

} // namespace

// The host's triple with a generic CPU: a pack built on one machine runs on
// any other of its architecture.
std::unique_ptr<TargetMachine> hostTargetMachine(OptLevel level, std::string &error) {
  initialiseNativeTarget();
  std::string triple = sys::getProcessTriple();
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  TargetOptions options;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", options, Reloc::PIC_, std::nullopt, codeGenLevel(level)));
  if (!machine)
    error = "no target machine for " + triple;
  return machine;
}

void optimise(Module &module, TargetMachine &machine, OptLevel level) {
  LoopAnalysisManager loops;
  FunctionAnalysisManager functions;
  CGSCCAnalysisManager sccs;
  ModuleAnalysisManager modules;
  PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  ModulePassManager pipeline = level == OptLevel::O0
                                   ? builder.buildO0DefaultPipeline(OptimizationLevel::O0)
                                   : builder.buildPerModuleDefaultPipeline(passLevel(level));
  pipeline.run(module, modules);
}

bool emitObject(Module &module, TargetMachine &machine, SmallVectorImpl<char> &object,
                std::string &error) {
  raw_svector_ostream out(object);
  legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, out, nullptr, CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit an object file";
    return false;
  }
  passes.run(module);
  return true;
}

} // namespace ledger::codegen::detail

// The host's target machine, the new pass manager's pipelines, and an object
// file in memory.
#include "codegen/internal.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/IR/ValueHandle.h>
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

// The analyses a pipeline may ask for, registered and cross-wired.
struct Analyses {
  explicit Analyses(PassBuilder &builder) {
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
  }
  LoopAnalysisManager loops;
  FunctionAnalysisManager functions;
  CGSCCAnalysisManager sccs;
  ModuleAnalysisManager modules;
};

// A cold body's pipeline: its stack slots become registers, the frame's
// fields read again and again are read once, and dead branches go. No
// instcombine: on the cold bodies' long formulas it alone takes six times as
// long as all of this.
constexpr const char *kColdPipeline = "sroa<modify-cfg>,early-cse,simplifycfg";

// Holds functions out of the module pipeline: its passes skip a function
// marked optnone, which must be noinline too. The pipeline may delete one it
// finds unused (a body the machinery's table no longer names once it folds):
// each is held by a handle that forgets a deleted function.
class HeldOut {
public:
  explicit HeldOut(ArrayRef<Function *> functions) {
    for (Function *fn : functions) {
      held_.push_back({WeakVH(fn), !fn->hasFnAttribute(Attribute::NoInline)});
      fn->addFnAttr(Attribute::OptimizeNone);
      fn->addFnAttr(Attribute::NoInline);
    }
  }
  ~HeldOut() {
    for (auto &[handle, addedNoInline] : held_)
      if (auto *fn = cast_or_null<Function>(handle)) {
        fn->removeFnAttr(Attribute::OptimizeNone);
        if (addedNoInline)
          fn->removeFnAttr(Attribute::NoInline);
      }
  }

private:
  std::vector<std::pair<WeakVH, bool>> held_;
};

size_t definedFunctions(const Module &module) {
  size_t defined = 0;
  for (const Function &fn : module)
    defined += !fn.isDeclaration();
  return defined;
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

void optimise(Module &module, TargetMachine &machine, OptLevel level,
              ArrayRef<Function *> coldOnes) {
  // Reports the pipeline's passes as it goes out of scope, when asked for.
  PassInstrumentationCallbacks instrumentation;
  TimePassesHandler passTimes(TimePassesIsEnabled);
  passTimes.registerCallbacks(instrumentation);
  PassBuilder builder(&machine, PipelineTuningOptions(), std::nullopt, &instrumentation);
  Analyses analyses(builder);
  if (level == OptLevel::O0) {
    builder.buildO0DefaultPipeline(OptimizationLevel::O0).run(module, analyses.modules);
    return;
  }
  if (!coldOnes.empty()) {
    FunctionPassManager cold;
    cantFail(builder.parsePassPipeline(cold, kColdPipeline));
    for (Function *fn : coldOnes)
      cold.run(*fn, analyses.functions);
  }
  if (coldOnes.size() == definedFunctions(module))
    return;
  HeldOut held(coldOnes);
  builder.buildPerModuleDefaultPipeline(passLevel(level)).run(module, analyses.modules);
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

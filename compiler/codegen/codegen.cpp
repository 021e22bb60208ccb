// buildPack and packIR: lower, optimise, then emit and link, or print.
//
// Almost all of a build's time is LLVM's, and most of it is spent per
// function, whatever its size; a large catalog has thousands of bodies,
// most of them small. So a build (docs/build.md)
// - reads alike reads by one id and compiles identical bodies once;
// - gives the level's full pipeline to the machinery and the bodies that run
//   hot, and a short one to the cold ones (optimise, emit_object.cpp);
// - splits a large pack into parts that are optimised and compiled side by
//   side, each in its own LLVMContext and thread, its cold bodies with the
//   fast instruction selector, then links them together.
#include "codegen/internal.h"
#include "pack_seal.h"

#include <fmt/format.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/IR/StructuralHash.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Pass.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/FunctionComparator.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <map>
#include <thread>
#include <tuple>

namespace ledger::codegen {

using namespace llvm;

namespace {

// ---- time ------------------------------------------------------------------------

// Seconds of CPU this thread has run.
double threadSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

// Adds the CPU time of its scope to a stage's total.
class StageTimer {
public:
  explicit StageTimer(double &total) : total_(total), start_(threadSeconds()) {}
  ~StageTimer() { total_ += threadSeconds() - start_; }

private:
  double &total_;
  double start_;
};

// ---- which bodies run hot -------------------------------------------------------------

enum class Heat : uint8_t { Hot, Cold };

// A body the kernel runs once an order, an apply or a make is cold: an
// ability's range, requirements, costs and steps, an archetype's values, an
// effect's var inits, stack bounds and lifetime. What runs per event or per
// tick is hot (rules' filters, conditions and steps, stats' terms, pools'
// bounds and drift), and so is any body whose use isn't known here: only what
// is known to run seldom is compiled for the build's speed over its own.
std::vector<Heat> bodyHeat(const pack::Tables &t) {
  std::vector<Heat> heat(t.bodies.size(), Heat::Hot);
  std::vector<bool> hot(t.bodies.size(), false);
  auto mark = [&](pack::Id id, Heat h) {
    if (id >= heat.size())
      return;
    if (h == Heat::Hot)
      hot[id] = true;
    else
      heat[id] = Heat::Cold;
  };
  for (const pack::Ability &a : t.abilities) {
    mark(a.withinBody, Heat::Cold);
    mark(a.steps, Heat::Cold);
    for (uint32_t k = 0; k < a.requireCount && a.requiresBegin + k < t.requirements.size(); ++k) {
      const pack::Requirement &r = t.requirements[a.requiresBegin + k];
      for (pack::Id id : {r.body, r.leftBody, r.rightBody})
        mark(id, Heat::Cold);
    }
    for (uint32_t k = 0; k < a.costCount && a.costsBegin + k < t.costs.size(); ++k)
      mark(t.costs[a.costsBegin + k].amountBody, Heat::Cold);
  }
  for (const pack::ArchetypeValue &v : t.archetypeValues)
    mark(v.body, Heat::Cold);
  for (const pack::Var &v : t.vars)
    mark(v.initBody, Heat::Cold);
  for (const pack::Effect &e : t.effects)
    for (pack::Id id : {e.stack.maxBody, e.stack.strongerBody, e.lasts.timeBody, e.lasts.countBody})
      mark(id, Heat::Cold);
  // What runs per event or per tick stays hot, whatever else reads it.
  for (const pack::Rule &r : t.rules)
    for (pack::Id id :
         {r.whenBody, r.matchBody, r.steps, r.intervalBody, r.countBody, r.filter.of.body,
          r.filter.by.body, r.filter.credited.body, r.filter.targeting.body})
      mark(id, Heat::Hot);
  for (const pack::Modifier &m : t.modifiers)
    mark(m.amountBody, Heat::Hot);
  for (const pack::Value &v : t.values)
    for (pack::Id id : {v.minBody, v.maxBody, v.regenPeriodBody, v.refillPeriodBody})
      mark(id, Heat::Hot);
  for (size_t id = 0; id < heat.size(); ++id)
    if (hot[id])
      heat[id] = Heat::Hot;
  return heat;
}

// The body functions by body id, as the descriptor's array lists them for
// the generic kernel, or the catalog's constants for the machinery.
std::vector<Function *> bodyFunctions(Module &module) {
  std::vector<Function *> bodies;
  GlobalVariable *array = module.getNamedGlobal("ledger.bodies");
  if (!array)
    array = module.getNamedGlobal("lp_bodies");
  if (!array || !array->hasInitializer())
    return bodies;
  for (const Use &element : array->getInitializer()->operands())
    bodies.push_back(dyn_cast<Function>(element.get()));
  return bodies;
}

// A formula that is a number: two instructions whatever the pipeline.
bool isConstantBody(const Function &fn) {
  if (fn.size() != 1)
    return false;
  const auto *ret = dyn_cast<ReturnInst>(&fn.getEntryBlock().front());
  return ret && ret->getReturnValue() && isa<Constant>(ret->getReturnValue());
}

// Each body function's heat: hot if any body it stands for is, cold if it is
// a number. A function that is no body (the descriptor's accessor, the udiv128 routine)
// has none.
DenseMap<const Function *, Heat> functionHeat(Module &module, const pack::Tables &tables) {
  DenseMap<const Function *, Heat> heat;
  std::vector<Heat> byBody = bodyHeat(tables);
  std::vector<Function *> bodies = bodyFunctions(module);
  for (size_t id = 0; id < bodies.size() && id < byBody.size(); ++id) {
    if (!bodies[id])
      continue;
    auto [it, fresh] = heat.try_emplace(bodies[id], byBody[id]);
    if (!fresh && byBody[id] == Heat::Hot)
      it->second = Heat::Hot;
  }
  for (auto &[fn, h] : heat)
    if (isConstantBody(*fn))
      h = Heat::Cold;
  return heat;
}

// ---- identical bodies folded ----------------------------------------------------------

// A function only pointed at (the table of bodies), never called: nothing
// can tell it from an identical one, so one copy serves both.
bool onlyPointedAt(const Function &fn) {
  if (!fn.hasLocalLinkage() || fn.isDeclaration())
    return false;
  for (const User *user : fn.users())
    if (!isa<Constant>(user))
      return false;
  return true;
}

// Points every constant array at the functions kept in place of the folded
// ones, each array rebuilt once: replacing one element at a time would build
// the descriptor's array again for each.
void repointArrays(Module &module, const DenseMap<Function *, Function *> &keptFor) {
  for (GlobalVariable &global : module.globals()) {
    auto *array =
        global.hasInitializer() ? dyn_cast<ConstantArray>(global.getInitializer()) : nullptr;
    if (!array)
      continue;
    std::vector<Constant *> elements;
    bool changed = false;
    for (const Use &element : array->operands()) {
      auto *fn = dyn_cast<Function>(element.get());
      Function *kept = fn ? keptFor.lookup(fn) : nullptr;
      elements.push_back(kept ? kept : cast<Constant>(element.get()));
      changed |= kept != nullptr;
    }
    if (!changed)
      continue;
    global.setInitializer(ConstantArray::get(array->getType(), elements));
    // The old array would still hold the folded functions, and be walked at
    // each of their replacements.
    if (array->use_empty())
      array->destroyConstant();
  }
}

// The first read of the tables with the same op and operands as each.
std::vector<uint32_t> firstOfEachRead(const pack::Tables &tables) {
  std::map<std::tuple<pack::ReadOp, pack::Id, pack::Id, pack::TagSet>, uint32_t> first;
  std::vector<uint32_t> canonical(tables.reads.size());
  for (uint32_t id = 0; id < tables.reads.size(); ++id) {
    const pack::Read &r = tables.reads[id];
    canonical[id] = first.try_emplace({r.op, r.a, r.b, r.tags}, id).first->second;
  }
  return canonical;
}

// In a pack carrying the machinery a read is known by its id alone, and two
// reads alike (holder.Level said in a hundred terms) are one: each body reads
// the first of its kind, so bodies that say the same thing are the same code
// and fold. The ids never leave the pack, whose own lm_read looks them up; a
// pack for the generic kernel passes the tables' ids on unchanged.
void shareAlikeReads(Module &module, const pack::Tables &tables) {
  Function *read = module.getFunction("lm_read");
  if (!read)
    return;
  std::vector<uint32_t> canonical = firstOfEachRead(tables);
  for (User *user : read->users()) {
    auto *call = dyn_cast<CallInst>(user);
    auto *id = call && call->getCalledFunction() == read
                   ? dyn_cast<ConstantInt>(call->getArgOperand(1))
                   : nullptr;
    if (id && id->getZExtValue() < canonical.size())
      call->setArgOperand(1, ConstantInt::get(id->getType(), canonical[id->getZExtValue()]));
  }
}

// Bodies (those `heat` knows) that lowered to the same code are compiled
// once; the one kept runs hot if any folded into it did.
void foldIdenticalBodies(Module &module, DenseMap<const Function *, Heat> &heat) {
  GlobalNumberState numbers;
  DenseMap<uint64_t, SmallVector<Function *, 2>> kept;
  DenseMap<Function *, Function *> keptFor;
  for (Function &fn : module) {
    if (!heat.count(&fn) || !onlyPointedAt(fn))
      continue;
    SmallVector<Function *, 2> &alike = kept[StructuralHash(fn, /*DetailedHash=*/true)];
    auto same = std::find_if(alike.begin(), alike.end(), [&](Function *other) {
      return FunctionComparator(other, &fn, &numbers).compare() == 0;
    });
    if (same == alike.end()) {
      alike.push_back(&fn);
      continue;
    }
    if (heat.lookup(&fn) == Heat::Hot)
      heat[*same] = Heat::Hot;
    keptFor[&fn] = *same;
  }
  repointArrays(module, keptFor);
  for (auto [fn, same] : keptFor) {
    if (!fn->use_empty())
      fn->replaceAllUsesWith(same); // what no array held
    heat.erase(fn);
    fn->eraseFromParent();
  }
}

// ---- parts ----------------------------------------------------------------------------

// Past this many instructions' worth of bodies a pack is split: a part costs
// its setting up and a bitcode round trip, tens of milliseconds, which a
// small catalog's bodies don't repay.
constexpr uint64_t kSplitCost = 20'000;
// A function's fixed cost in instructions' worth: most of a small body's
// time goes to running every pass over it at all.
constexpr uint64_t kFunctionCost = 30;

uint64_t costOf(const Function &fn) { return fn.getInstructionCount() + kFunctionCost; }

// Part 0 holds what is no body (the tables, the machinery, the descriptor
// and its accessor, shared routines) and is compiled where the pack was lowered; the
// bodies go to hot and cold parts, compiled from bitcode, each in its own
// context.
constexpr unsigned kDataPart = 0;
// A part for about this many instructions' worth of bodies of one kind, and
// at most so many of a kind: enough to keep a few cores busy, each costing a
// bitcode read and a pipeline's setting up. The count depends on the pack
// alone, never on the machine's cores, so a pack's bytes don't either.
constexpr uint64_t kPartCost = 25'000;
constexpr uint64_t kMostPartsOfAKind = 4;

struct Plan {
  std::vector<Heat> heat = {Heat::Hot}; // each part's; unsplit, part 0 alone
  StringMap<unsigned> owner;
  unsigned partOf(const GlobalValue &value) const { return owner.lookup(value.getName()); }
};

// Each body to the lightest part of its kind, largest first, ties in module
// order: the same plan every build.
Plan planParts(Module &module, const DenseMap<const Function *, Heat> &heat) {
  struct Entry {
    uint64_t cost;
    size_t order;
    Function *fn;
    Heat heat;
  };
  std::vector<Entry> bodies;
  uint64_t costOfKind[2] = {0, 0};
  for (Function &fn : module)
    if (auto it = heat.find(&fn); it != heat.end() && !fn.isDeclaration()) {
      bodies.push_back({costOf(fn), bodies.size(), &fn, it->second});
      costOfKind[size_t(it->second)] += costOf(fn);
    }
  Plan plan; // part 0 first
  for (Heat kind : {Heat::Hot, Heat::Cold}) {
    uint64_t cost = costOfKind[size_t(kind)];
    uint64_t count = std::clamp<uint64_t>((cost + kPartCost - 1) / kPartCost, 0, kMostPartsOfAKind);
    plan.heat.insert(plan.heat.end(), count, kind);
  }
  std::sort(bodies.begin(), bodies.end(), [](const Entry &a, const Entry &b) {
    return a.cost != b.cost ? a.cost > b.cost : a.order < b.order;
  });
  std::vector<uint64_t> load(plan.heat.size(), 0);
  for (const Entry &body : bodies) {
    unsigned best = 0;
    for (unsigned p = 1; p < plan.heat.size(); ++p)
      if (plan.heat[p] == body.heat && (best == 0 || load[p] < load[best]))
        best = p;
    load[best] += body.cost;
    plan.owner[body.fn->getName()] = best;
  }
  return plan;
}

// The global a use stands in: the function of an instruction, the global a
// constant initialises; null if none.
const GlobalValue *userGlobal(const User *user) {
  if (const auto *inst = dyn_cast<Instruction>(user))
    return inst->getFunction();
  if (const auto *global = dyn_cast<GlobalValue>(user))
    return global;
  for (const User *outer : user->users())
    if (const GlobalValue *found = userGlobal(outer))
      return found;
  return nullptr;
}

// A local read from another part becomes a hidden global: the parts link to
// each other and the pack still exports nothing but its descriptor.
void externaliseShared(Module &module, const Plan &plan) {
  auto shared = [&](GlobalValue &value) {
    unsigned home = plan.partOf(value);
    for (const User *user : value.users()) {
      const GlobalValue *at = userGlobal(user);
      if (at && plan.partOf(*at) != home)
        return true;
    }
    return false;
  };
  for (GlobalValue &value : module.global_values())
    if (value.hasLocalLinkage() && shared(value)) {
      value.setLinkage(GlobalValue::ExternalLinkage);
      value.setVisibility(GlobalValue::HiddenVisibility);
    }
}

// An alias is only another name for its aliasee, and must stand in the
// part its aliasee is defined in: uses of a local one (the machinery's
// constructors') are pointed at the aliasee itself.
void dropLocalAliases(Module &module) {
  for (GlobalAlias &alias : make_early_inc_range(module.aliases()))
    if (alias.hasLocalLinkage()) {
      alias.replaceAllUsesWith(alias.getAliasee());
      alias.eraseFromParent();
    }
}

// Parts find each other's globals by name: those without one are given one.
void nameEverything(Module &module) {
  unsigned unnamed = 0;
  for (GlobalValue &value : module.global_values())
    if (!value.hasName())
      value.setName(fmt::format("ledger.unnamed.{}", unnamed++));
}

// Declarations nothing uses any more: each dropped may free others.
void dropUnusedDeclarations(Module &module) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (GlobalValue &value : make_early_inc_range(module.global_values()))
      if (value.isDeclaration() && value.use_empty()) {
        value.eraseFromParent();
        dropped = true;
      }
  }
}

// What belongs to the parts `kept` refuses becomes declarations: their
// functions' bodies and their data's values are dropped. LLVM's own globals
// (llvm.used and the like) stay with part 0 alone.
template <typename Kept> void keepOnly(Module &module, const Plan &plan, Kept kept) {
  for (Function &fn : module)
    if (!fn.isDeclaration() && !kept(plan.partOf(fn)))
      fn.deleteBody();
  for (GlobalVariable &global : make_early_inc_range(module.globals())) {
    if (!global.hasInitializer() || kept(plan.partOf(global)))
      continue;
    if (global.getName().starts_with("llvm.")) {
      global.eraseFromParent();
      continue;
    }
    global.setInitializer(nullptr);
    global.setLinkage(GlobalValue::ExternalLinkage);
  }
  dropUnusedDeclarations(module);
}

// ---- the pack -------------------------------------------------------------------------

// Whether the module is well formed IR; if not, why.
bool verified(const Module &module, std::string &error) {
  std::string broken;
  raw_string_ostream why(broken);
  if (!verifyModule(module, &why))
    return true;
  error = "generated IR does not verify: " + broken;
  return false;
}

uint64_t bodiesCost(const DenseMap<const Function *, Heat> &heat) {
  uint64_t cost = 0;
  for (auto &[fn, h] : heat)
    cost += costOf(*fn);
  return cost;
}

// Splits a lowered pack: its bodies stay in `module` and are written to
// `bitcode`, which the body parts are read from; part 0 moves to a module of
// its own, returned. The tables blob is in part 0 alone: no part writes or
// reads it again.
std::unique_ptr<Module> splitPack(Module &module, const DenseMap<const Function *, Heat> &heat,
                                  Plan &plan, SmallVectorImpl<char> &bitcode) {
  dropLocalAliases(module);
  nameEverything(module);
  plan = planParts(module, heat);
  externaliseShared(module, plan);
  ValueToValueMapTy map;
  std::unique_ptr<Module> data = CloneModule(
      module, map, [&](const GlobalValue *value) { return plan.partOf(*value) == kDataPart; });
  dropUnusedDeclarations(*data);
  keepOnly(module, plan, [](unsigned owner) { return owner != kDataPart; });
  raw_svector_ostream out(bitcode);
  WriteBitcodeToFile(module, out);
  return data;
}

// A lowered pack ready to compile: part 0's module (the whole pack where it
// isn't split) and its bodies' heat; where it is split, the plan, the bodies'
// bitcode, and their module, which is no longer needed.
struct Prepared {
  std::unique_ptr<Module> data;
  DenseMap<const Function *, Heat> heat;
  Plan plan;
  SmallVector<char, 0> bitcode;
  std::unique_ptr<Module> spent;
};

// Lowered, identical bodies folded, and split if it is large.
bool prepare(LLVMContext &ctx, const pack::Tables &tables, std::string_view blob, uint64_t hash,
             const Options &options, Prepared &pack, std::string &error) {
  std::unique_ptr<TargetMachine> machine = detail::hostTargetMachine(options.optLevel, error);
  // Verified as it is compiled, each part on its own thread.
  pack.data = machine
                  ? detail::lowerPack(ctx, *machine, tables, blob, hash, options.specialise, error)
                  : nullptr;
  if (!pack.data)
    return false;
  // O0 is for looking at what the lowering made: nothing is folded or split.
  if (options.optLevel == OptLevel::O0)
    return true;
  pack.heat = functionHeat(*pack.data, tables);
  shareAlikeReads(*pack.data, tables);
  foldIdenticalBodies(*pack.data, pack.heat);
  if (bodiesCost(pack.heat) < kSplitCost)
    return true;
  pack.spent = std::move(pack.data);
  pack.data = splitPack(*pack.spent, pack.heat, pack.plan, pack.bitcode);
  pack.heat.clear(); // part 0 keeps no body
  return true;
}

// ---- compiling ----------------------------------------------------------------------

// A part's heat and what compiling it gave back.
struct Part {
  unsigned index = 0;
  Heat heat = Heat::Hot;
  SmallVector<char, 0> object;
  std::string error;
  double lower = 0, optimise = 0, codegen = 0;
};

// The bodies of a module that take the cold pipeline: all of a cold part's,
// and elsewhere those known cold.
std::vector<Function *> coldOnes(Module &module, Heat partHeat,
                                 const DenseMap<const Function *, Heat> *heat) {
  std::vector<Function *> chosen;
  for (Function &fn : module)
    if (!fn.isDeclaration() &&
        (partHeat == Heat::Cold || (heat && heat->lookup(&fn) == Heat::Cold)))
      chosen.push_back(&fn);
  return chosen;
}

// Optimised with its bodies' pipelines and compiled into part.object: a
// cold part with the fast instruction selector and register allocator.
void optimiseAndEmit(Module &module, const Options &options, Part &part,
                     const DenseMap<const Function *, Heat> *heat = nullptr) {
  OptLevel machineLevel = part.heat == Heat::Cold ? OptLevel::O0 : options.optLevel;
  std::unique_ptr<TargetMachine> machine = detail::hostTargetMachine(machineLevel, part.error);
  if (!machine)
    return;
  {
    StageTimer timer(part.lower);
    if (!verified(module, part.error))
      return;
  }
  {
    StageTimer timer(part.optimise);
    detail::optimise(module, *machine, options.optLevel, coldOnes(module, part.heat, heat));
  }
  StageTimer timer(part.codegen);
  detail::emitObject(module, *machine, part.object, part.error);
}

// A body part: its own definitions out of the bodies' bitcode, the other
// parts' bodies never read.
void compilePart(MemoryBufferRef bitcode, const Plan &plan, const Options &options, Part &part) {
  LLVMContext ctx;
  std::unique_ptr<Module> module;
  {
    StageTimer timer(part.lower);
    Expected<std::unique_ptr<Module>> lazy = getLazyBitcodeModule(bitcode, ctx);
    Error failed = lazy ? Error::success() : lazy.takeError();
    if (lazy) {
      for (Function &fn : **lazy)
        if (!fn.isDeclaration() && plan.partOf(fn) != part.index)
          fn.deleteBody();
      failed = (*lazy)->materializeAll();
    }
    if (failed) {
      part.error = "cannot read a part of the pack back: " + toString(std::move(failed));
      return;
    }
    module = std::move(*lazy);
    keepOnly(*module, plan, [&](unsigned owner) { return owner == part.index; });
  }
  optimiseAndEmit(*module, options, part);
}

unsigned threadsFor(const Options &options) {
  if (options.timePasses)
    return 1; // LLVM's pass timers are kept per process
  if (options.jobs)
    return options.jobs;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Every part, `threads` at a time: this thread lets go of the bodies' module
// and compiles part 0, in the context it was lowered in, while the others
// start on the body parts, then joins them.
void compileParts(Prepared &pack, const Options &options, std::vector<Part> &parts,
                  unsigned threads) {
  MemoryBufferRef bitcode(StringRef(pack.bitcode.data(), pack.bitcode.size()), "bodies");
  std::atomic<size_t> next = kDataPart + 1;
  auto work = [&] {
    for (size_t p; (p = next++) < parts.size();)
      compilePart(bitcode, pack.plan, options, parts[p]);
  };
  std::vector<std::thread> others;
  for (unsigned t = 1; t < threads && t < parts.size(); ++t)
    others.emplace_back(work);
  {
    StageTimer timer(parts[kDataPart].lower);
    pack.spent.reset();
  }
  optimiseAndEmit(*pack.data, options, parts[kDataPart], &pack.heat);
  work();
  for (std::thread &t : others)
    t.join();
}

// ---- linking ------------------------------------------------------------------------

bool writeFile(const std::string &path, ArrayRef<char> bytes, std::string &error) {
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (!ec) {
    out.write(bytes.data(), bytes.size());
    out.close();
    ec = out.error();
  }
  if (ec)
    error = fmt::format("cannot write {}: {}", path, ec.message());
  return !ec;
}

// Next to outPath, so it lands on the same file system and is found when
// kept: outPath.o, then outPath.1.o and on for a split pack's other parts.
bool objectPath(const std::string &outPath, const Options &options, unsigned part,
                std::string &path, std::string &error) {
  std::string suffix = part ? fmt::format(".{}.o", part) : std::string(".o");
  if (options.keepObject) {
    path = outPath + suffix;
    return true;
  }
  SmallString<256> unique;
  int fd = -1;
  if (std::error_code ec = sys::fs::createUniqueFile(outPath + "-%%%%%%" + suffix, fd, unique)) {
    error = fmt::format("cannot make a temporary object next to {}: {}", outPath, ec.message());
    return false;
  }
  sys::fs::closeFile(fd);
  path = unique.str().str();
  return true;
}

// The parts' objects written next to outPath, linked into it and sealed.
bool linkParts(const std::vector<Part> &parts, const std::string &outPath, const Options &options,
               std::string &error) {
  std::vector<std::string> paths;
  bool written = true;
  for (const Part &part : parts) {
    std::string path;
    if (!objectPath(outPath, options, part.index, path, error)) {
      written = false;
      break;
    }
    paths.push_back(path);
    if (!writeFile(path, part.object, error)) {
      written = false;
      break;
    }
  }
  bool linked =
      written && detail::linkShared(paths, outPath, error) && rt::sealPack(outPath, error);
  if (!options.keepObject)
    for (const std::string &path : paths)
      sys::fs::remove(path);
  return linked;
}

void addTimes(const std::vector<Part> &parts, unsigned threads, BuildTimes &times) {
  for (const Part &part : parts) {
    times.lower += part.lower;
    times.optimise += part.optimise;
    times.codegen += part.codegen;
    times.byPart.push_back({part.heat == Heat::Cold, part.lower, part.optimise, part.codegen});
  }
  times.parts = unsigned(parts.size());
  times.threads = std::min(threads, unsigned(parts.size()));
}

} // namespace

bool buildPack(const pack::Tables &tables, std::string_view blob, uint64_t hash,
               const std::string &outPath, std::string &error, const Options &options) {
  auto start = std::chrono::steady_clock::now();
  TimePassesIsEnabled = options.timePasses;
  unsigned threads = threadsFor(options);
  LLVMContext ctx;
  Prepared pack;
  double lowering = 0;
  {
    StageTimer timer(lowering);
    if (!prepare(ctx, tables, blob, hash, options, pack, error))
      return false;
  }
  std::vector<Part> parts(pack.plan.heat.size());
  for (unsigned p = 0; p < parts.size(); ++p) {
    parts[p].index = p;
    parts[p].heat = pack.plan.heat[p];
  }
  compileParts(pack, options, parts, threads);
  if (options.timePasses)
    reportAndResetTimings(&errs());
  for (const Part &part : parts)
    if (!part.error.empty()) {
      error = part.error;
      return false;
    }
  BuildTimes times;
  bool linked;
  {
    StageTimer timer(times.link);
    linked = linkParts(parts, outPath, options, error);
  }
  if (options.times) {
    times.lower = lowering;
    addTimes(parts, threads, times);
    times.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *options.times = times;
  }
  return linked;
}

std::string packIR(const pack::Tables &tables, std::string_view blob, uint64_t hash,
                   const Options &options) {
  LLVMContext ctx;
  std::string error;
  std::unique_ptr<TargetMachine> machine = detail::hostTargetMachine(options.optLevel, error);
  std::unique_ptr<Module> module =
      machine ? detail::lowerPack(ctx, *machine, tables, blob, hash, options.specialise, error)
              : nullptr;
  if (!module || !verified(*module, error))
    return "; error: " + error + "\n";
  // Every body as the full pipeline leaves it: what a hot one is built from.
  detail::optimise(*module, *machine, options.optLevel);
  std::string text;
  raw_string_ostream out(text);
  module->print(out, nullptr);
  return text;
}

} // namespace ledger::codegen

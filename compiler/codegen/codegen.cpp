// buildPack and packIR: lower, optimise, then emit and link, or print.
//
// Almost all of a build's time is LLVM's, and most of it is spent per
// function, whatever its size; a large catalog has thousands of bodies,
// most of them small. So a build (docs/build.md)
// - reads alike reads by one id and compiles identical bodies once
//   (fold_bodies.cpp);
// - gives the level's full pipeline to the machinery and the bodies that run
//   hot, and a short one to the cold ones (body_heat.cpp, optimise in
//   emit_object.cpp);
// - splits a large pack into parts that are optimised and compiled side by
//   side, each in its own LLVMContext and thread, its cold bodies with the
//   fast instruction selector, then links them together (pack_parts.cpp).
#include "codegen/fold_bodies.h"
#include "codegen/internal.h"
#include "codegen/pack_parts.h"
#include "pack_seal.h"

#include <fmt/format.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Pass.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace ledger::codegen {

using namespace llvm;
using detail::Heat;
using detail::kDataPart;
using detail::Plan;

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
  pack.heat = detail::functionHeat(*pack.data, tables);
  detail::shareAlikeReads(*pack.data, tables);
  detail::foldIdenticalBodies(*pack.data, pack.heat);
  uint64_t bodiesCost = detail::bodiesCost(pack.heat);
  detail::addMachineryHeat(*pack.data, pack.heat);
  if (bodiesCost <= options.splitAbove)
    return true;
  pack.spent = std::move(pack.data);
  pack.data =
      detail::splitPack(*pack.spent, pack.heat, options.inlineMachinery, pack.plan, pack.bitcode);
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

// A body part, read back and compiled in a context of its own.
void compilePart(MemoryBufferRef bitcode, const Plan &plan, const Options &options, Part &part) {
  LLVMContext ctx;
  std::unique_ptr<Module> module;
  {
    StageTimer timer(part.lower);
    module = detail::readPart(bitcode, plan, part.index, ctx, part.error);
  }
  if (module)
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

std::string cannotWrite(const std::string &path, std::error_code ec) {
  return fmt::format("cannot write {}: {}", path, ec.message());
}

// The bytes written and the file closed, a failure at either (a full disk
// may show only at the close) said, and taken from the stream, whose
// destructor would otherwise end the process over it.
bool writeAndClose(raw_fd_ostream &out, const std::string &path, ArrayRef<char> bytes,
                   std::string &error) {
  out.write(bytes.data(), bytes.size());
  out.close();
  std::error_code ec = out.error();
  out.clear_error();
  if (ec)
    error = cannotWrite(path, ec);
  return !ec;
}

// A file written whole or not at all: into a file of its own beside path,
// renamed over it once written, so no one (a game holding the old pack)
// maps half of it. A device (/dev/null) is written in place, never
// replaced; a FIFO too, but only while a reader holds it open.
bool writeWhole(const std::string &path, ArrayRef<char> bytes, std::string &error) {
  sys::fs::file_status status;
  if (!sys::fs::status(path, status) && status.type() != sys::fs::file_type::regular_file) {
    if (status.type() == sys::fs::file_type::directory_file) {
      error = cannotWrite(path, std::make_error_code(std::errc::is_a_directory));
      return false;
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      error = cannotWrite(path, std::error_code(errno, std::generic_category()));
      return false;
    }
    raw_fd_ostream out(fd, /*shouldClose=*/true);
    return writeAndClose(out, path, bytes, error);
  }
  SmallString<256> temporary;
  int fd = -1;
  if (std::error_code ec =
          sys::fs::createUniqueFile(path + "-%%%%%%.tmp", fd, temporary, sys::fs::OF_None,
                                    sys::fs::all_read | sys::fs::all_write | sys::fs::all_exe)) {
    error = cannotWrite(path, ec);
    return false;
  }
  raw_fd_ostream out(fd, /*shouldClose=*/true);
  bool written = writeAndClose(out, path, bytes, error);
  if (written)
    if (std::error_code ec = sys::fs::rename(temporary, path)) {
      error = cannotWrite(path, ec);
      written = false;
    }
  if (!written)
    sys::fs::remove(temporary);
  return written;
}

// A kept part's object, beside the pack: outPath.o, then outPath.1.o and on
// for a split pack's other parts.
std::string keptObjectPath(const std::string &outPath, unsigned part) {
  return outPath + (part ? fmt::format(".{}.o", part) : std::string(".o"));
}

// The parts' objects linked into the pack, sealed and written to outPath.
bool linkParts(const std::vector<Part> &parts, const std::string &outPath, const Options &options,
               std::string &error) {
  std::vector<ArrayRef<char>> objects;
  for (const Part &part : parts) {
    if (options.keepObject && !writeWhole(keptObjectPath(outPath, part.index), part.object, error))
      return false;
    objects.push_back(part.object);
  }
  std::string image;
  if (!detail::linkShared(objects, image, error))
    return false;
  rt::seal(image);
  return writeWhole(outPath, ArrayRef<char>(image.data(), image.size()), error);
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

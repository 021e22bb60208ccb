// buildPack and packIR: lower, optimise, then emit and link, or print.
#include "codegen/internal.h"
#include "pack_seal.h"

#include <fmt/format.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

namespace ledger::codegen {

using namespace llvm;

namespace {

// The pack's module, verified, optimised for the host; null with why.
std::unique_ptr<Module> optimisedPack(LLVMContext &ctx, const pack::Tables &tables,
                                      std::string_view blob, uint64_t hash, const Options &options,
                                      std::unique_ptr<TargetMachine> &machine, std::string &error) {
  machine = detail::hostTargetMachine(options.optLevel, error);
  if (!machine)
    return nullptr;
  std::unique_ptr<Module> module =
      detail::lowerPack(ctx, *machine, tables, blob, hash, options.specialise, error);
  if (!module)
    return nullptr;
  std::string broken;
  raw_string_ostream why(broken);
  if (verifyModule(*module, &why)) {
    error = "generated IR does not verify: " + broken;
    return nullptr;
  }
  detail::optimise(*module, *machine, options.optLevel);
  return module;
}

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

// Next to outPath, so it lands on the same file system and is found when kept.
bool objectPath(const std::string &outPath, const Options &options, std::string &path,
                std::string &error) {
  if (options.keepObject) {
    path = outPath + ".o";
    return true;
  }
  SmallString<256> unique;
  int fd = -1;
  if (std::error_code ec = sys::fs::createUniqueFile(outPath + "-%%%%%%.o", fd, unique)) {
    error = fmt::format("cannot make a temporary object next to {}: {}", outPath, ec.message());
    return false;
  }
  sys::fs::closeFile(fd);
  path = unique.str().str();
  return true;
}

} // namespace

bool buildPack(const pack::Tables &tables, std::string_view blob, uint64_t hash,
               const std::string &outPath, std::string &error, const Options &options) {
  LLVMContext ctx;
  std::unique_ptr<TargetMachine> machine;
  std::unique_ptr<Module> module = optimisedPack(ctx, tables, blob, hash, options, machine, error);
  if (!module)
    return false;
  SmallVector<char, 0> object;
  if (!detail::emitObject(*module, *machine, object, error))
    return false;
  std::string path;
  if (!objectPath(outPath, options, path, error))
    return false;
  bool linked = writeFile(path, object, error) && detail::linkShared(path, outPath, error) &&
                rt::sealPack(outPath, error);
  if (!options.keepObject)
    sys::fs::remove(path);
  return linked;
}

std::string packIR(const pack::Tables &tables, std::string_view blob, uint64_t hash,
                   const Options &options) {
  LLVMContext ctx;
  std::unique_ptr<TargetMachine> machine;
  std::string error;
  std::unique_ptr<Module> module = optimisedPack(ctx, tables, blob, hash, options, machine, error);
  if (!module)
    return "; error: " + error + "\n";
  std::string text;
  raw_string_ostream out(text);
  module->print(out, nullptr);
  return text;
}

} // namespace ledger::codegen

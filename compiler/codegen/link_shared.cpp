// The objects linked into a shared object by lld, in process.
#include "codegen/internal.h"

#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>
#include <vector>

LLD_HAS_DRIVER(elf)

namespace ledger::codegen::detail {

bool linkShared(const std::vector<std::string> &objectPaths, const std::string &outPath,
                std::string &error) {
  // lld keeps global state: one link at a time, and none after a crash it
  // could not recover from.
  static std::mutex mutex;
  static bool usable = true;
  std::lock_guard<std::mutex> lock(mutex);
  if (!usable) {
    error = "the in-process linker crashed earlier and cannot run again";
    return false;
  }
  // --no-undefined: a pack calls nothing but its kernel and compiler-rt's
  // arithmetic (its machinery's 128-bit divisions), linked in from its
  // archive, so any undefined symbol (a libcall LLVM slipped in) is a bug to
  // catch here, not at dlopen. --eh-frame-hdr: the unwind tables the bodies
  // carry are found by debuggers and profilers only through it.
  std::vector<const char *> args = {"ld.lld",         "-shared", "--no-undefined",
                                    "--eh-frame-hdr", "-z",      "noexecstack"};
  for (const std::string &path : objectPaths)
    args.push_back(path.c_str());
  args.push_back(LEDGER_BUILTINS_ARCHIVE);
  args.push_back("-o");
  args.push_back(outPath.c_str());
  std::string messages;
  llvm::raw_string_ostream out(messages), err(messages);
  lld::Result result = lld::lldMain(args, out, err, {{lld::Gnu, &lld::elf::link}});
  usable = result.canRunAgain;
  if (result.retCode != 0) {
    error = "link failed: " + messages;
    return false;
  }
  return true;
}

} // namespace ledger::codegen::detail

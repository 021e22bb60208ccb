// ledger: the command line. `check` reads and checks a catalog or a play
// file; `build`, `play` and `ir` are the compiler's later stages.
#include "driver/frontend.h"
#include "parse/parse.h"

#include <llvm/Config/llvm-config.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char *kUsage = R"(usage: ledger <command> [options]

Ledger compiles game-rule catalogs written in the ledger language into
native content packs, and plays their scenarios.

commands:
  check PATH [--dump]   read and check a catalog (.ledger file, .catalog list
                        or folder) or a .play file and the catalog it names;
                        --dump prints the checked syntax tree
  build PATH -o PACK    compile a catalog into a content pack (.so)
  play FILE...          run the plays of .play files against their catalogs
  ir PATH               print a catalog's IR

options:
  --help                show this help
  --version             show the version

exit status: 0 when accepted, 1 when the content is refused, 2 on a bad
command line or a command that isn't built yet.
)";

int usageError(const char *message) {
  std::fprintf(stderr, "ledger: %s\n", message);
  std::fprintf(stderr, "run `ledger --help` for the commands\n");
  return 2;
}

int check(const std::vector<std::string_view> &args) {
  std::string path;
  bool dump = false;
  for (std::string_view arg : args) {
    if (arg == "--dump")
      dump = true;
    else if (!arg.empty() && arg[0] == '-')
      return usageError(("check: unknown option " + std::string(arg)).c_str());
    else if (path.empty())
      path = arg;
    else
      return usageError("check takes one path");
  }
  if (path.empty())
    return usageError("check needs a path: a .ledger file, a .catalog list, a folder or a .play file");
  auto fe = ledger::runFrontend(path);
  fe->diags.print(stderr);
  if (dump)
    std::fputs(ledger::dumpTree(fe->tree).c_str(), stdout);
  if (!fe->ok()) {
    std::fprintf(stderr, "%zu error%s, %zu warning%s\n", fe->diags.errorCount(),
                 fe->diags.errorCount() == 1 ? "" : "s", fe->diags.warningCount(),
                 fe->diags.warningCount() == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

// A stage of the compiler that this build doesn't have yet says so.
int notBuilt(std::string_view command) {
  std::fprintf(stderr,
               "ledger: `%.*s` is not built yet: this version reads and checks catalogs "
               "(ledger check) and does nothing else\n",
               int(command.size()), command.data());
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty())
    return usageError("no command given");
  std::string_view command = args.front();
  std::vector<std::string_view> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("ledger %s (LLVM %s)\n", LEDGER_VERSION, LLVM_VERSION_STRING);
    return 0;
  }
  if (command == "check")
    return check(rest);
  if (command == "build" || command == "play" || command == "ir")
    return notBuilt(command);
  return usageError(("unknown command `" + std::string(command) + "`").c_str());
}

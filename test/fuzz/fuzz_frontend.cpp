// libFuzzer entry: any bytes, read as a catalog file, as a play file and
// through the loader as a .play file on disk (its catalog line resolved from
// its folder), must give diagnostics and never a crash.
#include "driver/frontend.h"
#include "parse/parse.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

void exercise(const ledger::Frontend &fe) {
  std::string rendered;
  for (const auto &diag : fe.diags.all())
    rendered += fe.diags.render(diag);
  std::string dump = ledger::dumpTree(fe.tree);
  (void)rendered;
  (void)dump;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  for (ledger::FileRole role : {ledger::FileRole::Catalog, ledger::FileRole::Play})
    exercise(*ledger::runFrontendOnText("fuzz.ledger", text, role));
  // A folder of its own, a few levels deep, so a catalog line reaching up
  // (`catalog ..`) finds empty folders, not whatever the machine keeps.
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             "ledger-fuzz" / "a" / "b" / "c" / "d";
    std::filesystem::create_directories(d);
    return d;
  }();
  std::filesystem::path play = dir / "input.play";
  {
    std::ofstream out(play, std::ios::binary);
    out << text;
  }
  exercise(*ledger::runFrontend(play.string()));
  return 0;
}

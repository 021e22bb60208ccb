// libFuzzer entry: any bytes, read as a catalog file and as a play file,
// must give diagnostics and never a crash.
#include "driver/frontend.h"
#include "parse/parse.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  for (ledger::FileRole role : {ledger::FileRole::Catalog, ledger::FileRole::Play}) {
    auto fe = ledger::runFrontendOnText("fuzz.ledger", text, role);
    std::string rendered;
    for (const auto &diag : fe->diags.all())
      rendered += fe->diags.render(diag);
    std::string dump = ledger::dumpTree(fe->tree);
    (void)rendered;
    (void)dump;
  }
  return 0;
}

// Seeds for the pack fuzzer (fuzz_pack.cpp): each catalog named, checked and
// lowered, its tables written to the folder given as the blob a compiled
// pack carries. A catalog the front end refuses is left out; one whose
// tables the reader refuses fails the step.
//   ledger_pack_seeds OUT CATALOG...
#include "driver/frontend.h"
#include "ir/ir.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fputs("usage: ledger_pack_seeds OUT CATALOG...\n", stderr);
    return 2;
  }
  std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  int written = 0, refused = 0;
  for (int i = 2; i < argc; ++i) {
    auto fe = ledger::runFrontend(argv[i]);
    if (!fe->ok())
      continue;
    ledger::pack::Tables tables = ledger::ir::lower(fe->tree, fe->decls, fe->diags);
    if (!fe->ok())
      continue;
    // What the front end accepts, the reader must: its checks refuse no catalog.
    std::string blob = ledger::pack::serialize(tables), why;
    ledger::pack::Tables back;
    if (!ledger::pack::deserialize(blob, back, why)) {
      std::fprintf(stderr, "%s: its tables are refused: %s\n", argv[i], why.c_str());
      ++refused;
      continue;
    }
    // Numbered: catalogs of one name stand in many folders.
    std::string name = std::filesystem::path(argv[i]).stem().string() + "-" + std::to_string(i);
    std::ofstream(out / (name + ".tables"), std::ios::binary) << blob;
    ++written;
  }
  std::printf("%d tables written to %s\n", written, out.c_str());
  return written > 0 && refused == 0 ? 0 : 1;
}

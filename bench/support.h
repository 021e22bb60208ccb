// What the benchmarks share: the skirmish catalog's names, the packs `ledger
// play` would build from a catalog, and the process's memory as it grows.
#pragma once

#include "codegen/codegen.h"
#include "driver/frontend.h"
#include "driver/temp_dir.h"
#include "eval/eval.h"
#include "ir/ir.h"
#include "pack.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

using Id = ledger::pack::Id;
constexpr int64_t kOne = 1'000'000; // a number's 1: values are fixed point, six places

// The process's resident set in bytes (/proc/self/statm's second field).
inline int64_t residentBytes() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  long long size = 0, resident = 0;
  if (std::fscanf(f, "%lld %lld", &size, &resident) != 2)
    resident = 0;
  std::fclose(f);
  return int64_t(resident) * sysconf(_SC_PAGESIZE);
}

// The bytes malloc has handed out and not had back (mallinfo2): the heap the
// world holds, untouched by pages the allocator kept from an earlier run.
inline int64_t heapBytes() {
  struct mallinfo2 mi = mallinfo2();
  return int64_t(mi.uordblks + mi.hblkhd);
}

// The skirmish catalog's names the drivers give orders by.
struct Ids {
  Id team, red, blue, strike, side, health, brawler;
  Id mana; // kNoId in a catalog without it: no end state is read
};

template <typename T>
Id findName(const ledger::pack::Tables &t, const std::vector<T> &list, std::string_view name) {
  Id id = t.find(list, name);
  if (id == ledger::pack::kNoId) {
    std::fprintf(stderr, "ledger bench: the catalog has no `%.*s`\n", int(name.size()),
                 name.data());
    std::exit(1);
  }
  return id;
}

inline Ids idsOf(const ledger::pack::Tables &t) {
  Ids ids;
  ids.team = findName(t, t.archetypes, "Team");
  ids.red = findName(t, t.archetypes, "Red");
  ids.blue = findName(t, t.archetypes, "Blue");
  ids.strike = findName(t, t.abilities, "Strike");
  ids.side = findName(t, t.links, "side");
  ids.health = findName(t, t.values, "Health");
  ids.brawler = findName(t, t.effects, "Brawler");
  ids.mana = t.find(t.values, "Mana");
  return ids;
}

// A catalog's packs as `ledger play` builds them: the front end, the
// lowering, then a reference pack over the tables and a compiled pack built
// into a temporary folder and loaded. Empty tables where the catalog is
// refused; a pack left null where its build failed, `error` saying why.
struct Packs {
  ledger::pack::Tables tables;
  std::unique_ptr<ledger::TempDir> temp;
  std::unique_ptr<ledger::rt::Pack> reference, compiled;
  std::string error;
  bool ok = false;
};

// A pack built before (`ledger build`) in place of the catalog: its own
// tables give the reference pack, and nothing is compiled in process.
inline Packs loadPacks(const std::string &pack, bool reference) {
  Packs p;
  p.compiled = ledger::rt::Pack::load(pack, p.error);
  if (!p.compiled) {
    p.error = "the pack is refused: " + p.error;
    return p;
  }
  p.tables = p.compiled->tables();
  if (reference)
    p.reference = ledger::rt::Pack::reference(p.tables, ledger::eval::evaluator());
  p.ok = true;
  return p;
}

inline Packs buildPacks(const std::string &catalog, bool reference, bool compiled) {
  Packs p;
  auto fe = ledger::runFrontend(catalog);
  if (fe->ok())
    p.tables = ledger::ir::lower(fe->tree, fe->decls, fe->diags);
  fe->diags.print(stderr);
  if (!fe->ok()) {
    p.error = catalog + " is refused";
    return p;
  }
  if (compiled) {
    p.temp = std::make_unique<ledger::TempDir>("ledger-bench");
    std::string so = p.temp->path + "/pack.so";
    std::string blob = ledger::pack::serialize(p.tables);
    if (!ledger::codegen::buildPack(p.tables, blob, ledger::pack::catalogHash(p.tables), so,
                                    p.error)) {
      p.error = "can't build the pack: " + p.error;
      return p;
    }
    p.compiled = ledger::rt::Pack::load(so, p.error);
    if (!p.compiled) {
      p.error = "the pack is refused: " + p.error;
      return p;
    }
  }
  if (reference)
    p.reference = ledger::rt::Pack::reference(p.tables, ledger::eval::evaluator());
  p.ok = true;
  return p;
}

} // namespace bench

// Loading a pack: its seal, dlopen, the descriptor's version, the tables'
// bounds and the catalog hash, each checked before anything in it is used.
#include "pack.h"
#include "pack_seal.h"

#include "eval/eval.h"

#include <cstdio>
#include <dlfcn.h>

namespace ledger::rt {

Pack::~Pack() {
  if (library_)
    dlclose(library_);
}

std::unique_ptr<Pack> Pack::load(const std::string &path, std::string &why) {
  // A path without a slash would be looked for on the library path.
  std::string where = path.find('/') == std::string::npos ? "./" + path : path;
  std::string image;
  if (!readSealed(where, image, why))
    return nullptr;
  // A portable pack's tables, checked whole as they are read, run on the
  // reference engine; nothing in it is code.
  if (std::string_view blob; portableBlob(image, blob)) {
    pack::Tables tables;
    if (!pack::deserialize(blob, tables, why))
      return nullptr;
    return reference(std::move(tables), eval::evaluator());
  }
  void *lib = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    why = std::string("can't load it: ") + (err ? err : "unknown error");
    return nullptr;
  }
  auto pack = std::unique_ptr<Pack>(new Pack);
  pack->library_ = lib;
  auto entry = reinterpret_cast<LedgerPackEntry>(dlsym(lib, LEDGER_PACK_SYMBOL));
  if (!entry) {
    why = "it is no ledger pack: it exports no " LEDGER_PACK_SYMBOL;
    return nullptr;
  }
  const LedgerPackDescriptor *d = entry();
  if (!d || d->abiVersion != LEDGER_PACK_ABI_VERSION) {
    why = "it was built for pack ABI " + std::to_string(d ? d->abiVersion : 0) +
          ", and this runtime reads ABI " + std::to_string(LEDGER_PACK_ABI_VERSION);
    return nullptr;
  }
  std::string_view blob(reinterpret_cast<const char *>(d->tables), d->tablesSize);
  if (!pack::deserialize(blob, pack->tables_, why))
    return nullptr;
  if (pack::catalogHash(pack->tables_) != d->catalogHash) {
    why = "its tables don't match its catalog hash";
    return nullptr;
  }
  // Its machinery calls its bodies itself; else the generic kernel calls
  // them, one for each the tables name.
  uint32_t bodies = d->engine ? 0 : uint32_t(pack->tables_.bodies.size());
  if (d->bodyCount != bodies) {
    why = "it holds " + std::to_string(d->bodyCount) + " bodies where its tables name " +
          std::to_string(bodies);
    return nullptr;
  }
  if (d->engine && d->engine->abiVersion != LEDGER_ENGINE_ABI_VERSION) {
    why = "its machinery was built for engine ABI " + std::to_string(d->engine->abiVersion) +
          ", and this runtime reads ABI " + std::to_string(LEDGER_ENGINE_ABI_VERSION);
    return nullptr;
  }
  pack->hash_ = d->catalogHash;
  pack->bodies_.assign(d->bodies, d->bodies + d->bodyCount);
  pack->engine_ = d->engine;
  pack->genericBecause_ = d->genericBecause ? d->genericBecause : "";
  pack->index_ = indexPack(pack->tables_);
  return pack;
}

std::unique_ptr<Pack> Pack::load(const std::string &path, uint64_t catalogHash,
                                 std::string &why) {
  std::unique_ptr<Pack> pack = load(path, why);
  if (pack && pack->hash() != catalogHash) {
    char words[160];
    std::snprintf(words, sizeof words,
                  "it is of another catalog (hash %016llx) than the host's header was written "
                  "from (%016llx): build the pack and the header together",
                  static_cast<unsigned long long>(pack->hash()),
                  static_cast<unsigned long long>(catalogHash));
    why = words;
    return nullptr;
  }
  return pack;
}

std::unique_ptr<Pack> Pack::reference(pack::Tables tables, Evaluator evaluator) {
  auto pack = std::unique_ptr<Pack>(new Pack);
  pack->hash_ = pack::catalogHash(tables);
  pack->tables_ = std::move(tables);
  pack->evaluator_ = evaluator;
  pack->index_ = indexPack(pack->tables_);
  return pack;
}

} // namespace ledger::rt

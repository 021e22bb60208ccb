// A loaded pack: its tables, checked, and how its bodies run: the functions
// of a compiled pack (.so), or the reference engine's evaluator over the
// same tables, called through the same two entry points.
#pragma once

#include "compiled/engine_abi.h"
#include "pack_abi.h"
#include "pack_format.h"
#include "kernel/pack_index.h"

#include <memory>
#include <string>
#include <vector>

namespace ledger::rt {

// The reference engine's way of running a body: evaluating it from the
// tables, in process (compiler/eval provides one).
struct Evaluator {
  int64_t (*formula)(const pack::Tables &tables, uint32_t body, LedgerFrame *frame) = nullptr;
  int32_t (*steps)(const pack::Tables &tables, uint32_t body, LedgerFrame *frame) = nullptr;
};

class Pack {
public:
  Pack() = default;
  Pack(const Pack &) = delete;
  Pack &operator=(const Pack &) = delete;
  ~Pack();

  // A compiled pack from a shared object: refused, with why, when it is no
  // ledger pack, another ABI's, its tables damaged or its hash not theirs.
  static std::unique_ptr<Pack> load(const std::string &path, std::string &why);
  // The same, refused too unless it is of the catalog a host's typed header
  // was written from (`ledger build --header`: its kCatalogHash), whose ids
  // the host was compiled with.
  static std::unique_ptr<Pack> load(const std::string &path, uint64_t catalogHash,
                                    std::string &why);
  // The reference engine's pack: the same tables, evaluated.
  static std::unique_ptr<Pack> reference(pack::Tables tables, Evaluator evaluator);

  const pack::Tables &tables() const { return tables_; }
  const PackIndex &index() const { return index_; }
  uint64_t hash() const { return hash_; }
  bool compiled() const { return library_ != nullptr; }
  // The compiled engine's machinery for its catalog, or null: its worlds run
  // on the generic kernel (the reference engine's, or a compiled pack's
  // fallback, its bodies native), for the reasons genericBecause gives.
  const LedgerEngine *engine() const { return engine_; }
  const std::string &genericBecause() const { return genericBecause_; }

  int64_t formula(uint32_t body, LedgerFrame *frame) const {
    if (!bodies_.empty())
      return reinterpret_cast<LedgerFormulaFn>(bodies_[body])(frame);
    return evaluator_.formula(tables_, body, frame);
  }
  int32_t steps(uint32_t body, LedgerFrame *frame) const {
    if (!bodies_.empty())
      return reinterpret_cast<LedgerStepsFn>(bodies_[body])(frame);
    return evaluator_.steps(tables_, body, frame);
  }

private:
  pack::Tables tables_;
  PackIndex index_;
  uint64_t hash_ = 0;
  std::vector<void *> bodies_;
  const LedgerEngine *engine_ = nullptr;
  std::string genericBecause_;
  Evaluator evaluator_;
  void *library_ = nullptr;
};

} // namespace ledger::rt

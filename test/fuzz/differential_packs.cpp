#include "differential_packs.h"

#include "host_orders.h"

#include "driver/frontend.h"
#include "eval/eval.h"
#include "ir/ir.h"

#include <optional>
#include <sstream>

namespace ledger::fuzz {

codegen::Options buildOptions;
bool planting = false;
volatile int *phase = nullptr;

namespace {

void enter(int what) {
  if (phase)
    *phase = what;
}

// The tables of a catalog, or the first error refusing it and its kind.
std::optional<pack::Tables> tablesOf(const std::string &text, Packs &p) {
  auto fe = runFrontendOnText("fuzz.ledger", text, FileRole::Catalog);
  pack::Tables tables;
  if (fe->ok())
    tables = ir::lower(fe->tree, fe->decls, fe->diags);
  if (fe->ok())
    return tables;
  for (const Diagnostic &d : fe->diags.all())
    if (d.severity == Severity::Error) {
      p.refused = fe->diags.render(d);
      p.refusedAs = diagInfo(d.kind).name;
      break;
    }
  return std::nullopt;
}

std::string planted(const std::string &text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find_first_not_of(' ');
    if (at != std::string::npos && line.compare(at, 5, "deal ") == 0)
      line.insert(at + 5, "0.000001 + ");
    out += line + "\n";
  }
  return out;
}

} // namespace

Packs packsOf(const std::string &text, const std::string &so, bool built) {
  Packs p;
  enter(kCheckingCatalog);
  std::optional<pack::Tables> tables = tablesOf(text, p);
  if (!tables)
    return p;
  std::string error;
  enter(kBuildingPack);
  if (!built) {
    std::optional<pack::Tables> compiledTables = planting ? tablesOf(planted(text), p) : tables;
    if (!compiledTables)
      return p;
    std::string blob = pack::serialize(*compiledTables);
    if (!codegen::buildPack(*compiledTables, blob, pack::catalogHash(*compiledTables), so, error, buildOptions)) {
      p.broken = "the compiled pack can't be built: " + error;
      return p;
    }
  }
  enter(kLoadingPack);
  p.compiled = rt::Pack::load(so, error);
  if (!p.compiled) {
    p.broken = "the compiled pack is refused as it loads: " + error;
    return p;
  }
  p.reference = rt::Pack::reference(std::move(*tables), eval::evaluator());
  return p;
}

} // namespace ledger::fuzz

#include "packs_for_tests.h"

#include "codegen/codegen.h"
#include "driver/frontend.h"
#include "driver/temp_dir.h"
#include "eval/eval.h"
#include "ir/ir.h"

#include <gtest/gtest.h>

#include <string>

namespace ledger::test {

pack::Tables tablesOf(const char *catalog) {
  auto fe = runFrontendOnText("test.ledger", catalog, FileRole::Catalog);
  EXPECT_TRUE(fe->ok());
  pack::Tables t = ir::lower(fe->tree, fe->decls, fe->diags);
  EXPECT_TRUE(fe->ok());
  return t;
}

std::unique_ptr<rt::Pack> packOf(const char *catalog, Engine engine) {
  pack::Tables t = tablesOf(catalog);
  if (engine == Engine::Reference)
    return rt::Pack::reference(std::move(t), eval::evaluator());
  static TempDir dir("ledger-unit-packs");
  static int built = 0;
  std::string path = dir.path + "/pack" + std::to_string(built++) + ".so", error;
  if (!codegen::buildPack(t, pack::serialize(t), pack::catalogHash(t), path, error,
                          {.optLevel = codegen::OptLevel::O1})) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  std::unique_ptr<rt::Pack> pack = rt::Pack::load(path, error);
  EXPECT_TRUE(pack && pack->engine()) << error;
  return pack;
}

} // namespace ledger::test

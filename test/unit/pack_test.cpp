// The pack format: a catalog's tables written and read back whole, the same
// bytes on every write, and a damaged blob refused before anything is used.
#include "driver/frontend.h"
#include "ir/ir.h"
#include "pack_format.h"

#include <gtest/gtest.h>

using namespace ledger;

namespace {

constexpr const char *kCatalog = R"(rate 10
tags Fire Status.Debuff
link side
allegiance side
stat Power default 2
pool Health max 100
effect Burn
    tags Fire Status.Debuff
    stack add max 5
    lasts 4s
    Power - 10%
    every 1s
        deal 2 * self.stacks Fire to holder from source
ability Bolt
    target one enemy
    cost Health 1
    cooldown 1s
    apply Burn to target
archetype Dummy
    full Health
    grants Bolt
)";

pack::Tables lowered(const std::string &name) {
  auto fe = runFrontendOnText(name, kCatalog, FileRole::Catalog);
  EXPECT_TRUE(fe->ok());
  return ir::lower(fe->tree, fe->decls, fe->diags);
}

} // namespace

TEST(PackFormat, RoundTripsEveryTable) {
  pack::Tables tables = lowered("a.ledger");
  std::string blob = pack::serialize(tables);
  pack::Tables back;
  std::string why;
  ASSERT_TRUE(pack::deserialize(blob, back, why)) << why;
  EXPECT_EQ(ir::print(back), ir::print(tables));
  EXPECT_EQ(pack::serialize(back), blob);
}

TEST(PackFormat, TheSameCatalogWritesTheSameBytes) {
  EXPECT_EQ(pack::serialize(lowered("a.ledger")), pack::serialize(lowered("a.ledger")));
}

TEST(PackFormat, TheHashIsTheCatalogsWhateverItsPath) {
  EXPECT_EQ(pack::catalogHash(lowered("a.ledger")), pack::catalogHash(lowered("elsewhere/b.ledger")));
}

TEST(PackFormat, RefusesWhatIsNoPack) {
  pack::Tables back;
  std::string why;
  EXPECT_FALSE(pack::deserialize("not a pack at all", back, why));
  EXPECT_EQ(why, "it is not a ledger pack's tables");
}

TEST(PackFormat, RefusesABlobCutShort) {
  std::string blob = pack::serialize(lowered("a.ledger"));
  for (size_t cut : {blob.size() - 1, blob.size() / 2, size_t(12)}) {
    pack::Tables back;
    std::string why;
    EXPECT_FALSE(pack::deserialize(std::string_view(blob).substr(0, cut), back, why));
    EXPECT_EQ(why, "its tables are cut short or run on");
  }
}

TEST(PackFormat, RefusesAnIndexPastItsTable) {
  pack::Tables tables = lowered("a.ledger");
  tables.abilities[0].cooldownEffect = 999;
  pack::Tables back;
  std::string why;
  EXPECT_FALSE(pack::deserialize(pack::serialize(tables), back, why));
  EXPECT_EQ(why, "an index into effects points past its end");
}

TEST(PackFormat, RefusesAStepRangePastItsTable) {
  pack::Tables tables = lowered("a.ledger");
  tables.bodies.back().stepsEnd = 10'000;
  tables.bodies.back().kind = pack::BodyKind::Steps;
  pack::Tables back;
  std::string why;
  EXPECT_FALSE(pack::deserialize(pack::serialize(tables), back, why));
  EXPECT_EQ(why, "a range of steps runs past its end");
}

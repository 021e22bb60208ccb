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
    var ticks = 0
    every 1s
        deal 2 * self.stacks Fire to holder from source
        if self.ticks < 3
            self.ticks += 1
ability Bolt
    target one enemy
    cost Health 1
    cooldown 1s
    deal sum(all enemies, it.Power) to target
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

namespace {

// The tables damaged by `damage`: what the reader says of them.
template <typename F> std::string refusal(F damage) {
  pack::Tables tables = lowered("a.ledger");
  damage(tables);
  pack::Tables back;
  std::string why;
  EXPECT_FALSE(pack::deserialize(pack::serialize(tables), back, why));
  return why;
}

template <typename P> pack::Id first(const std::vector<P> &list, bool (*is)(const P &)) {
  for (pack::Id i = 0; i < list.size(); ++i)
    if (is(list[i]))
      return i;
  ADD_FAILURE() << "no such record";
  return 0;
}
bool stepsBody(const pack::Body &b) { return b.kind == pack::BodyKind::Steps; }
bool product(const pack::Expr &e) { return e.op == pack::ExprOp::Mul; }
bool local(const pack::Expr &e) { return e.op == pack::ExprOp::Local; }
bool var(const pack::Expr &e) { return e.op == pack::ExprOp::Var; }
bool deals(const pack::Action &a) { return a.op == pack::ActionOp::Deal; }
bool nesting(const pack::Step &s) { return s.bodyBegin != s.bodyEnd; }
bool sums(const pack::Fold &f) { return f.kind == pack::FoldKind::Sum; }

} // namespace

// A formula's place naming a body of steps (its root none) had the
// reference engine evaluate past the expressions' end.
TEST(PackFormat, RefusesAFormulasPlaceNamingSteps) {
  EXPECT_EQ(refusal([](pack::Tables &t) {
              t.values[t.find(t.values, "Health")].maxBody = first(t.bodies, stepsBody);
            }),
            "a formula's place names a body of steps");
}

// A sum lacking what it sums of each it finds had that evaluated past the
// expressions' end.
TEST(PackFormat, RefusesAFoldLackingItsFormula) {
  EXPECT_EQ(refusal([](pack::Tables &t) { t.folds[first(t.folds, sums)].item = pack::kNoId; }),
            "a fold reads no formula of each it finds");
}

// A product lacking its second operand had it evaluated past the end.
TEST(PackFormat, RefusesAnExpressionLackingAnOperand) {
  EXPECT_EQ(refusal([](pack::Tables &t) { t.exprs[first(t.exprs, product)].b = pack::kNoId; }),
            "an expression lacks an operand");
}

// What would run without end, or as long as a number of expressions holds
// doublings: a formula reading itself or one after it, one read twice, a
// step inside itself.
TEST(PackFormat, RefusesFormulasAndStepsThatAreNoTrees) {
  EXPECT_EQ(refusal([](pack::Tables &t) {
              pack::Id e = first(t.exprs, product);
              t.exprs[e].a = e;
            }),
            "an expression reads one after it");
  EXPECT_EQ(refusal([](pack::Tables &t) {
              pack::Id e = first(t.exprs, product);
              t.exprs[e].b = t.exprs[e].a;
            }),
            "an expression is read twice");
  EXPECT_EQ(refusal([](pack::Tables &t) {
              pack::Id s = first(t.steps, nesting);
              t.steps[s].bodyBegin = s;
            }),
            "a step's body comes before it");
}

// A local or a var past what the frame running the body holds.
TEST(PackFormat, RefusesALocalOrAVarItsFrameLacks) {
  EXPECT_EQ(refusal([](pack::Tables &t) { t.exprs[first(t.exprs, local)].imm = 1000; }),
            "a body reads a local its frame lacks");
  EXPECT_EQ(refusal([](pack::Tables &t) { t.exprs[first(t.exprs, var)].imm = 1000; }),
            "a body reads a var its frame lacks");
}

// An action reading more operands than its step has.
TEST(PackFormat, RefusesAStepWithFewerOperandsThanItsActionReads) {
  EXPECT_EQ(refusal([](pack::Tables &t) {
              pack::Id deal = first(t.actions, deals);
              for (pack::Step &s : t.steps)
                if (s.op == pack::StepOp::Action && s.info == deal)
                  s.argCount = 0;
            }),
            "a step has fewer operands than it reads");
}

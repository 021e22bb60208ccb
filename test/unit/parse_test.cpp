#include "driver/frontend.h"
#include "parse/parse.h"
#include "parse/pattern.h"

#include <gtest/gtest.h>

using namespace ledger;

TEST(Patterns, EveryFormCompilesAndHasAContext) {
  const PatternTable &table = patternTable();
  ASSERT_EQ(table.forms.size(), kFormCount);
  for (const FormPattern &form : table.forms) {
    EXPECT_FALSE(form.alts.empty()) << form.name;
    // A link override is no line the parser reads: the checker makes one.
    if (form.kind != FormKind::EffectLinkOverride)
      EXPECT_NE(static_cast<uint32_t>(form.ctxs), 0u) << form.name;
  }
}

TEST(Patterns, ReadableDropsLabels) {
  EXPECT_EQ(patternTable().readable(FormKind::EffectDies), "dies at no POOL [raising EVENT]");
}

TEST(Parse, AStepReadsItsFormulaAndTags) {
  auto fe = runFrontendOnText("t.ledger",
                              "tags Fire\neffect Burn\n    every 1s\n"
                              "        deal 2 * self.stacks Fire to holder from source\n",
                              FileRole::Catalog);
  ASSERT_TRUE(fe->ok());
  std::string dump = dumpTree(fe->tree);
  EXPECT_NE(dump.find("StepDeal @4 amount=(* 2 self.stacks) types=[Fire] "
                      "to=(TargetsActor actor=holder) from=source"),
            std::string::npos)
      << dump;
}

TEST(Parse, BadInputNeverCrashes) {
  const char *inputs[] = {"(", ")", "effect", "effect X\n  deal", "\"", "a.b.c.(",
                          "stat S max max max", "effect E\n    every (1 +)s"};
  for (const char *input : inputs) {
    auto fe = runFrontendOnText("t.ledger", input, FileRole::Catalog);
    EXPECT_GT(fe->diags.errorCount(), 0u) << input;
  }
}

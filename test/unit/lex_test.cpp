#include "lex/lex.h"

#include <gtest/gtest.h>

using namespace ledger;

namespace {
struct Lexed {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  LexedFile file;
};

std::unique_ptr<Lexed> lexText(std::string text, FileRole role = FileRole::Catalog) {
  auto out = std::make_unique<Lexed>();
  FileId id = out->sources.add("t.ledger", std::move(text));
  out->file = lex(out->sources, id, role, out->diags);
  return out;
}
} // namespace

TEST(Lex, DurationsPercentsAndNumbers) {
  auto l = lexText("lasts 1.5s 500ms 3t 20% 7\n");
  const auto &t = l->file.tokens;
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[1].kind, TokenKind::Duration);
  EXPECT_EQ(t[1].unit, TimeUnit::Seconds);
  EXPECT_EQ(t[1].value.raw, 1'500'000);
  EXPECT_EQ(t[2].unit, TimeUnit::Millis);
  EXPECT_EQ(t[3].unit, TimeUnit::Ticks);
  EXPECT_EQ(t[4].kind, TokenKind::Percent);
  EXPECT_EQ(t[4].value.raw, 200'000);
  EXPECT_EQ(t[5].kind, TokenKind::Number);
  EXPECT_EQ(l->diags.errorCount(), 0u);
}

TEST(Lex, IndentationMakesBlocks) {
  auto l = lexText("effect Burn\n    tags Fire\n    every 1s\n        deal 2 to holder\nstat A\n");
  const auto &lines = l->file.lines;
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(l->file.firstTopLine, 0u);
  EXPECT_EQ(lines[0].firstChild, 1u);
  EXPECT_EQ(lines[1].nextSibling, 2u);
  EXPECT_EQ(lines[2].firstChild, 3u);
  EXPECT_EQ(lines[0].nextSibling, 4u);
}

TEST(Lex, ParenthesesContinueALine) {
  auto l = lexText("requires max(1,\n   2) > 0\n");
  EXPECT_EQ(l->file.lines.size(), 1u);
  EXPECT_EQ(l->diags.errorCount(), 0u);
}

TEST(Lex, TabsAreRefused) {
  auto l = lexText("effect Burn\n\ttags Fire\n");
  ASSERT_EQ(l->diags.errorCount(), 1u);
  EXPECT_EQ(l->diags.all()[0].kind, DiagKind::TabIndent);
}

TEST(Lex, SeventhPlaceIsRefused) {
  auto l = lexText("base Power 0.1234567\n");
  ASSERT_EQ(l->diags.errorCount(), 1u);
  EXPECT_EQ(l->diags.all()[0].kind, DiagKind::NumberTooManyPlaces);
}

TEST(Lex, APlayLineSourceIsRawText) {
  auto l = lexText("play \"x\"\n    expect a.B = 1 from content: it's 1 (see above\n",
                   FileRole::Play);
  EXPECT_EQ(l->diags.errorCount(), 0u);
  EXPECT_EQ(l->file.tokens.back().kind, TokenKind::RawText);
}

TEST(Lex, ANulByteIsRefusedAndPassed) {
  auto l = lexText(std::string("stat A # a\0b\nstat B\0\n", 21));
  EXPECT_EQ(l->file.lines.size(), 2u);
  EXPECT_EQ(l->diags.errorCount(), 1u);
}

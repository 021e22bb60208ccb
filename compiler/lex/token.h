// Tokens and lines: what the lexer makes of one file.
#pragma once

#include "base/fixed.h"
#include "base/source.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ledger {

enum class TokenKind : uint8_t {
  Name,     // a letter or _, then letters, digits or _
  Number,   // at most six places
  Percent,  // N%: N hundredths
  Duration, // a number touching its unit: 1.5s, 500ms, 3t
  String,   // "quoted text"
  RawText,  // the rest of a line after `:` (a play line's source), or a play file's catalog path
  LParen,
  RParen,
  Comma,
  Dot,
  Ellipsis,
  Eq,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  Plus,
  Minus,
  Star,
  Slash,
  PlusEq,
  MinusEq,
};

enum class TimeUnit : uint8_t { None, Seconds, Millis, Ticks };

struct Token {
  TokenKind kind;
  TimeUnit unit = TimeUnit::None; // on a Duration, or a unit word touching `)`
  bool touchesPrev = false;       // no space between this token and the one before
  uint32_t begin = 0;             // byte offsets in the file
  uint32_t end = 0;
  Fixed value;                    // Number, Percent (already divided by 100), Duration
};

// A catalog file holds content; a play file holds plays of a catalog.
enum class FileRole : uint8_t { Catalog, Play };

inline constexpr uint32_t kNoLine = UINT32_MAX;

// One statement: its tokens and the lines indented under it.
struct Line {
  uint32_t firstToken = 0;
  uint32_t endToken = 0;
  uint32_t indent = 0;
  uint32_t parent = kNoLine;
  uint32_t firstChild = kNoLine;
  uint32_t nextSibling = kNoLine;
};

struct LexedFile {
  FileId file = 0;
  std::vector<Token> tokens;
  std::vector<Line> lines;
  uint32_t firstTopLine = kNoLine;

  std::string_view text(const SourceManager &sources, const Token &tok) const {
    return std::string_view(sources.file(file).text).substr(tok.begin, tok.end - tok.begin);
  }
};

const char *tokenKindName(TokenKind kind);

} // namespace ledger

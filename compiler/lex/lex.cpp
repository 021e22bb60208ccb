#include "lex/lex.h"

#include <fmt/format.h>

namespace ledger {

const char *tokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Name: return "name";
  case TokenKind::Number: return "number";
  case TokenKind::Percent: return "percent";
  case TokenKind::Duration: return "duration";
  case TokenKind::String: return "quoted text";
  case TokenKind::RawText: return "text";
  case TokenKind::LParen: return "`(`";
  case TokenKind::RParen: return "`)`";
  case TokenKind::Comma: return "`,`";
  case TokenKind::Dot: return "`.`";
  case TokenKind::Ellipsis: return "`...`";
  case TokenKind::Eq: return "`=`";
  case TokenKind::EqEq: return "`==`";
  case TokenKind::NotEq: return "`!=`";
  case TokenKind::Less: return "`<`";
  case TokenKind::LessEq: return "`<=`";
  case TokenKind::Greater: return "`>`";
  case TokenKind::GreaterEq: return "`>=`";
  case TokenKind::Plus: return "`+`";
  case TokenKind::Minus: return "`-`";
  case TokenKind::Star: return "`*`";
  case TokenKind::Slash: return "`/`";
  case TokenKind::PlusEq: return "`+=`";
  case TokenKind::MinusEq: return "`-=`";
  }
  return "token";
}

namespace {

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

class Lexer {
public:
  Lexer(const SourceManager &sources, FileId file, FileRole role, DiagnosticEngine &diags)
      : text_(sources.file(file).text), role_(role), diags_(diags) {
    out_.file = file;
  }

  LexedFile run() {
    while (pos_ < text_.size())
      physicalLine();
    if (depth_ > 0)
      diags_.report(DiagKind::UnclosedParen, loc(openParen_), 1);
    closeLine();
    buildTree();
    return std::move(out_);
  }

private:
  Loc loc(uint32_t offset) const { return {out_.file, offset}; }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool atLineEnd() const {
    if (pos_ >= text_.size())
      return true;
    char c = text_[pos_];
    return c == '\n' || (c == '\r' && peek(1) == '\n');
  }

  void physicalLine() {
    if (depth_ == 0) {
      uint32_t indent = 0;
      while (peek() == ' ' || peek() == '\t') {
        if (peek() == '\t')
          diags_.report(DiagKind::TabIndent, loc(static_cast<uint32_t>(pos_)), 1);
        ++indent;
        ++pos_;
      }
      if (atLineEnd() || peek() == '#') {
        skipToLineEnd();
        consumeNewline();
        return;
      }
      closeLine();
      openLine(indent);
    }
    sawSpace_ = true;
    while (!atLineEnd())
      token();
    consumeNewline();
  }

  void skipToLineEnd() {
    while (!atLineEnd())
      ++pos_;
  }
  void consumeNewline() {
    if (peek() == '\r')
      ++pos_;
    if (peek() == '\n')
      ++pos_;
  }

  void openLine(uint32_t indent) {
    lineOpen_ = true;
    current_ = Line{};
    current_.indent = indent;
    current_.firstToken = static_cast<uint32_t>(out_.tokens.size());
  }
  void closeLine() {
    if (!lineOpen_)
      return;
    lineOpen_ = false;
    current_.endToken = static_cast<uint32_t>(out_.tokens.size());
    if (current_.endToken > current_.firstToken)
      out_.lines.push_back(current_);
  }

  void push(TokenKind kind, size_t begin, Fixed value = {}, TimeUnit unit = TimeUnit::None) {
    Token tok;
    tok.kind = kind;
    tok.unit = unit;
    tok.touchesPrev = !sawSpace_;
    tok.begin = static_cast<uint32_t>(begin);
    tok.end = static_cast<uint32_t>(pos_);
    tok.value = value;
    out_.tokens.push_back(tok);
    sawSpace_ = false;
  }

  // The rest of the line as one token, trimmed; a comment is kept out unless
  // quoted text could hold it.
  void rawRest() {
    while (peek() == ' ')
      ++pos_;
    size_t begin = pos_;
    size_t last = pos_;
    while (!atLineEnd() && peek() != '#') {
      ++pos_;
      if (text_[pos_ - 1] != ' ')
        last = pos_;
    }
    size_t end = pos_;
    pos_ = last;
    push(TokenKind::RawText, begin);
    pos_ = end;
    skipToLineEnd();
  }


  void token() {
    char c = peek();
    size_t begin = pos_;
    if (c == ' ') {
      ++pos_;
      sawSpace_ = true;
      return;
    }
    if (c == '\t') {
      ++pos_;
      sawSpace_ = true;
      return;
    }
    if (c == '#') {
      skipToLineEnd();
      return;
    }
    if (c == '"') {
      string();
      return;
    }
    if (isDigit(c)) {
      number();
      return;
    }
    if (isNameStart(c)) {
      while (isNameChar(peek()))
        ++pos_;
      push(TokenKind::Name, begin);
      // A play file's catalog line names a path, which isn't lexed.
      if (role_ == FileRole::Play && current_.indent == 0 &&
          out_.tokens.size() == current_.firstToken + 1 &&
          text_.compare(begin, pos_ - begin, "catalog") == 0 && !atLineEnd())
        rawRest();
      return;
    }
    ++pos_;
    switch (c) {
    case '(':
      if (depth_++ == 0)
        openParen_ = static_cast<uint32_t>(begin);
      push(TokenKind::LParen, begin);
      return;
    case ')':
      if (depth_ == 0)
        diags_.report(DiagKind::UnopenedParen, loc(static_cast<uint32_t>(begin)), 1);
      else
        --depth_;
      push(TokenKind::RParen, begin);
      return;
    case ',':
      push(TokenKind::Comma, begin);
      return;
    case '.':
      if (peek() == '.' && peek(1) == '.') {
        pos_ += 2;
        push(TokenKind::Ellipsis, begin);
      } else {
        push(TokenKind::Dot, begin);
      }
      return;
    case '=':
      if (peek() == '=') {
        ++pos_;
        push(TokenKind::EqEq, begin);
      } else {
        push(TokenKind::Eq, begin);
      }
      return;
    case '!':
      if (peek() == '=') {
        ++pos_;
        push(TokenKind::NotEq, begin);
        return;
      }
      break;
    case '<':
      if (peek() == '=') {
        ++pos_;
        push(TokenKind::LessEq, begin);
      } else {
        push(TokenKind::Less, begin);
      }
      return;
    case '>':
      if (peek() == '=') {
        ++pos_;
        push(TokenKind::GreaterEq, begin);
      } else {
        push(TokenKind::Greater, begin);
      }
      return;
    case '+':
      if (peek() == '=') {
        ++pos_;
        push(TokenKind::PlusEq, begin);
      } else {
        push(TokenKind::Plus, begin);
      }
      return;
    case '-':
      if (peek() == '=') {
        ++pos_;
        push(TokenKind::MinusEq, begin);
      } else {
        push(TokenKind::Minus, begin);
      }
      return;
    case '*':
      push(TokenKind::Star, begin);
      return;
    case '/':
      push(TokenKind::Slash, begin);
      return;
    case ':':
      rawRest();
      return;
    default:
      break;
    }
    // Skip the whole UTF-8 sequence of a character the language has no use for.
    while ((static_cast<unsigned char>(peek()) & 0xC0) == 0x80)
      ++pos_;
    // A control byte (a NUL in a damaged file) is said by its code, so the
    // message and the line shown with it print whole.
    std::string shown(text_.substr(begin, pos_ - begin));
    if (shown.size() == 1 && (static_cast<unsigned char>(shown[0]) < 0x20 || shown[0] == 0x7f))
      shown = fmt::format("\\x{:02x}", static_cast<unsigned char>(shown[0]));
    diags_.report(DiagKind::UnexpectedCharacter, loc(static_cast<uint32_t>(begin)),
                  static_cast<uint32_t>(pos_ - begin), shown);
    sawSpace_ = true;
  }

  void string() {
    size_t begin = pos_++;
    while (true) {
      if (atLineEnd()) {
        diags_.report(DiagKind::UnterminatedString, loc(static_cast<uint32_t>(begin)), 1);
        push(TokenKind::String, begin);
        return;
      }
      char c = text_[pos_++];
      if (c == '\\' && (peek() == '"' || peek() == '\\')) {
        ++pos_;
        continue;
      }
      if (c == '"')
        break;
    }
    push(TokenKind::String, begin);
  }

  void number() {
    size_t begin = pos_;
    while (isDigit(peek()))
      ++pos_;
    if (peek() == '.' && isDigit(peek(1))) {
      ++pos_;
      while (isDigit(peek()))
        ++pos_;
    }
    std::string_view digits(text_.data() + begin, pos_ - begin);
    Fixed value;
    switch (parseDecimal(digits, value)) {
    case DecimalError::None:
      break;
    case DecimalError::TooManyPlaces:
      diags_.report(DiagKind::NumberTooManyPlaces, loc(static_cast<uint32_t>(begin)),
                    static_cast<uint32_t>(digits.size()), digits);
      break;
    case DecimalError::TooLarge:
    case DecimalError::Malformed:
      diags_.report(DiagKind::NumberTooLarge, loc(static_cast<uint32_t>(begin)),
                    static_cast<uint32_t>(digits.size()), digits);
      break;
    }
    if (peek() == '%') {
      ++pos_;
      push(TokenKind::Percent, begin, Fixed{value.raw / 100});
      if (value.raw % 100 != 0)
        diags_.report(DiagKind::NumberTooManyPlaces, loc(static_cast<uint32_t>(begin)),
                      static_cast<uint32_t>(pos_ - begin), text_.substr(begin, pos_ - begin));
      return;
    }
    if (isNameStart(peek())) {
      size_t unitBegin = pos_;
      while (isNameChar(peek()))
        ++pos_;
      std::string_view unit(text_.data() + unitBegin, pos_ - unitBegin);
      TimeUnit tu = unit == "s" ? TimeUnit::Seconds
                    : unit == "ms" ? TimeUnit::Millis
                    : unit == "t"  ? TimeUnit::Ticks
                                   : TimeUnit::None;
      if (tu == TimeUnit::None)
        diags_.report(DiagKind::NumberTouchesName, loc(static_cast<uint32_t>(begin)),
                      static_cast<uint32_t>(pos_ - begin), text_.substr(begin, pos_ - begin));
      push(TokenKind::Duration, begin, value, tu);
      return;
    }
    push(TokenKind::Number, begin, value);
  }

  // Each line belongs to the nearest line above it indented less; a block's
  // lines share one indentation.
  void buildTree() {
    struct Open {
      uint32_t line;
      uint32_t indent;
      uint32_t lastChild;
    };
    uint32_t topLast = kNoLine;
    auto &lines = out_.lines;
    std::vector<Open> open;
    for (uint32_t i = 0; i < lines.size(); ++i) {
      Line &line = lines[i];
      while (!open.empty() && line.indent <= open.back().indent)
        open.pop_back();
      // The block's children share the indentation its first child set.
      uint32_t expected;
      uint32_t lastSibling;
      if (open.empty()) {
        expected = 0;
        lastSibling = topLast;
      } else {
        Open &parent = open.back();
        lastSibling = parent.lastChild;
        expected = lastSibling == kNoLine ? line.indent : lines[lastSibling].indent;
      }
      if (line.indent != expected) {
        diags_.report(DiagKind::BadIndent, loc(out_.tokens[line.firstToken].begin), 1,
                      line.indent, expected);
      }
      if (open.empty()) {
        if (topLast == kNoLine)
          out_.firstTopLine = i;
        else
          lines[topLast].nextSibling = i;
        topLast = i;
      } else {
        Open &parent = open.back();
        line.parent = parent.line;
        if (parent.lastChild == kNoLine)
          lines[parent.line].firstChild = i;
        else
          lines[parent.lastChild].nextSibling = i;
        parent.lastChild = i;
      }
      open.push_back({i, line.indent, kNoLine});
    }
  }

  std::string_view text_;
  FileRole role_;
  DiagnosticEngine &diags_;
  LexedFile out_;
  size_t pos_ = 0;
  int depth_ = 0;
  uint32_t openParen_ = 0;
  bool sawSpace_ = true;
  bool lineOpen_ = false;
  Line current_;
};

} // namespace

LexedFile lex(const SourceManager &sources, FileId file, FileRole role, DiagnosticEngine &diags) {
  return Lexer(sources, file, role, diags).run();
}

} // namespace ledger

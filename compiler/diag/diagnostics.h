// Diagnostics: every kind is listed once in kinds.def with its severity and
// message; they print as `path:line:col: error: message`, the source line and
// a caret, and notes point at the other line of a clash.
#pragma once

#include "base/source.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ledger {

enum class Severity : uint8_t { Error, Warning, Note };

enum class DiagKind : uint16_t {
#define DIAG(Name, Sev, Text) Name,
#include "diag/kinds.def"
#undef DIAG
};

struct DiagInfo {
  const char *name;
  Severity severity;
  const char *text;
};
const DiagInfo &diagInfo(DiagKind kind);

// Text a message quotes, cut to its first kQuotedChars characters and `…`,
// so a token of megabytes makes a message of a line.
constexpr size_t kQuotedChars = 400;
std::string quotable(std::string_view text);

struct Diagnostic {
  DiagKind kind;
  Severity severity;
  Loc loc;
  uint32_t length; // bytes underlined, at least 1
  std::string message;
  std::vector<Diagnostic> notes;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sources) : sources_(sources) {}

  template <typename... Args>
  Diagnostic &report(DiagKind kind, Loc loc, uint32_t length, const Args &...args) {
    return add(kind, diagInfo(kind).severity, loc, length, message(kind, args...));
  }
  // A note on the diagnostic reported last.
  template <typename... Args>
  void note(DiagKind kind, Loc loc, uint32_t length, const Args &...args) {
    if (diags_.empty())
      return;
    diags_.back().notes.push_back(
        {kind, Severity::Note, loc, length ? length : 1, message(kind, args...), {}});
  }

  // Takes a diagnostic another engine over the same sources reported.
  void append(const Diagnostic &diag);

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }
  const std::vector<Diagnostic> &all() const { return diags_; }

  // Writes the diagnostics in source order; past errorLimit errors (0: no
  // limit) one line says the rest are left out. In color, as a terminal
  // shows clang's: the place bold, the severity in its color, the caret green.
  void print(std::FILE *out, size_t errorLimit = 0, bool color = false) const;
  std::string render(const Diagnostic &diag, bool color = false) const;
  // -Werror: every warning made so far an error, saying so.
  void warningsAsErrors();

private:
  template <typename Arg> static decltype(auto) shown(const Arg &arg) {
    if constexpr (std::is_convertible_v<const Arg &, std::string_view>)
      return ledger::quotable(arg);
    else
      return (arg);
  }
  template <typename... Args> static std::string message(DiagKind kind, const Args &...args) {
    auto values = std::make_tuple(shown(args)...);
    return std::apply(
        [&](auto &...value) { return formatMessage(kind, fmt::make_format_args(value...)); },
        values);
  }
  // A message whose text asks for more values than its caller gave is a
  // compiler bug; it prints the text unfilled rather than stopping the run.
  static std::string formatMessage(DiagKind kind, fmt::format_args args);
  Diagnostic &add(DiagKind kind, Severity severity, Loc loc, uint32_t length,
                  std::string message);

  const SourceManager &sources_;
  std::vector<Diagnostic> diags_;
  size_t errors_ = 0;
  size_t warnings_ = 0;
};

} // namespace ledger

// Diagnostics: every kind is listed once in kinds.def with its severity and
// message; they print as `path:line:col: error: message`, the source line and
// a caret, and notes point at the other line of a clash.
#pragma once

#include "base/source.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
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
    return add(kind, diagInfo(kind).severity, loc, length,
               formatMessage(kind, fmt::make_format_args(args...)));
  }
  // A note on the diagnostic reported last.
  template <typename... Args>
  void note(DiagKind kind, Loc loc, uint32_t length, const Args &...args) {
    if (diags_.empty())
      return;
    diags_.back().notes.push_back({kind, Severity::Note, loc, length ? length : 1,
                                   formatMessage(kind, fmt::make_format_args(args...)), {}});
  }

  // Takes a diagnostic another engine over the same sources reported.
  void append(const Diagnostic &diag);

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }
  const std::vector<Diagnostic> &all() const { return diags_; }

  // Writes every diagnostic in the order reported.
  void print(std::FILE *out) const;
  std::string render(const Diagnostic &diag) const;

private:
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

#include "diag/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace ledger {

static const DiagInfo kDiagInfos[] = {
#define DIAG(Name, Sev, Text) {#Name, Severity::Sev, Text},
#include "diag/kinds.def"
#undef DIAG
};

const DiagInfo &diagInfo(DiagKind kind) { return kDiagInfos[static_cast<size_t>(kind)]; }

// A UTF-8 continuation byte starts no character.
static bool startsCharacter(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

std::string quotable(std::string_view text) {
  size_t kept = 0;
  for (size_t chars = 0; kept < text.size(); ++kept)
    if (startsCharacter(text[kept]) && chars++ == kQuotedChars)
      return std::string(text.substr(0, kept)) + "…";
  return std::string(text);
}

void DiagnosticEngine::append(const Diagnostic &diag) {
  if (diag.severity == Severity::Error)
    ++errors_;
  else if (diag.severity == Severity::Warning)
    ++warnings_;
  diags_.push_back(diag);
}

Diagnostic &DiagnosticEngine::add(DiagKind kind, Severity severity, Loc loc, uint32_t length,
                                  std::string message) {
  if (severity == Severity::Error)
    ++errors_;
  else if (severity == Severity::Warning)
    ++warnings_;
  diags_.push_back({kind, severity, loc, length ? length : 1, std::move(message), {}});
  // In a template written out, the line that wrote it is where to look too.
  for (Loc at = loc; sources_.file(at.file).written;) {
    at = sources_.file(at.file).origin;
    diags_.back().notes.push_back({DiagKind::WrittenOutHere, Severity::Note, at, 1,
                                   formatMessage(DiagKind::WrittenOutHere, {}), {}});
  }
  return diags_.back();
}

std::string DiagnosticEngine::formatMessage(DiagKind kind, fmt::format_args args) {
  const char *text = diagInfo(kind).text;
  try {
    return fmt::vformat(text, args);
  } catch (const fmt::format_error &) {
    return text;
  }
}

static const char *severityWord(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

static size_t charactersIn(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), startsCharacter));
}

// A long line shows the stretch of it around the caret, kShownChars
// characters from kShownBefore before it, each end cut marked `…`.
constexpr size_t kShownChars = 160;
constexpr size_t kShownBefore = 60;

// Where `count` characters before or after byte `at` of text begin.
static size_t charactersBack(std::string_view text, size_t at, size_t count) {
  while (at > 0 && count > 0)
    count -= startsCharacter(text[--at]);
  return at;
}
static size_t charactersOn(std::string_view text, size_t at, size_t count) {
  for (; at < text.size(); ++at)
    if (startsCharacter(text[at]) && count-- == 0)
      break;
  return at;
}

// ANSI's escapes, as clang colors its diagnostics.
namespace ansi {
constexpr const char *kBold = "\033[1m", *kReset = "\033[0m";
constexpr const char *kRed = "\033[1;31m", *kMagenta = "\033[1;35m", *kCyan = "\033[1;36m",
                     *kGreen = "\033[1;32m";
} // namespace ansi

// "path:line:col: error: message", in color or plain.
static std::string headLine(std::string_view place, Severity severity, std::string_view message,
                            bool color) {
  if (!color)
    return fmt::format("{}: {}: {}\n", place, severityWord(severity), message);
  const char *tint = severity == Severity::Error     ? ansi::kRed
                     : severity == Severity::Warning ? ansi::kMagenta
                                                     : ansi::kCyan;
  return fmt::format("{}{}: {}{}: {}{}{}\n", ansi::kBold, place, tint, severityWord(severity),
                     ansi::kBold, message, ansi::kReset);
}

static std::string renderOne(const SourceManager &sources, const Diagnostic &diag, bool color) {
  const SourceFile &file = sources.file(diag.loc.file);
  // An empty file, or the command line, has no line to show.
  if (file.text.empty())
    return headLine(file.path, diag.severity, diag.message, color);
  LineCol lc = sources.lineCol(diag.loc);
  std::string_view line = sources.lineText(diag.loc);
  // Columns count characters, not bytes, so the column an editor shows and
  // the caret stand under the character meant on a line with accents.
  size_t at = std::min<size_t>(lc.column - 1, line.size());
  size_t past = lc.column - 1 - at; // columns after the line's end
  size_t column = charactersIn(line.substr(0, at)) + past + 1;
  std::string text = headLine(fmt::format("{}:{}:{}", file.path, lc.line, column), diag.severity,
                              diag.message, color);
  size_t from = 0, to = line.size();
  if (charactersIn(line) > kShownChars) {
    from = charactersBack(line, at, kShownBefore);
    to = charactersOn(line, from, kShownChars);
  }
  std::string caret;
  if (from > 0) {
    text += "…";
    caret += ' ';
  }
  // A control byte shows as a space, so the line prints whole and the caret
  // stays under it.
  for (char c : line.substr(from, to - from))
    text += (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f ? ' ' : c;
  if (to < line.size())
    text += "…";
  text += '\n';
  for (char c : line.substr(from, at - from))
    if (startsCharacter(c))
      caret += c == '\t' ? '\t' : ' ';
  caret.append(past, ' ');
  std::string_view marked = line.substr(at, std::min<size_t>(diag.length, to - at));
  size_t marks = std::max<size_t>(1, charactersIn(marked));
  if (color)
    caret += ansi::kGreen;
  caret += '^';
  caret.append(marks - 1, '~');
  if (color)
    caret += ansi::kReset;
  text += caret;
  text += '\n';
  return text;
}

std::string DiagnosticEngine::render(const Diagnostic &diag, bool color) const {
  std::string text = renderOne(sources_, diag, color);
  for (const Diagnostic &note : diag.notes)
    text += renderOne(sources_, note, color);
  return text;
}

void DiagnosticEngine::warningsAsErrors() {
  for (Diagnostic &diag : diags_)
    if (diag.severity == Severity::Warning) {
      diag.severity = Severity::Error;
      diag.message += " [-Werror]";
      --warnings_;
      ++errors_;
    }
}

// Diagnostics print in source order, files in catalog order; one in a
// template written out stands at the line that wrote it.
static std::tuple<FileId, uint32_t, uint32_t> sourceOrder(const SourceManager &sources, Loc loc) {
  uint32_t inner = 0;
  while (sources.file(loc.file).written) {
    inner = loc.offset + 1;
    loc = sources.file(loc.file).origin;
  }
  return {loc.file, loc.offset, inner};
}

void DiagnosticEngine::print(std::FILE *out, size_t errorLimit, bool color) const {
  // Ties keep the order reported.
  std::vector<std::pair<std::tuple<FileId, uint32_t, uint32_t>, size_t>> ordered;
  for (size_t i = 0; i < diags_.size(); ++i)
    ordered.push_back({sourceOrder(sources_, diags_[i].loc), i});
  std::sort(ordered.begin(), ordered.end());
  size_t errors = 0;
  for (const auto &[key, index] : ordered) {
    if (diags_[index].severity == Severity::Error && errorLimit && errors++ == errorLimit) {
      std::fputs("fatal error: too many errors emitted, stopping now [--error-limit=]\n", out);
      return;
    }
    std::fputs(render(diags_[index], color).c_str(), out);
  }
}

} // namespace ledger

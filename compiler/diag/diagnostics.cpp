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

// A UTF-8 continuation byte starts no character.
static bool startsCharacter(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

static size_t charactersIn(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), startsCharacter));
}

static std::string renderOne(const SourceManager &sources, const Diagnostic &diag) {
  const SourceFile &file = sources.file(diag.loc.file);
  // An empty file, or the command line, has no line to show.
  if (file.text.empty())
    return fmt::format("{}: {}: {}\n", file.path, severityWord(diag.severity), diag.message);
  LineCol lc = sources.lineCol(diag.loc);
  std::string_view line = sources.lineText(diag.loc);
  // Columns count characters, not bytes, so the column an editor shows and
  // the caret stand under the character meant on a line with accents.
  std::string_view before = line.substr(0, std::min<size_t>(lc.column - 1, line.size()));
  size_t column = charactersIn(before) + (lc.column - 1 - before.size()) + 1;
  std::string text = fmt::format("{}:{}:{}: {}: {}\n", file.path, lc.line, column,
                                 severityWord(diag.severity), diag.message);
  // A control byte shows as a space, so the line prints whole and the caret
  // stays under it.
  for (char c : line)
    text += (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f ? ' ' : c;
  text += '\n';
  std::string caret;
  for (char c : before)
    if (startsCharacter(c))
      caret += c == '\t' ? '\t' : ' ';
  caret.append(column - 1 - caret.size(), ' ');
  std::string_view marked = lc.column - 1 < line.size() ? line.substr(lc.column - 1, diag.length)
                                                        : std::string_view();
  size_t marks = std::max<size_t>(1, charactersIn(marked));
  caret += '^';
  caret.append(marks - 1, '~');
  text += caret;
  text += '\n';
  return text;
}

std::string DiagnosticEngine::render(const Diagnostic &diag) const {
  std::string text = renderOne(sources_, diag);
  for (const Diagnostic &note : diag.notes)
    text += renderOne(sources_, note);
  return text;
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

void DiagnosticEngine::print(std::FILE *out) const {
  // Ties keep the order reported.
  std::vector<std::pair<std::tuple<FileId, uint32_t, uint32_t>, size_t>> ordered;
  for (size_t i = 0; i < diags_.size(); ++i)
    ordered.push_back({sourceOrder(sources_, diags_[i].loc), i});
  std::sort(ordered.begin(), ordered.end());
  for (const auto &[key, index] : ordered)
    std::fputs(render(diags_[index]).c_str(), out);
}

} // namespace ledger

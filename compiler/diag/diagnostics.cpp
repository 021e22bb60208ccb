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

static std::string renderOne(const SourceManager &sources, const Diagnostic &diag) {
  const SourceFile &file = sources.file(diag.loc.file);
  LineCol lc = sources.lineCol(diag.loc);
  std::string text = fmt::format("{}:{}:{}: {}: {}\n", file.path, lc.line, lc.column,
                                 severityWord(diag.severity), diag.message);
  std::string_view line = sources.lineText(diag.loc);
  // A control byte shows as a space, so the line prints whole and the caret
  // stays under it.
  for (char c : line)
    text += (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f ? ' ' : c;
  text += '\n';
  std::string caret(lc.column - 1, ' ');
  for (size_t i = 0; i < caret.size() && i < line.size(); ++i)
    if (line[i] == '\t')
      caret[i] = '\t';
  size_t room = line.size() >= lc.column ? line.size() - (lc.column - 1) : 1;
  size_t marks = std::max<size_t>(1, std::min<size_t>(diag.length, room));
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

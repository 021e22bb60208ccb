// Templates written out: a template's lines with each parameter read as the
// value a use gives, parsed as if written where the use stands.
#pragma once

#include "diag/diagnostics.h"
#include "parse/tree.h"

#include <string>
#include <vector>

namespace ledger {

struct TemplateUse {
  std::string templateName;
  std::vector<NodeId> parts; // the template's lines: its own (or its replacement's), then extends
  NodeId params = kNone;     // the line naming the parameters: a replacement's, or the template's'
  std::string header;        // "effect Burn": the lines are its clauses; empty: whole definitions
  std::vector<std::string> values;
  std::vector<NodeId> block; // a from row's own lines, the last parameter's value
  Loc origin;                // the use, where a count that doesn't fit is refused
  uint32_t package = 0;
};

// Writes the template out as a file of its own and parses it; returns its
// first node, or kNone when nothing could be written.
NodeId writeOutTemplate(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags,
                        const TemplateUse &use);

// The values a use writes: `Dot(2, Fire)`'s arguments split at top-level
// commas, or a from row's words (a dotted name or a parenthesised formula is
// one value).
std::vector<std::string> argumentValues(const SyntaxTree &tree, uint32_t file, uint32_t begin,
                                        uint32_t end);
std::vector<std::string> rowValues(const SyntaxTree &tree, uint32_t file, uint32_t begin,
                                   uint32_t end);

} // namespace ledger

// The parser: lexed files into one syntax tree, every line matched against
// the patterns of the forms its context allows (forms.def).
#pragma once

#include "diag/diagnostics.h"
#include "parse/tree.h"

namespace ledger {

// Parses every file of a catalog, or a play file, into `tree`. Template kinds
// are found across all files first, since `extend template` and `replace
// template` read their lines by the template's kind.
void parse(SyntaxTree &tree, DiagnosticEngine &diags);

// Parses the file added last to `tree` (a template written out), returning its
// first node.
NodeId parseAddedFile(SyntaxTree &tree, DiagnosticEngine &diags);

// A stable text dump of a tree, for tests.
std::string dumpTree(const SyntaxTree &tree);
std::string dumpExpr(const SyntaxTree &tree, ExprId expr);

} // namespace ledger

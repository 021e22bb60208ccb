// The front end in one call: load, lex, parse and check a catalog or a play
// file, keeping everything the later phases read.
#pragma once

#include "diag/diagnostics.h"
#include "lex/lex.h"
#include "parse/tree.h"
#include "sema/check.h"

#include <memory>
#include <string>

namespace ledger {

struct Frontend {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  SyntaxTree tree;
  Declarations decls;

  bool ok() const { return diags.errorCount() == 0; }
};

// Runs every phase that can run: a load that fails still checks what loaded.
std::unique_ptr<Frontend> runFrontend(const std::string &path);
// The same over text in memory, one file of the given role.
std::unique_ptr<Frontend> runFrontendOnText(const std::string &name, std::string text,
                                            FileRole role);

} // namespace ledger

// The lexer: one file's text into tokens grouped in lines, indentation as
// block structure (syntax.md, "Lines and blocks").
#pragma once

#include "diag/diagnostics.h"
#include "lex/token.h"

namespace ledger {

LexedFile lex(const SourceManager &sources, FileId file, FileRole role, DiagnosticEngine &diags);

} // namespace ledger

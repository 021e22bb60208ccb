// The reference's structural refusals: what a form may not say, or where it
// may not stand, read off the checked tree one form at a time.
#pragma once

#include "diag/diagnostics.h"
#include "parse/tree.h"
#include "sema/check.h"

namespace ledger {

void checkRefusals(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags);

} // namespace ledger

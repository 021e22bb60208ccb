// "two rules at one stage whose order could change the result must be told
// apart, by a stage or an order key on each, or the content is refused"
#pragma once

#include "diag/diagnostics.h"
#include "parse/tree.h"
#include "sema/check.h"

namespace ledger {

void checkStageOrder(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags);

} // namespace ledger

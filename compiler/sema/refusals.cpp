#include "sema/refusals.h"

namespace ledger {

void checkRefusals(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags) {
  (void)tree;
  (void)decls;
  (void)diags;
}

} // namespace ledger

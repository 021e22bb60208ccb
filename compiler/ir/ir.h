// The IR: a checked catalog lowered into the pack format's tables and bodies
// (runtime/pack_format.h), every name a dense index, every formula and step
// a flat array of records. Both engines start here: the reference engine
// evaluates the bodies, the code generator compiles them.
#pragma once

#include "diag/diagnostics.h"
#include "pack_format.h"
#include "parse/tree.h"
#include "sema/check.h"

#include <string>

namespace ledger::ir {

// Lowers a checked catalog. Forms the engines don't run yet are refused with
// NotRunYet at their line; the tables are whole only when nothing was.
pack::Tables lower(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags);

// The tables and bodies as text, one record a line, for `ledger ir` and its
// FileCheck tests.
std::string print(const pack::Tables &tables);

} // namespace ledger::ir

#include "sema/check.h"

#include "sema/checker.h"
#include "sema/refusals.h"
#include "sema/stage_order.h"
#include "sema/words.h"

#include <utility>

namespace ledger {

namespace sema {

// A file's lines come in any order: a from above its template writes out
// once the file is read, so a later file's extend finds what it wrote; one
// naming a template of a later file, once every file is.
void Checker::writePendingFroms() {
  for (NodeId n : std::exchange(pendingFroms_, {}))
    writeFrom(n);
}

Declarations Checker::run() {
  for (std::string_view tag : kBuiltinTags)
    decls_.byNamespace[size_t(Namespace::Tag)].emplace(
        std::string(tag), Decl{RefKind::Tag, kNone, 0, kNone, {}, kNone});
  // Templates are written out as their uses are declared; what they write
  // is declared there, so the files written aren't walked again here.
  size_t given = tree_.files.size();
  uint32_t firstCatalog = kNone;
  bool declaresSomething = false;
  for (uint32_t f = 0; f < given; ++f)
    if (tree_.roles[f] == FileRole::Catalog) {
      if (firstCatalog == kNone)
        firstCatalog = f;
      for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling) {
        declaresSomething = true;
        declare(n);
      }
      writePendingFroms();
    }
  // Most likely the wrong file: a pack of nothing has no rule to run.
  if (firstCatalog != kNone && !declaresSomething)
    diags_.report(DiagKind::CatalogDeclaresNothing, Loc{tree_.files[firstCatalog].file, 0}, 1);
  declaredAll_ = true;
  writePendingFroms();
  for (NodeId n : unresolvedAmendments_)
    refuseAmendment(n);
  checkUniqueAcrossCatalog();
  // Made from what the catalog holds once every file is read: a parent or
  // a template replaced later is the one a definition is made from.
  for (const auto &[n, kind] : pendingParents_)
    inherit(n, kind);
  for (uint32_t f = 0; f < tree_.files.size(); ++f)
    for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling)
      resolveTree(n, Scope{});
  for (Namespace ns : {Namespace::Effect, Namespace::Ability, Namespace::Archetype})
    for (const auto &[name, decl] : decls_.byNamespace[size_t(ns)])
      checkClashes(name, decl);
  return std::move(decls_);
}

} // namespace sema

Declarations check(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags) {
  Declarations decls = sema::Checker(tree, sources, diags).run();
  checkRefusals(tree, decls, diags);
  checkStageOrder(tree, decls, diags);
  return decls;
}

} // namespace ledger

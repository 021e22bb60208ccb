// The checker: names declared and resolved across a catalog's files, and the
// refusals the reference states for content.
#pragma once

#include "diag/diagnostics.h"
#include "parse/tree.h"

#include <map>
#include <string>
#include <vector>

namespace ledger {

// The namespaces of syntax.md: effects, abilities and archetypes each have
// their own; stats and pools share `values`; every other declared name is
// unique across the catalog.
enum class Namespace : uint8_t { Effect, Ability, Archetype, Value, Tag, Shared };

struct Decl {
  RefKind kind;  // what it is (Stat and Pool share the Value namespace)
  uint32_t file; // where it is declared
  uint32_t token;
  NodeId node;
  // A definition's lines, in catalog order: its own (or its replacement's),
  // then each extend's. Later phases read its clauses from these nodes.
  std::vector<NodeId> parts;
  NodeId replacedBy = kNone; // the replace that stands, if any
};

struct Declarations {
  std::map<std::string, Decl, std::less<>> byNamespace[6];

  const Decl *find(Namespace ns, std::string_view name) const {
    const auto &map = byNamespace[static_cast<size_t>(ns)];
    auto it = map.find(name);
    return it == map.end() ? nullptr : &it->second;
  }
};

// Checks a parsed catalog (and any play files in it), writing out the
// templates its definitions are made from as files of their own. Returns the
// declarations found; diagnostics say what was refused.
Declarations check(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags);

} // namespace ledger

// Random catalogs written from the forms both engines run (docs/unsupported.md
// lists the rest): values, tags, links, effects with their stacking,
// lifetimes, rules and modifiers, abilities with their clauses and steps,
// archetypes. Each catalog is written as an author would, every name it
// reads declared first, so most are accepted; the checker decides.
#pragma once

#include "catalog_text.h"

#include <cstdint>

namespace ledger::fuzz {

CatalogText generateCatalog(uint64_t seed);

// A repository catalog changed a little: lines dropped, numbers moved, a
// definition's clause copied to another, so its neighbours get run too.
CatalogText mutateCatalog(const CatalogText &original, uint64_t seed);

} // namespace ledger::fuzz

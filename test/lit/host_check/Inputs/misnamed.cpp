// A host naming content the catalog lacks, or has as another kind.
#include <ledger/world.h>

using ledger::pack::Id;

Id lookUp(const ledger::rt::Pack &pack) {
  const ledger::pack::Tables &t = pack.tables();
  Id blast = t.find(t.abilities, "FireBlast");
  Id burn = t.find(t.abilities, "Burn");
  Id mage = t.find(t.archetypes, "Mage");
  Id frost = t.find(t.tags, "Magic.Frost");
  Id nothing = t.find(t.values, "Mana");
  return blast + burn + mage + frost + nothing;
}

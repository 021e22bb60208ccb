// A host naming only what the catalog declares, each as its kind.
#include <ledger/ledger_c.h>
#include <ledger/world.h>

using ledger::pack::Id;

Id lookUp(const ledger::rt::Pack &pack, const ledger_pack *cPack) {
  const ledger::pack::Tables &t = pack.tables();
  return t.find(t.abilities, "Fireblast") + t.find(t.effects, "Burn") +
         t.find(t.values, "Health") + t.find(t.values, "Power") + t.find(t.links, "side") +
         t.find(t.tags, "Magic.Fire") + ledger_pack_find(cPack, LEDGER_ARCHETYPE, "Mage");
}

/* The same mistakes through the C ABI. */
#include <ledger/ledger_c.h>

ledger_id lookUp(const ledger_pack *pack) {
  return ledger_pack_find(pack, LEDGER_EFFECT, "Fireblast") +
         ledger_pack_find(pack, LEDGER_ABILITY, "Firebalst") +
         ledger_pack_find(pack, LEDGER_VALUE, "Health");
}

/* docs/host-api.md's C example, whole: the page's block is a run of lines of
 * this file (test/docs/examples.py checks so), which the suite compiles as
 * C11 and runs on test/docs/game.ledger's pack (host_api.test). */
#include <ledger/ledger_c.h>

#include <stdio.h>

static void show(const char *refusal, const char *text) { printf("refused: %s%s\n", refusal, text); }

int main(void) {
  ledger_id team, mage, side;
  ledger_handle red, blue, knight, foe;

  if (ledger_api_version() != LEDGER_C_API_VERSION) { /* refuse to run */ return 1; }
  char why[256];
  ledger_pack *pack = ledger_pack_load("game.so", 0, why, sizeof why);  /* NULL: why says */
  if (!pack) { printf("%s\n", why); return 1; }
  ledger_id bolt = ledger_pack_find(pack, LEDGER_ABILITY, "Bolt");     /* once, at load */
  team = ledger_pack_find(pack, LEDGER_ARCHETYPE, "Team");
  mage = ledger_pack_find(pack, LEDGER_ARCHETYPE, "Mage");
  side = ledger_pack_find(pack, LEDGER_LINK, "side");
  ledger_world *world = ledger_world_new(pack, /* seed */ 7);
  red = ledger_make(world, team, NULL, NULL, 0);
  blue = ledger_make(world, team, NULL, NULL, 0);
  knight = ledger_make(world, mage, &side, &red, 1);
  foe = ledger_make(world, mage, &side, &blue, 1);
  ledger_outcome out;
  for (int i = 0; i < 2; ++i)
    if (ledger_act(world, knight, bolt, &foe, 1, NULL, 0, LEDGER_NO_ID, &out) != LEDGER_None)
      show(ledger_refusal_name(out.refusal), out.text);  /* "OnCooldown" ... */
  ledger_advance_seconds(world, 16667);                     /* a frame at 60 Hz */
  printf("Health %lld\n", (long long)(ledger_value(world, foe, ledger_pack_find(pack, LEDGER_VALUE,
                                                                                "Health")) / 1000000));
  ledger_world_free(world);
  ledger_pack_free(pack);
  return 0;
}

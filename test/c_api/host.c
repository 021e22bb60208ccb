/* A host written in C driving the bench skirmish's pack through the C ABI
 * (ledger_c.h): orders, refusals by name, bad ids refused with nothing
 * changed, reads, time, the journal's callback, a save read back and a
 * damaged one refused; on a native pack (its machinery specialised) or a
 * portable one (the reference engine), alike. Exit status 0 when every
 * check holds. */
#include <ledger/ledger_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

#define ONE 1000000 /* 1 as a Ledger number */

/* What the journal's callback saw. */
typedef struct Seen {
  unsigned entries;
  unsigned changes;
  unsigned faults;
  uint64_t next; /* the index the next entry should have */
  int inOrder;
  ledger_id change;
  char firstChange[256];
} Seen;

static void onEntry(void *user, const ledger_entry *e) {
  Seen *seen = (Seen *)user;
  seen->inOrder &= e->index == seen->next;
  seen->next = e->index + 1;
  ++seen->entries;
  if (e->fault)
    ++seen->faults;
  if (e->event == seen->change && seen->changes++ == 0)
    snprintf(seen->firstChange, sizeof seen->firstChange, "%s", e->text);
}

int main(int argc, char **argv) {
  char why[512];
  ledger_pack *pack;
  ledger_world *world, *back;
  ledger_id team, red, blue, side, strike, bleed, shield, left, health, mana;
  ledger_id reflected, nothing = 999999;
  ledger_handle t1, t2, r, b, living[8];
  ledger_outcome out;
  ledger_lifetime twoSeconds = LEDGER_LIFETIME_NONE;
  ledger_given moreLeft;
  Seen seen;
  uint64_t count;
  int64_t most = 0;
  uint8_t *bytes = NULL;
  size_t size = 0;

  if (argc != 3 || (strcmp(argv[2], "native") != 0 && strcmp(argv[2], "portable") != 0)) {
    fprintf(stderr, "usage: %s PACK native|portable\n", argv[0]);
    return 2;
  }
  CHECK(ledger_api_version() == LEDGER_C_API_VERSION);

  CHECK(ledger_pack_load("no-such-pack.so", 0, why, sizeof why) == NULL);
  CHECK(why[0] != '\0');
  pack = ledger_pack_load(argv[1], 0, why, sizeof why);
  if (!pack) {
    fprintf(stderr, "the pack was refused: %s\n", why);
    return 1;
  }
  CHECK(ledger_pack_load(argv[1], ledger_pack_hash(pack) + 1, why, sizeof why) == NULL);

  team = ledger_pack_find(pack, LEDGER_ARCHETYPE, "Team");
  red = ledger_pack_find(pack, LEDGER_ARCHETYPE, "Red");
  blue = ledger_pack_find(pack, LEDGER_ARCHETYPE, "Blue");
  side = ledger_pack_find(pack, LEDGER_LINK, "side");
  strike = ledger_pack_find(pack, LEDGER_ABILITY, "Strike");
  bleed = ledger_pack_find(pack, LEDGER_EFFECT, "Bleed");
  shield = ledger_pack_find(pack, LEDGER_EFFECT, "Shield");
  left = ledger_pack_find_var(pack, shield, "left");
  health = ledger_pack_find(pack, LEDGER_VALUE, "Health");
  mana = ledger_pack_find(pack, LEDGER_VALUE, "Mana");
  reflected = ledger_pack_find(pack, LEDGER_TAG, "Reflected");
  CHECK(strike != LEDGER_NO_ID && bleed != LEDGER_NO_ID && left != LEDGER_NO_ID);
  CHECK(ledger_pack_find(pack, LEDGER_ABILITY, "Strik") == LEDGER_NO_ID);
  CHECK(strcmp(ledger_pack_name(pack, LEDGER_EFFECT, bleed), "Bleed") == 0);
  CHECK(strcmp(ledger_pack_name(pack, LEDGER_EFFECT, nothing), "") == 0);

  world = ledger_world_new(pack, 7);
  CHECK(world != NULL);
  CHECK(ledger_specialised(world) == (strcmp(argv[2], "native") == 0));
  memset(&seen, 0, sizeof seen);
  seen.inOrder = 1;
  seen.change = ledger_pack_find(pack, LEDGER_EVENT, "Change");
  ledger_on_journal(world, onEntry, &seen);

  t1 = ledger_make(world, team, NULL, NULL, 0);
  t2 = ledger_make(world, team, NULL, NULL, 0);
  r = ledger_make(world, red, &side, &t1, 1);
  b = ledger_make(world, blue, &side, &t2, 1);
  CHECK(r != 0 && b != 0);
  CHECK(ledger_alive(world, r) && ledger_link_of(world, r, side) == t1);
  CHECK(ledger_value(world, r, health) == 1500 * (int64_t)ONE);
  CHECK(ledger_maximum(world, b, health, &most) && most == 1400 * (int64_t)ONE);
  CHECK(ledger_living(world, living, 8) == 4);
  CHECK(ledger_count_of(world, red) == 1);

  /* A bad id or handle is refused and changes nothing. */
  count = ledger_journal_count(world);
  CHECK(ledger_make(world, nothing, NULL, NULL, 0) == 0);
  CHECK(ledger_act(world, r, nothing, &b, 1, NULL, 0, LEDGER_NO_ID, &out) != LEDGER_None);
  CHECK(ledger_act(world, 0, strike, &b, 1, NULL, 0, LEDGER_NO_ID, NULL) != LEDGER_None);
  CHECK(ledger_value(world, r, nothing) == 0 && ledger_value(world, 0, health) == 0);
  CHECK(ledger_deal(world, ONE, b, r, &nothing, 1, NULL) == LEDGER_Refused);
  CHECK(ledger_act(NULL, r, strike, &b, 1, NULL, 0, LEDGER_NO_ID, &out) == LEDGER_Refused);
  CHECK(ledger_journal_count(world) == count);

  /* An order, then the same again on its cooldown, refused by name. */
  CHECK(ledger_can_act(world, r, strike, NULL, 0, 0, NULL) == LEDGER_None);
  CHECK(ledger_act(world, r, strike, &b, 1, NULL, 0, LEDGER_NO_ID, &out) == LEDGER_None);
  CHECK(out.refusal == LEDGER_None);
  CHECK(ledger_value(world, r, mana) == 45 * (int64_t)ONE);
  CHECK(ledger_stacks_of(world, b, bleed, 0) == ONE);
  CHECK(ledger_remaining(world, b, bleed, LEDGER_SECONDS) == 4 * (int64_t)ONE);
  CHECK(ledger_act(world, r, strike, &b, 1, NULL, 0, LEDGER_NO_ID, &out) == LEDGER_OnCooldown);
  CHECK(strcmp(ledger_refusal_name(out.refusal), "OnCooldown") == 0);
  CHECK(ledger_act(world, r, strike, &r, 1, NULL, 0, LEDGER_NO_ID, &out) != LEDGER_None);

  /* An apply with a lifetime and a var; a deal carrying a tag. */
  twoSeconds.seconds = 2 * (int64_t)ONE;
  CHECK(ledger_apply(world, bleed, 2 * (int64_t)ONE, r, b, &twoSeconds, NULL, 0, &out) ==
        LEDGER_None);
  CHECK(ledger_remaining(world, r, bleed, LEDGER_SECONDS) == 2 * (int64_t)ONE);
  moreLeft.name = left;
  moreLeft.value = 500 * (int64_t)ONE;
  moreLeft.is_tag = 0;
  CHECK(ledger_apply(world, shield, ONE, r, r, NULL, &moreLeft, 1, NULL) == LEDGER_None);
  CHECK(ledger_deal(world, 3 * (int64_t)ONE, b, 0, &reflected, 1, NULL) == LEDGER_None);
  CHECK(ledger_set_pool(world, b, health, 900 * (int64_t)ONE, NULL) == LEDGER_None);
  CHECK(ledger_value(world, b, health) == 900 * (int64_t)ONE);

  /* Time, and the journal told as it goes. */
  CHECK(ledger_advance(world, 20));
  CHECK(ledger_now(world) == 20);
  CHECK(ledger_advance_seconds(world, ONE / 2));
  CHECK(ledger_now(world) == 30);
  CHECK(!ledger_advance(world, -1) && ledger_now(world) == 30);
  CHECK(!ledger_holds(world, r, bleed) || ledger_remaining(world, r, bleed, LEDGER_SECONDS) < 2 * (int64_t)ONE);
  CHECK(seen.entries == ledger_journal_count(world));
  CHECK(seen.inOrder && seen.changes >= 2 && seen.faults == 0);
  CHECK(strncmp(seen.firstChange, "0 Change of Red", 15) == 0); /* the Strike's Mana */

  /* A save read back runs on as the world it was; a damaged one is refused. */
  CHECK(ledger_save(world, &bytes, &size) && size > 0);
  back = ledger_load(pack, bytes, size, why, sizeof why);
  CHECK(back != NULL);
  if (back) {
    CHECK(ledger_journal_hash(back) == ledger_journal_hash(world));
    CHECK(ledger_value(back, b, health) == ledger_value(world, b, health));
    CHECK(ledger_advance(back, 40) && ledger_advance(world, 40));
    CHECK(ledger_journal_hash(back) == ledger_journal_hash(world));
    ledger_world_free(back);
  }
  bytes[size / 2] ^= 0x5a;
  CHECK(ledger_load(pack, bytes, size, why, sizeof why) == NULL);
  CHECK(why[0] != '\0');
  ledger_free(bytes);

  ledger_on_journal(world, NULL, NULL);
  ledger_set_journal_mode(world, LEDGER_JOURNAL_HASH_ONLY);
  CHECK(ledger_destroy(world, b, NULL) == LEDGER_None);
  CHECK(ledger_destroy(world, b, &out) == LEDGER_Gone);
  CHECK(!ledger_alive(world, b));

  ledger_world_free(world);
  ledger_pack_free(pack);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("the C ABI: every check holds\n");
  return failures ? 1 : 0;
}

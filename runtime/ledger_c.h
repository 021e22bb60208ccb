/* Ledger's runtime as a plain C ABI: a pack, the worlds it runs, every order,
 * read, advance, save and load of the C++ API (world.h), and the journal as
 * a callback. For a game written in C, or any language that calls C (C#,
 * Rust, Zig, a scripting engine's bindings), and for a host that wants an
 * ABI that doesn't move with the compiler it was built with.
 *
 * Handles are opaque; every id and handle passed in is checked, and a bad one
 * is refused by name (a ledger_refusal) and changes nothing. A host checks
 * the runtime it loaded is the one it was compiled against:
 *
 *     if (ledger_api_version() != LEDGER_C_API_VERSION) ...refuse to run...
 *
 * Numbers are Ledger's: six-place fixed point in an int64_t (1.5 is
 * 1500000). docs/host-api.md, "The C ABI", says more. */
#ifndef LEDGER_C_H
#define LEDGER_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define LEDGER_C_EXPORT __declspec(dllexport)
#else
#define LEDGER_C_EXPORT __attribute__((visibility("default")))
#endif

/* Raised whenever a declaration below changes in a way a program compiled
 * against the old one can't call. */
#define LEDGER_C_API_VERSION 1u
LEDGER_C_EXPORT uint32_t ledger_api_version(void);

typedef struct ledger_pack ledger_pack;
typedef struct ledger_world ledger_world;

/* An actor or an instance: 0 is none. */
typedef int64_t ledger_handle;
/* A definition's index in its kind's list (an ability, an effect, a pool...). */
typedef uint32_t ledger_id;
#define LEDGER_NO_ID UINT32_MAX

/* Why an order was refused or a fault made, by the reference's own names
 * (ledger_refusal_name gives them as text). LEDGER_None: taken. */
typedef enum ledger_refusal {
  LEDGER_None,
  LEDGER_NotGranted,
  LEDGER_Blocked,
  LEDGER_OnCooldown,
  LEDGER_Requirement,
  LEDGER_CannotAfford,
  LEDGER_NoTarget,
  LEDGER_BadTarget,
  LEDGER_Countered,
  LEDGER_Prevented,
  LEDGER_AlreadyHas,
  LEDGER_NothingToApply,
  LEDGER_Gone,
  LEDGER_ChainBudget,
  LEDGER_MidMoment,
  LEDGER_BadProperty,
  LEDGER_OutOfReach,
  LEDGER_Busy,
  LEDGER_NotHeld,
  LEDGER_IdTaken,
  LEDGER_NotFlying,
  LEDGER_NoPool,
  LEDGER_Refused,
  LEDGER_REFUSAL_COUNT
} ledger_refusal;
LEDGER_C_EXPORT const char *ledger_refusal_name(ledger_refusal refusal);

/* ---- packs ------------------------------------------------------------- */

/* A pack `ledger build` made. catalog_hash 0 takes the pack of any catalog;
 * else it must be the one a typed header gave the host (kCatalogHash). NULL,
 * with why written to `why` (at most why_size bytes, NUL ended), if it is
 * refused. */
LEDGER_C_EXPORT ledger_pack *ledger_pack_load(const char *path, uint64_t catalog_hash, char *why,
                                              size_t why_size);
LEDGER_C_EXPORT void ledger_pack_free(ledger_pack *pack);
LEDGER_C_EXPORT uint64_t ledger_pack_hash(const ledger_pack *pack);

/* The kinds of definition a host names by id. */
typedef enum ledger_kind {
  LEDGER_ARCHETYPE,
  LEDGER_ABILITY,
  LEDGER_EFFECT,
  LEDGER_EVENT,
  LEDGER_VALUE, /* a stat or a pool */
  LEDGER_LINK,
  LEDGER_TAG,
  LEDGER_PROP
} ledger_kind;
/* A definition's id by its name, or LEDGER_NO_ID: looked up once, as the
 * pack loads. */
LEDGER_C_EXPORT ledger_id ledger_pack_find(const ledger_pack *pack, ledger_kind kind,
                                           const char *name);
/* An effect's var by its name, as an apply gives it, or LEDGER_NO_ID. */
LEDGER_C_EXPORT ledger_id ledger_pack_find_var(const ledger_pack *pack, ledger_id effect,
                                               const char *name);
/* A definition's name, "" for an id its kind lacks. */
LEDGER_C_EXPORT const char *ledger_pack_name(const ledger_pack *pack, ledger_kind kind,
                                             ledger_id id);

/* ---- worlds ------------------------------------------------------------ */

/* A world of a pack, which must outlive it; seed drives its randomness. */
LEDGER_C_EXPORT ledger_world *ledger_world_new(const ledger_pack *pack, uint64_t seed);
LEDGER_C_EXPORT ledger_world *ledger_world_copy(const ledger_world *world);
LEDGER_C_EXPORT void ledger_world_free(ledger_world *world);

/* What an order answers: taken (refusal LEDGER_None) or why not. text is a
 * requirement's or a target clause's own words, valid until the world's next
 * call. */
typedef struct ledger_outcome {
  ledger_refusal refusal;
  const char *text;
  int has_numbers; /* need and have say what was short */
  int64_t need, have;
  ledger_handle payer; /* CannotAfford: whose pool */
  ledger_id pool;      /* and which */
  uint32_t element;    /* a list's element refused, 1 the first */
} ledger_outcome;

/* What an order or an apply gives: a prop (an order's, its id from
 * ledger_pack_find with LEDGER_PROP; LEDGER_NO_ID for X) or an effect's var
 * (an apply's, from ledger_pack_find_var), a number or a tag's id. */
typedef struct ledger_given {
  ledger_id name;
  int64_t value;
  int is_tag;
} ledger_given;

/* An apply's lifetime: a time in seconds, a count of its holder's turns, a
 * count of events, each a number (2 turns: 2000000), -1 each where it gives
 * none (the effect's own lasts then); what a count counts, an event or a
 * pool's change by its tag, LEDGER_NO_ID for the effect's own. */
typedef struct ledger_lifetime {
  int64_t seconds, turns, count;
  ledger_id count_event, count_tag;
} ledger_lifetime;
#define LEDGER_LIFETIME_NONE {-1, -1, -1, LEDGER_NO_ID, LEDGER_NO_ID}

/* An actor of an archetype, its links given as (link, actor) pairs; 0 if it
 * can't be made (an archetype the pack lacks, a link to an actor gone). */
LEDGER_C_EXPORT ledger_handle ledger_make(ledger_world *world, ledger_id archetype,
                                          const ledger_id *links, const ledger_handle *to,
                                          size_t link_count);
/* Each order returns its refusal and, where `out` isn't NULL, its outcome
 * whole. using_effect names the grant (LEDGER_NO_ID: any). */
LEDGER_C_EXPORT ledger_refusal ledger_act(ledger_world *world, ledger_handle actor,
                                          ledger_id ability, const ledger_handle *targets,
                                          size_t target_count, const ledger_given *given,
                                          size_t given_count, ledger_id using_effect,
                                          ledger_outcome *out);
/* Whether the order would be taken; targets_named 0: its target clause isn't
 * read (asked before the player aims). */
LEDGER_C_EXPORT ledger_refusal ledger_can_act(ledger_world *world, ledger_handle actor,
                                              ledger_id ability, const ledger_handle *targets,
                                              size_t target_count, int targets_named,
                                              ledger_outcome *out);
LEDGER_C_EXPORT ledger_refusal ledger_apply(ledger_world *world, ledger_id effect,
                                            int64_t stacks, ledger_handle to, ledger_handle from,
                                            const ledger_lifetime *lifetime,
                                            const ledger_given *vars, size_t var_count,
                                            ledger_outcome *out);
/* The whole effect (stacks LEDGER_WHOLE), or that many stacks, oldest first. */
#define LEDGER_WHOLE INT64_MIN
LEDGER_C_EXPORT ledger_refusal ledger_remove(ledger_world *world, ledger_id effect,
                                             ledger_handle from, int64_t stacks,
                                             ledger_outcome *out);
LEDGER_C_EXPORT ledger_refusal ledger_raise(ledger_world *world, ledger_id event,
                                            ledger_handle of, ledger_handle by,
                                            ledger_outcome *out);
/* A change carrying each tag named (its parents too). */
LEDGER_C_EXPORT ledger_refusal ledger_deal(ledger_world *world, int64_t amount, ledger_handle to,
                                           ledger_handle from, const ledger_id *tags,
                                           size_t tag_count, ledger_outcome *out);
LEDGER_C_EXPORT ledger_refusal ledger_set_pool(ledger_world *world, ledger_handle actor,
                                               ledger_id pool, int64_t amount,
                                               ledger_outcome *out);
LEDGER_C_EXPORT ledger_refusal ledger_destroy(ledger_world *world, ledger_handle actor,
                                              ledger_outcome *out);
/* actor 0: a global link. */
LEDGER_C_EXPORT ledger_refusal ledger_link(ledger_world *world, ledger_handle actor,
                                           ledger_id link, ledger_handle to, ledger_outcome *out);

/* ---- time -------------------------------------------------------------- */

/* Moves the world on by whole ticks; 0, moving nothing, for fewer than none
 * or past the last time the world holds. */
LEDGER_C_EXPORT int ledger_advance(ledger_world *world, int64_t ticks);
/* By seconds (millionths): every whole tick passed runs, the rest waits for
 * the next call. */
LEDGER_C_EXPORT int ledger_advance_seconds(ledger_world *world, int64_t seconds);
LEDGER_C_EXPORT int64_t ledger_now(const ledger_world *world); /* in ticks */
/* A restore replacing `replaced`: what the content declares kept (a pool
 * saying kept) carries over from it, for each actor in both. */
LEDGER_C_EXPORT void ledger_keep_from(ledger_world *world, const ledger_world *replaced);

/* ---- reads ------------------------------------------------------------- */

LEDGER_C_EXPORT int ledger_alive(const ledger_world *world, ledger_handle actor);
LEDGER_C_EXPORT int ledger_exists(const ledger_world *world, ledger_handle actor);
/* The living actors, in the world's order: writes at most capacity of them
 * and returns how many there are. */
LEDGER_C_EXPORT size_t ledger_living(const ledger_world *world, ledger_handle *actors,
                                     size_t capacity);
/* A stat's or a pool's value now; 0 for an actor or value none has. */
LEDGER_C_EXPORT int64_t ledger_value(ledger_world *world, ledger_handle actor, ledger_id value);
/* A pool's maximum or a stat's max: 1 with it in *most, 0 where there is none. */
LEDGER_C_EXPORT int ledger_maximum(ledger_world *world, ledger_handle actor, ledger_id value,
                                   int64_t *most);
LEDGER_C_EXPORT ledger_handle ledger_link_of(const ledger_world *world, ledger_handle actor,
                                             ledger_id link);
LEDGER_C_EXPORT int ledger_has_pool(const ledger_world *world, ledger_handle actor,
                                    ledger_id pool);
LEDGER_C_EXPORT int ledger_holds(const ledger_world *world, ledger_handle actor,
                                 ledger_id effect);
LEDGER_C_EXPORT int ledger_carries(ledger_world *world, ledger_handle actor, ledger_id tag);
/* Stacks of an effect held, from one source (0: any). */
LEDGER_C_EXPORT int64_t ledger_stacks_of(const ledger_world *world, ledger_handle actor,
                                         ledger_id effect, ledger_handle from);
/* What is left of the newest instance of an effect: seconds (millionths),
 * or whole turns or counts of the event it counts; -1 if it never ends. */
typedef enum ledger_measure { LEDGER_SECONDS = 1, LEDGER_TURNS, LEDGER_COUNT } ledger_measure;
LEDGER_C_EXPORT int64_t ledger_remaining(const ledger_world *world, ledger_handle actor,
                                         ledger_id effect, ledger_measure measure);
/* How many actors of an archetype are in play. */
LEDGER_C_EXPORT int64_t ledger_count_of(const ledger_world *world, ledger_id archetype);
/* Whether the pack's own machinery runs the world (its catalog specialised),
 * and how many events the generic kernel ran where it doesn't. */
LEDGER_C_EXPORT int ledger_specialised(const ledger_world *world);
LEDGER_C_EXPORT uint64_t ledger_generic_events(const ledger_world *world);

/* ---- saves ------------------------------------------------------------- */

/* The world between orders as bytes, in a buffer the host frees with
 * ledger_free; 0 if memory ran out. */
LEDGER_C_EXPORT int ledger_save(const ledger_world *world, uint8_t **bytes, size_t *size);
LEDGER_C_EXPORT void ledger_free(void *bytes);
/* A world read back from a save of the same pack; NULL, with why, if it is
 * another pack's or damaged. */
LEDGER_C_EXPORT ledger_world *ledger_load(const ledger_pack *pack, const uint8_t *bytes,
                                          size_t size, char *why, size_t why_size);

/* ---- the journal ------------------------------------------------------- */

typedef enum ledger_journal_mode {
  LEDGER_JOURNAL_KEEP,      /* every entry kept, for reading */
  LEDGER_JOURNAL_HASH_ONLY, /* counted and hashed, none kept (lockstep, replays) */
  LEDGER_JOURNAL_OFF        /* counted only: a shipping game reading none */
} ledger_journal_mode;
LEDGER_C_EXPORT void ledger_set_journal_mode(ledger_world *world, ledger_journal_mode mode);
LEDGER_C_EXPORT uint64_t ledger_journal_count(const ledger_world *world);
LEDGER_C_EXPORT uint64_t ledger_journal_hash(const ledger_world *world);

/* One entry: an event as it landed or was stopped, or a fault. Its pointers
 * are valid during the callback only. */
typedef struct ledger_entry {
  uint64_t index; /* its place in the journal, from 0 */
  int64_t tick;
  ledger_id event; /* the event's kind (LEDGER_EVENT), LEDGER_NO_ID for a fault */
  ledger_handle subject, source, credit;
  int64_t amount, landed;
  ledger_id effect, ability, pool; /* an Apply's or a Remove's effect, an Activate's ability, a change's pool */
  int prevented;
  const uint64_t *tags; /* tag_words words, bit i set for tag i it carries */
  uint32_t tag_words;
  const char *fault; /* a fault's words, else NULL */
  const char *text;  /* the entry as a line, names and numbers as a journal's text */
} ledger_entry;
typedef void (*ledger_journal_fn)(void *user, const ledger_entry *entry);
/* Calls fn with each entry the world journals from now on, in order, once
 * each call that journaled them returns (never from inside a rule, so fn may
 * read the world, though not order it); NULL ends it. The world keeps its
 * entries while a callback is set and lets each go once told. */
LEDGER_C_EXPORT void ledger_on_journal(ledger_world *world, ledger_journal_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#endif

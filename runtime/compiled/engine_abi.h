/* The compiled engine's C interface: what a specialised pack exports (its
 * rules machinery, compiled for its catalog) and what the runtime hands it
 * (memory, the journal's keeping). Plain C: the runtime loads a pack as it
 * would any library, and the pack needs no C++ runtime of the host's.
 *
 * A world of a specialised pack is the pack's: it lays out its storage, and
 * answers every order and read of the host's API (runtime/world.h) through
 * the functions below; the runtime keeps the journal's entries, a save's
 * envelope and the host's API around it. */
#ifndef LEDGER_ENGINE_ABI_H
#define LEDGER_ENGINE_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever a function below changes its meaning or its place. */
#define LEDGER_ENGINE_ABI_VERSION 2u

typedef int64_t LedgerHandle; /* an actor: (generation << 32) | (index + 1); 0 none */

/* What the runtime gives a world: its memory (the host's allocator), and
 * where a journal kept whole puts its entries. */
typedef struct LedgerHost {
  void *context;
  /* Grows, shrinks or (to 0 bytes) frees a block; null on failure. */
  void *(*reallocate)(void *context, void *block, uint64_t bytes);
  /* An entry of a journal kept whole: its tags (tagWords words, or null) and
   * a fault's words (or null). */
  void (*record)(void *context, const void *entry, const uint64_t *tags, const char *note,
                 uint32_t noteLength);
  /* The low end of the stack the calling thread runs on, set before each
   * call into the world (runtime/thread_stack.h); 0 checks nothing. */
  uintptr_t stackLow;
} LedgerHost;

/* An entry as the journal keeps it: runtime/journal.h's JournalEntry. */
typedef struct LedgerJournalEntry {
  int64_t tick;
  int64_t amount, landed;
  LedgerHandle subject, source, credit;
  uint32_t event, effect, ability, pool;
  uint32_t tagsAt, note;
  uint8_t prevented, fault;
} LedgerJournalEntry;

/* An order's answer: runtime/world.h's Outcome, its words in the world's
 * own buffer until the next order. */
typedef struct LedgerOutcome {
  uint32_t refusal; /* runtime/refusals.h */
  uint32_t element;
  int64_t need, have;
  LedgerHandle payer;
  uint32_t pool;
  uint8_t hasNumbers;
  const char *text;
  uint32_t textLength;
} LedgerOutcome;

/* What an order or an apply gives: a property or a var, a number or a tag's
 * id + 1. */
typedef struct LedgerGiven {
  uint32_t name;
  uint8_t tag;
  int64_t value;
} LedgerGiven;

typedef struct LedgerLink {
  uint32_t link;
  LedgerHandle to;
} LedgerLink;

/* What an apply installs: runtime/host_types.h's Lifetime. */
typedef struct LedgerLifetime {
  int64_t time, turns, count;
  uint32_t countEvent, countTag;
} LedgerLifetime;

/* The coverage instrument's counts, by id, as runtime/host_types.h's
 * Coverage holds them: rules (heard, fired, changed), effects (applied),
 * abilities (used, refused), archetypes (made). */
enum {
  LEDGER_COVER_HEARD,
  LEDGER_COVER_FIRED,
  LEDGER_COVER_CHANGED,
  LEDGER_COVER_APPLIED,
  LEDGER_COVER_USED,
  LEDGER_COVER_REFUSED,
  LEDGER_COVER_MADE,
  LEDGER_COVER_KINDS
};

typedef struct LedgerWorld LedgerWorld;

typedef struct LedgerEngine {
  uint32_t abiVersion; /* LEDGER_ENGINE_ABI_VERSION */

  LedgerWorld *(*create)(const LedgerHost *host, uint64_t seed);
  /* A copy of a world, answering to its own host. */
  LedgerWorld *(*copy)(const LedgerWorld *world, const LedgerHost *host);
  void (*release)(LedgerWorld *world);

  /* ---- orders ---- */
  LedgerHandle (*make)(LedgerWorld *w, uint32_t archetype, const LedgerLink *links, uint32_t count);
  void (*act)(LedgerWorld *w, LedgerHandle actor, uint32_t ability, const LedgerHandle *targets,
              uint32_t targetCount, const LedgerGiven *given, uint32_t givenCount,
              uint32_t usingEffect, LedgerOutcome *out);
  void (*canAct)(LedgerWorld *w, LedgerHandle actor, uint32_t ability, const LedgerHandle *targets,
                 uint32_t targetCount, uint8_t targetsNamed, LedgerOutcome *out);
  void (*apply)(LedgerWorld *w, uint32_t effect, int64_t stacks, LedgerHandle to,
                LedgerHandle from, const LedgerLifetime *life, const LedgerGiven *vars,
                uint32_t varCount, LedgerOutcome *out);
  void (*remove)(LedgerWorld *w, uint32_t effect, LedgerHandle from, int64_t stacks,
                 LedgerOutcome *out);
  void (*raise)(LedgerWorld *w, uint32_t event, LedgerHandle of, LedgerHandle by,
                LedgerOutcome *out);
  void (*deal)(LedgerWorld *w, int64_t amount, LedgerHandle to, LedgerHandle from,
               const uint32_t *types, uint32_t typeCount, LedgerOutcome *out);
  void (*setPool)(LedgerWorld *w, LedgerHandle actor, uint32_t pool, int64_t amount,
                  LedgerOutcome *out);
  void (*destroy)(LedgerWorld *w, LedgerHandle actor, LedgerOutcome *out);
  void (*link)(LedgerWorld *w, LedgerHandle actor, uint32_t link, LedgerHandle to,
               LedgerOutcome *out);
  void (*advance)(LedgerWorld *w, int64_t ticks);
  void (*keepFrom)(LedgerWorld *w, const LedgerWorld *replaced);

  /* ---- reads ---- */
  uint8_t (*alive)(const LedgerWorld *w, LedgerHandle h);
  uint8_t (*exists)(const LedgerWorld *w, LedgerHandle h);
  /* Writes the living actors, in their slots' order, up to `room`;
   * answers how many there are. */
  uint64_t (*living)(const LedgerWorld *w, LedgerHandle *out, uint64_t room);
  int64_t (*value)(LedgerWorld *w, LedgerHandle actor, uint32_t value);
  uint8_t (*maximum)(LedgerWorld *w, LedgerHandle actor, uint32_t value, int64_t *out);
  LedgerHandle (*linkOf)(const LedgerWorld *w, LedgerHandle actor, uint32_t link);
  uint8_t (*hasPool)(const LedgerWorld *w, LedgerHandle actor, uint32_t pool);
  uint8_t (*holds)(const LedgerWorld *w, LedgerHandle actor, uint32_t effect);
  uint8_t (*carries)(LedgerWorld *w, LedgerHandle actor, uint32_t tag);
  int64_t (*stacksOf)(const LedgerWorld *w, LedgerHandle actor, uint32_t effect,
                      LedgerHandle from);
  int64_t (*remainingOf)(const LedgerWorld *w, LedgerHandle actor, uint32_t effect,
                         uint32_t unit, uint32_t event, uint32_t tag);
  int64_t (*now)(const LedgerWorld *w);
  int64_t (*countOf)(const LedgerWorld *w, uint32_t archetype);
  /* An actor's archetype (UINT32_MAX for none, or no such actor). */
  uint32_t (*archetypeOf)(const LedgerWorld *w, LedgerHandle actor);

  /* ---- the journal, coverage, saves ---- */
  void (*setJournalMode)(LedgerWorld *w, uint32_t mode); /* 0 keep, 1 hash, 2 off */
  uint64_t (*journalCount)(const LedgerWorld *w);
  uint64_t (*journalHash)(const LedgerWorld *w);
  /* Turns the instrument on, counting on from the counts given (each kind's
   * array as long as its table, or null for zeros). */
  void (*countCoverage)(LedgerWorld *w, const uint64_t *const *counted);
  /* The instrument's counts of one kind, or null while it is off. */
  const uint64_t *(*coverage)(const LedgerWorld *w, uint32_t kind);
  /* The world between orders as bytes, through write; and a world read back
   * from them, null with why (a string the pack holds) where they are no
   * world of this pack's or are damaged. */
  void (*save)(const LedgerWorld *w, void *context,
               void (*write)(void *context, const void *bytes, uint64_t size));
  LedgerWorld *(*load)(const LedgerHost *host, const void *bytes, uint64_t size,
                       const char **why);
} LedgerEngine;

#ifdef __cplusplus
}
#endif

#endif

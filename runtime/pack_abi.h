/* The pack's C interface: what a compiled pack (.so) exports and what the
 * functions in it call back into. Plain C, so a pack needs no C++ runtime and
 * a host in any language can load one.
 *
 * A pack is tables plus bodies. The tables (values, tags, effects, abilities,
 * archetypes, the static shape of every step, query and read) are one blob of
 * constant data in the pack format (pack_format.h); the bodies are functions.
 * A body reaches world state through the kernel's functions below, and the
 * frame it runs in: its locals, its instance's vars and the event in hand,
 * whose head it reads in place. */
#ifndef LEDGER_PACK_ABI_H
#define LEDGER_PACK_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever the descriptor's layout or the meaning of a call changes.
 * 3: a query may rank by keys, a remove cooldown take its ability as an
 * operand and a step set an instance's var by name, which a kernel reading
 * ABI 2 would misread. 4: a convert's or an add's type may be the tag a var
 * holds, a filter's targeting reads every target its activation named, and an
 * ability keeps its tags as listed. 5: time counted in units a tick and a
 * second hold. 6: a pool's period may be a body. 7: a pack may carry the
 * compiled engine's machinery (engine), or say why it doesn't. */
#define LEDGER_PACK_ABI_VERSION 8u
/* The one symbol a compiled pack exports. */
#define LEDGER_PACK_SYMBOL "ledger_pack_v1"

/* Fixed slots at the start of a frame's locals: the roots a body reads, then
 * the names its steps give (let, as, for each). Actors, instances, tags and
 * abilities are 64-bit handles (0: none); numbers are millionths. */
enum {
  LEDGER_SLOT_HOLDER = 0, /* the effect's holder, the ability's caster */
  LEDGER_SLOT_SOURCE = 1, /* who applied the instance, who caused the event */
  LEDGER_SLOT_CREDIT = 2, /* whose doing it counts as */
  LEDGER_SLOT_TARGET = 3, /* the ability's target, the event's subject */
  LEDGER_SLOT_IT = 4,     /* a query's or a held(...)'s candidate */
  LEDGER_SLOT_SELF = 5,   /* the instance running the rule */
  LEDGER_SLOT_FIRST_LOCAL = 6
};

/* What a steps body returns: go on, or stop the rule (remove self took off the
 * instance running it, or the world ended the chain). */
enum { LEDGER_GO = 0, LEDGER_STOP = 1 };

/* Numeric faults a body reports; the value it goes on with is 0. */
enum {
  LEDGER_FAULT_OVERFLOW = 1,
  LEDGER_FAULT_DIVIDE_BY_ZERO = 2,
  LEDGER_FAULT_EVEN_ROOT_OF_NEGATIVE = 3,
  LEDGER_FAULT_BAD_POWER = 4
};

/* pow and root, the two operations a body calls rather than inlines. */
enum { LEDGER_MATH_POW = 1, LEDGER_MATH_ROOT = 2 };

typedef struct LedgerFrame LedgerFrame;

typedef struct LedgerKernelApi {
  /* A word the world answers (a stat, a pool, a link, has, stacks, an event's
   * field, a curve): the read's static shape is reads[readId] in the tables,
   * its operands args[0..n). */
  int64_t (*read)(LedgerFrame *frame, uint32_t readId, const int64_t *args);
  /* A step that changes the world (deal, apply, raise, a before rule's
   * change): steps[stepId] in the tables; returns LEDGER_GO or LEDGER_STOP. */
  int32_t (*step)(LedgerFrame *frame, uint32_t stepId, const int64_t *args);
  /* Opens the list a query (queries[queryId]) or a held(...) finds, returning
   * how many it holds; item(i) reads one; close drops the innermost list. */
  int64_t (*listOpen)(LedgerFrame *frame, uint32_t queryId, const int64_t *args);
  int64_t (*listItem)(LedgerFrame *frame, int64_t index);
  void (*listClose)(LedgerFrame *frame);
  int64_t (*math)(LedgerFrame *frame, uint32_t op, int64_t a, int64_t b);
  void (*fault)(LedgerFrame *frame, uint32_t code);
  /* How many of a repeat's `times` runs its chain's budget allows: all of
   * them, or fewer once the chain has run LEDGER_REPEAT_BUDGET, the world
   * then journaling a ChainBudget fault once. */
  int64_t (*repeat)(LedgerFrame *frame, int64_t times);
} LedgerKernelApi;

/* The runs of repeated steps a chain may make in all, each repeat's counted:
 * a repeat of 1,000 in another runs 1,001,000 times; three would run 1e9. */
#define LEDGER_REPEAT_BUDGET 2000000

/* The head of the event in hand, as the world keeps it: what rules' filters
 * read of every event, read in place rather than asked for. */
#define LEDGER_EVENT_TAG_WORDS 8
typedef struct LedgerEventHead {
  int64_t subject, source, credit; /* actor handles, 0 none */
  uint32_t kind;                   /* its event id */
  uint8_t prevented;               /* 1 once a before rule prevented it */
  uint8_t pad[3];
  uint64_t tags[LEDGER_EVENT_TAG_WORDS]; /* tag t is bit t % 64 of word t / 64 */
} LedgerEventHead;

struct LedgerFrame {
  const LedgerKernelApi *api;
  void *kernel;     /* the world's own; a pack never reads it */
  int64_t *locals;  /* LEDGER_SLOT_* then the body's names */
  int64_t *vars;    /* the running instance's vars (self.VAR), or null */
  const LedgerEventHead *event; /* the event in hand, or null */
};

typedef int64_t (*LedgerFormulaFn)(LedgerFrame *frame);
typedef int32_t (*LedgerStepsFn)(LedgerFrame *frame);

struct LedgerEngine; /* compiled/engine_abi.h */

typedef struct LedgerPackDescriptor {
  uint32_t abiVersion;      /* LEDGER_PACK_ABI_VERSION */
  uint32_t bodyCount;       /* entries in bodies */
  uint64_t catalogHash;     /* FNV-1a of the tables blob */
  const uint8_t *tables;    /* the pack format's blob */
  uint64_t tablesSize;
  /* One function per body, by body id: a formula's returns its value (cast
   * it to LedgerFormulaFn), a steps body's its LEDGER_GO or LEDGER_STOP.
   * None in a pack carrying its machinery: its bodies call the machinery. */
  void *const *bodies;
  /* The compiled engine's machinery specialised to the catalog, or null: the
   * catalog runs on the generic kernel with the bodies above. */
  const struct LedgerEngine *engine;
  /* Why it runs there: the forms the machinery doesn't specialise yet, one a
   * line (empty where engine is set). */
  const char *genericBecause;
} LedgerPackDescriptor;

typedef const LedgerPackDescriptor *(*LedgerPackEntry)(void);

#ifdef __cplusplus
}
#endif

#endif

// The C ABI (ledger_c.h) over the C++ API: each call checks what it is given,
// converts, and calls world.h. No exception crosses it.
#include "ledger_c.h"

#include "number.h"
#include "world.h"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace ledger;
using namespace ledger::rt;

// Refusals by the reference's names, in the order the C++ API numbers them.
#define X(Name) static_assert(int(LEDGER_##Name) == int(Refusal::Name));
LEDGER_REFUSALS(X)
#undef X
static_assert(int(LEDGER_REFUSAL_COUNT) == int(Refusal::Count));
static_assert(int(LEDGER_SECONDS) == int(DurationUnit::Time) &&
              int(LEDGER_TURNS) == int(DurationUnit::Turns) &&
              int(LEDGER_COUNT) == int(DurationUnit::Count));
static_assert(LEDGER_NO_ID == pack::kNoId);

struct ledger_pack {
  std::unique_ptr<Pack> pack;
};

struct ledger_world {
  World world;
  Outcome last; // the last order's, whose text an outcome points at
  ledger_journal_fn onJournal = nullptr;
  void *user = nullptr;
};

namespace {

void tell(char *why, size_t whySize, const std::string &text) {
  if (!why || whySize == 0)
    return;
  size_t n = std::min(text.size(), whySize - 1);
  std::memcpy(why, text.data(), n);
  why[n] = '\0';
}

// Runs a call, its exceptions (memory run out) turned into `failed`.
template <typename R, typename F> R guarded(R failed, F f) {
  try {
    return f();
  } catch (...) {
    return failed;
  }
}

// The entries journaled since the host was last told, given to its callback
// and let go (the count and the hash run on).
void tellJournal(ledger_world *w) {
  if (!w->onJournal)
    return;
  World &world = w->world;
  const std::vector<JournalEntry> &entries = world.journal();
  if (entries.empty())
    return;
  std::string text = world.journalText(0);
  uint64_t first = world.journalCount() - entries.size();
  size_t line = 0;
  uint32_t words = uint32_t(world.tables().tagWords);
  for (size_t i = 0; i < entries.size(); ++i) {
    const JournalEntry &j = entries[i];
    size_t end = text.find('\n', line);
    if (end == std::string::npos)
      end = text.size();
    std::string lineText = text.substr(line, end - line);
    line = end + 1;
    ledger_entry e{};
    e.index = first + i;
    e.tick = j.tick;
    e.event = j.fault ? LEDGER_NO_ID : j.event;
    e.subject = j.subject;
    e.source = j.source;
    e.credit = j.credit;
    e.amount = j.amount;
    e.landed = j.landed;
    e.effect = j.effect;
    e.ability = j.ability;
    e.pool = j.pool;
    e.prevented = j.prevented;
    e.tags = j.fault ? nullptr : world.journalTags().data() + j.tagsAt;
    e.tag_words = j.fault ? 0 : words;
    e.fault = j.fault ? world.journalNote(j.note).c_str() : nullptr;
    e.text = lineText.c_str();
    w->onJournal(w->user, &e);
  }
  world.forgetJournal();
}

ledger_refusal answer(ledger_world *w, Outcome outcome, ledger_outcome *out) {
  w->last = std::move(outcome);
  if (out) {
    const Outcome &o = w->last;
    out->refusal = ledger_refusal(o.refusal);
    out->text = o.text.c_str();
    out->has_numbers = o.hasNumbers;
    out->need = o.need;
    out->have = o.have;
    out->payer = o.payer;
    out->pool = o.pool;
    out->element = o.element;
  }
  tellJournal(w);
  return ledger_refusal(w->last.refusal);
}

// An order of a world not given, or one that ran out of memory.
ledger_refusal refusedWhole(ledger_outcome *out) {
  if (out) {
    *out = ledger_outcome{};
    out->refusal = LEDGER_Refused;
    out->text = "";
    out->pool = LEDGER_NO_ID;
  }
  return LEDGER_Refused;
}

// An order, answered: refused whole where there is no world or memory ran out.
template <typename F> ledger_refusal order(ledger_world *w, ledger_outcome *out, F f) {
  if (!w)
    return refusedWhole(out);
  try {
    return answer(w, f(w->world), out);
  } catch (...) {
    return refusedWhole(out);
  }
}

Given givenOf(const ledger_given *given, size_t count) {
  Given g;
  for (size_t i = 0; given && i < count; ++i)
    g.values.push_back({given[i].name, given[i].is_tag ? given[i].value + 1 : given[i].value,
                        given[i].is_tag != 0});
  return g;
}

template <typename T>
ledger_id findIn(const pack::Tables &t, const std::vector<T> &list, const char *name) {
  return name ? t.find(list, name) : LEDGER_NO_ID;
}

template <typename T>
const char *nameIn(const pack::Tables &t, const std::vector<T> &list, ledger_id id) {
  return id < list.size() && list[id].name < t.names.size() ? t.names[list[id].name].c_str() : "";
}

} // namespace

extern "C" {

uint32_t ledger_api_version(void) { return LEDGER_C_API_VERSION; }

const char *ledger_refusal_name(ledger_refusal refusal) {
  if (int(refusal) < 0 || int(refusal) >= int(LEDGER_REFUSAL_COUNT))
    return "";
  return refusalName(Refusal(refusal));
}

// ---- packs -------------------------------------------------------------------

ledger_pack *ledger_pack_load(const char *path, uint64_t catalogHash, char *why, size_t whySize) {
  if (!path) {
    tell(why, whySize, "no path given");
    return nullptr;
  }
  return guarded<ledger_pack *>(nullptr, [&]() -> ledger_pack * {
    std::string reason;
    std::unique_ptr<Pack> pack =
        catalogHash ? Pack::load(path, catalogHash, reason) : Pack::load(path, reason);
    if (!pack) {
      tell(why, whySize, reason);
      return nullptr;
    }
    return new ledger_pack{std::move(pack)};
  });
}

void ledger_pack_free(ledger_pack *pack) { delete pack; }

uint64_t ledger_pack_hash(const ledger_pack *pack) { return pack ? pack->pack->hash() : 0; }

ledger_id ledger_pack_find(const ledger_pack *pack, ledger_kind kind, const char *name) {
  if (!pack)
    return LEDGER_NO_ID;
  const pack::Tables &t = pack->pack->tables();
  switch (kind) {
  case LEDGER_ARCHETYPE: return findIn(t, t.archetypes, name);
  case LEDGER_ABILITY: return findIn(t, t.abilities, name);
  case LEDGER_EFFECT: return findIn(t, t.effects, name);
  case LEDGER_EVENT: return findIn(t, t.events, name);
  case LEDGER_VALUE: return findIn(t, t.values, name);
  case LEDGER_LINK: return findIn(t, t.links, name);
  case LEDGER_TAG: return findIn(t, t.tags, name);
  case LEDGER_PROP: return findIn(t, t.props, name);
  }
  return LEDGER_NO_ID;
}

ledger_id ledger_pack_find_var(const ledger_pack *pack, ledger_id effect, const char *name) {
  if (!pack || !name)
    return LEDGER_NO_ID;
  const pack::Tables &t = pack->pack->tables();
  if (effect >= t.effects.size())
    return LEDGER_NO_ID;
  const pack::Effect &ef = t.effects[effect];
  for (uint32_t k = 0; k < ef.varCount; ++k)
    if (t.name(t.vars[ef.varsBegin + k].name) == name)
      return k;
  return LEDGER_NO_ID;
}

const char *ledger_pack_name(const ledger_pack *pack, ledger_kind kind, ledger_id id) {
  if (!pack)
    return "";
  const pack::Tables &t = pack->pack->tables();
  switch (kind) {
  case LEDGER_ARCHETYPE: return nameIn(t, t.archetypes, id);
  case LEDGER_ABILITY: return nameIn(t, t.abilities, id);
  case LEDGER_EFFECT: return nameIn(t, t.effects, id);
  case LEDGER_EVENT: return nameIn(t, t.events, id);
  case LEDGER_VALUE: return nameIn(t, t.values, id);
  case LEDGER_LINK: return nameIn(t, t.links, id);
  case LEDGER_TAG: return nameIn(t, t.tags, id);
  case LEDGER_PROP: return nameIn(t, t.props, id);
  }
  return "";
}

// ---- worlds ------------------------------------------------------------------

ledger_world *ledger_world_new(const ledger_pack *pack, uint64_t seed) {
  if (!pack)
    return nullptr;
  return guarded<ledger_world *>(nullptr, [&] { return new ledger_world{World(*pack->pack, seed), {}}; });
}

ledger_world *ledger_world_copy(const ledger_world *world) {
  if (!world)
    return nullptr;
  return guarded<ledger_world *>(nullptr, [&] { return new ledger_world(*world); });
}

void ledger_world_free(ledger_world *world) { delete world; }

ledger_handle ledger_make(ledger_world *world, ledger_id archetype, const ledger_id *links,
                          const ledger_handle *to, size_t linkCount) {
  if (!world || (linkCount && (!links || !to)))
    return 0;
  return guarded<ledger_handle>(0, [&] {
    std::vector<std::pair<pack::Id, Handle>> given;
    for (size_t i = 0; i < linkCount; ++i)
      given.emplace_back(links[i], to[i]);
    Handle made = world->world.make(archetype, given);
    tellJournal(world);
    return made;
  });
}

ledger_refusal ledger_act(ledger_world *world, ledger_handle actor, ledger_id ability,
                          const ledger_handle *targets, size_t targetCount,
                          const ledger_given *given, size_t givenCount, ledger_id usingEffect,
                          ledger_outcome *out) {
  if (targetCount && !targets)
    return refusedWhole(out);
  return order(world, out, [&](World &w) {
    return w.act(actor, ability, std::vector<Handle>(targets, targets + targetCount),
                 givenOf(given, givenCount), usingEffect);
  });
}

ledger_refusal ledger_can_act(ledger_world *world, ledger_handle actor, ledger_id ability,
                              const ledger_handle *targets, size_t targetCount, int targetsNamed,
                              ledger_outcome *out) {
  if (targetCount && !targets)
    return refusedWhole(out);
  return order(world, out, [&](World &w) {
    return w.canAct(actor, ability, std::vector<Handle>(targets, targets + targetCount),
                    targetsNamed != 0);
  });
}

ledger_refusal ledger_apply(ledger_world *world, ledger_id effect, int64_t stacks,
                            ledger_handle to, ledger_handle from, const ledger_lifetime *lifetime,
                            const ledger_given *vars, size_t varCount, ledger_outcome *out) {
  return order(world, out, [&](World &w) {
    Lifetime life;
    if (lifetime) {
      // A time below none is refused by the world, as the C++ API's is.
      life.time = lifetime->seconds < -1 ? lifetime->seconds : w.timeOf(lifetime->seconds);
      life.turns = lifetime->turns;
      life.count = lifetime->count;
      life.countEvent = lifetime->count_event;
      life.countTag = lifetime->count_tag;
    }
    return w.apply(effect, stacks, to, from, life, givenOf(vars, varCount));
  });
}

ledger_refusal ledger_remove(ledger_world *world, ledger_id effect, ledger_handle from,
                             int64_t stacks, ledger_outcome *out) {
  return order(world, out, [&](World &w) { return w.remove(effect, from, stacks); });
}

ledger_refusal ledger_raise(ledger_world *world, ledger_id event, ledger_handle of,
                            ledger_handle by, ledger_outcome *out) {
  return order(world, out, [&](World &w) { return w.raise(event, of, by); });
}

ledger_refusal ledger_deal(ledger_world *world, int64_t amount, ledger_handle to,
                           ledger_handle from, const ledger_id *tags, size_t tagCount,
                           ledger_outcome *out) {
  if (tagCount && !tags)
    return refusedWhole(out);
  return order(world, out, [&](World &w) {
    const pack::Tables &t = w.tables();
    std::vector<pack::TagSet> types;
    for (size_t i = 0; i < tagCount; ++i) {
      // A tag the pack lacks: refused, nothing changed.
      if (tags[i] >= t.tags.size()) {
        Outcome refused;
        refused.refusal = Refusal::Refused;
        return refused;
      }
      types.push_back(t.tags[tags[i]].closure);
    }
    return w.deal(amount, to, from, types);
  });
}

ledger_refusal ledger_set_pool(ledger_world *world, ledger_handle actor, ledger_id pool,
                               int64_t amount, ledger_outcome *out) {
  return order(world, out, [&](World &w) { return w.setPool(actor, pool, amount); });
}

ledger_refusal ledger_destroy(ledger_world *world, ledger_handle actor, ledger_outcome *out) {
  return order(world, out, [&](World &w) { return w.destroy(actor); });
}

ledger_refusal ledger_link(ledger_world *world, ledger_handle actor, ledger_id link,
                           ledger_handle to, ledger_outcome *out) {
  return order(world, out, [&](World &w) { return w.link(actor, link, to); });
}

// ---- time --------------------------------------------------------------------

int ledger_advance(ledger_world *world, int64_t ticks) {
  if (!world)
    return 0;
  return guarded(0, [&] {
    int64_t before = world->world.now();
    world->world.advance(ticks);
    tellJournal(world);
    return ticks == 0 || world->world.now() != before ? 1 : 0;
  });
}

int ledger_advance_seconds(ledger_world *world, int64_t seconds) {
  if (!world)
    return 0;
  return guarded(0, [&] {
    bool moved = world->world.advanceSeconds(seconds);
    tellJournal(world);
    return moved ? 1 : 0;
  });
}

int64_t ledger_now(const ledger_world *world) { return world ? world->world.now() : 0; }

void ledger_keep_from(ledger_world *world, const ledger_world *replaced) {
  if (world && replaced)
    guarded(0, [&] {
      world->world.keepFrom(replaced->world);
      return 0;
    });
}

// ---- reads -------------------------------------------------------------------

int ledger_alive(const ledger_world *world, ledger_handle actor) {
  return world && world->world.alive(actor);
}

int ledger_exists(const ledger_world *world, ledger_handle actor) {
  return world && world->world.exists(actor);
}

size_t ledger_living(const ledger_world *world, ledger_handle *actors, size_t capacity) {
  if (!world)
    return 0;
  return guarded<size_t>(0, [&] {
    std::vector<Handle> living = world->world.living();
    for (size_t i = 0; actors && i < living.size() && i < capacity; ++i)
      actors[i] = living[i];
    return living.size();
  });
}

int64_t ledger_value(ledger_world *world, ledger_handle actor, ledger_id value) {
  return world ? guarded<int64_t>(0, [&] { return world->world.value(actor, value); }) : 0;
}

int ledger_maximum(ledger_world *world, ledger_handle actor, ledger_id value, int64_t *most) {
  if (!world)
    return 0;
  return guarded(0, [&] {
    std::optional<int64_t> m = world->world.maximum(actor, value);
    if (!m)
      return 0;
    if (most)
      *most = *m;
    return 1;
  });
}

ledger_handle ledger_link_of(const ledger_world *world, ledger_handle actor, ledger_id link) {
  return world ? world->world.linkOf(actor, link) : 0;
}

int ledger_has_pool(const ledger_world *world, ledger_handle actor, ledger_id pool) {
  return world && world->world.hasPool(actor, pool);
}

int ledger_holds(const ledger_world *world, ledger_handle actor, ledger_id effect) {
  return world && world->world.holds(actor, effect);
}

int ledger_carries(ledger_world *world, ledger_handle actor, ledger_id tag) {
  return world && guarded(false, [&] { return world->world.carries(actor, tag); });
}

int64_t ledger_stacks_of(const ledger_world *world, ledger_handle actor, ledger_id effect,
                         ledger_handle from) {
  return world ? world->world.stacksOf(actor, effect, from) : 0;
}

int64_t ledger_remaining(const ledger_world *world, ledger_handle actor, ledger_id effect,
                         ledger_measure measure) {
  if (!world || measure < LEDGER_SECONDS || measure > LEDGER_COUNT)
    return -1;
  int64_t left = world->world.remainingOf(actor, effect, DurationUnit(measure));
  return measure == LEDGER_SECONDS ? world->world.secondsOf(left) : left;
}

int64_t ledger_count_of(const ledger_world *world, ledger_id archetype) {
  return world ? world->world.countOf(archetype) : 0;
}

int ledger_specialised(const ledger_world *world) { return world && world->world.specialised(); }

uint64_t ledger_generic_events(const ledger_world *world) {
  return world ? world->world.genericEvents() : 0;
}

// ---- saves -------------------------------------------------------------------

int ledger_save(const ledger_world *world, uint8_t **bytes, size_t *size) {
  if (!world || !bytes || !size)
    return 0;
  return guarded(0, [&] {
    std::string saved = world->world.saveBytes();
    auto *copy = static_cast<uint8_t *>(std::malloc(saved.size() ? saved.size() : 1));
    if (!copy)
      return 0;
    std::memcpy(copy, saved.data(), saved.size());
    *bytes = copy;
    *size = saved.size();
    return 1;
  });
}

void ledger_free(void *bytes) { std::free(bytes); }

ledger_world *ledger_load(const ledger_pack *pack, const uint8_t *bytes, size_t size, char *why,
                          size_t whySize) {
  if (!pack || (!bytes && size)) {
    tell(why, whySize, !pack ? "no pack given" : "no bytes given");
    return nullptr;
  }
  return guarded<ledger_world *>(nullptr, [&]() -> ledger_world * {
    std::string reason;
    std::optional<World> world = World::loadSave(
        *pack->pack, std::string_view(reinterpret_cast<const char *>(bytes), size), reason);
    if (!world) {
      tell(why, whySize, reason);
      return nullptr;
    }
    return new ledger_world{std::move(*world), {}};
  });
}

// ---- the journal -------------------------------------------------------------

void ledger_set_journal_mode(ledger_world *world, ledger_journal_mode mode) {
  if (!world || mode < LEDGER_JOURNAL_KEEP || mode > LEDGER_JOURNAL_OFF)
    return;
  world->world.setJournalMode(mode == LEDGER_JOURNAL_KEEP        ? JournalMode::Keep
                              : mode == LEDGER_JOURNAL_HASH_ONLY ? JournalMode::HashOnly
                                                                 : JournalMode::Off);
}

uint64_t ledger_journal_count(const ledger_world *world) {
  return world ? world->world.journalCount() : 0;
}

uint64_t ledger_journal_hash(const ledger_world *world) {
  return world ? world->world.journalHash() : 0;
}

void ledger_on_journal(ledger_world *world, ledger_journal_fn fn, void *user) {
  if (!world)
    return;
  world->onJournal = fn;
  world->user = user;
  if (fn) {
    // What came before the callback isn't its to be told.
    world->world.setJournalMode(JournalMode::Keep);
    world->world.forgetJournal();
  }
}

} // extern "C"

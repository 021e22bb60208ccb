// libFuzzer entry over the host's API: the bytes are a sequence of host
// orders on a world of one of a few catalogs' packs, built before the run
// (the folder LEDGER_FUZZ_ORDERS_PACKS holds them), on the compiled engine or
// on the reference engine over the same tables: the first byte says which.
// Each order's kind is a byte, its operands the next bytes: ids mostly
// within their tables, now and then past them, kNoId or any 32 bits;
// handles mostly the world's own, now and then stale, past the world's
// actors, 0, kNoId or any 64 bits. Nothing may crash; an order naming
// what isn't there is refused, and an order refused changes nothing (every
// read of every actor and the journal's count before and after alike); a
// save read back reads alike, and a copy saves the same bytes.
// LEDGER_FUZZ_ORDERS_TRACE=1 prints each order as it is given, to read what
// an input found: `LEDGER_FUZZ_ORDERS_TRACE=1 ledger_fuzz_orders crash-…`.
#include "eval/eval.h"
#include "world.h"

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using ledger::pack::Id;
using ledger::pack::kNoId;
using ledger::rt::Handle;
using ledger::rt::Outcome;
using ledger::rt::Pack;
using ledger::rt::World;

constexpr int64_t kOne = 1'000'000;
// Bounds that keep an input to milliseconds: actors the orders name, ticks
// one advance moves.
constexpr size_t kMostActors = 32;
constexpr int64_t kMostTicks = 200;

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "fuzz_orders: %s\n", what);
  std::abort();
}

void trace(const char *format, ...) {
  static const bool tracing = std::getenv("LEDGER_FUZZ_ORDERS_TRACE") != nullptr;
  if (!tracing)
    return;
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
}

// Every pack in the folder, compiled as built and the reference engine's
// over its tables, loaded once for the whole run.
const std::vector<std::unique_ptr<Pack>> &packs() {
  static const std::vector<std::unique_ptr<Pack>> loaded = [] {
    std::vector<std::string> paths;
    for (const auto &entry : std::filesystem::directory_iterator(LEDGER_FUZZ_ORDERS_PACKS))
      if (entry.path().extension() == ".so")
        paths.push_back(entry.path().string());
    std::sort(paths.begin(), paths.end());
    std::vector<std::unique_ptr<Pack>> out;
    for (const std::string &path : paths) {
      std::string why;
      std::unique_ptr<Pack> compiled = Pack::load(path, why);
      if (!compiled) {
        std::fprintf(stderr, "fuzz_orders: %s: %s\n", path.c_str(), why.c_str());
        std::exit(1);
      }
      out.push_back(Pack::reference(compiled->tables(), ledger::eval::evaluator()));
      out.push_back(std::move(compiled));
    }
    if (out.empty())
      fail("no packs in " LEDGER_FUZZ_ORDERS_PACKS);
    return out;
  }();
  return loaded;
}

// The input, read a byte at a time; zeros once it is spent.
class Bytes {
public:
  Bytes(const uint8_t *data, size_t size) : at_(data), end_(data + size) {}
  bool spent() const { return at_ == end_; }
  uint8_t next() { return at_ < end_ ? *at_++ : 0; }
  uint64_t word(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v = v << 8 | next();
    return v;
  }

private:
  const uint8_t *at_, *end_;
};

enum class Kind : uint8_t {
  Make,
  Destroy,
  Act,
  ActAt,
  CanAct,
  Apply,
  Remove,
  SetPool,
  Link,
  Raise,
  Deal,
  Advance,
  Save,
  Copy,
  Read,
  Count
};

class Run {
public:
  Run(const Pack &pack, Bytes &in) : pack_(pack), t_(pack.tables()), in_(in) {
    world_.emplace(pack, in.word(1));
    trace("a world on the %s engine", pack.compiled() ? "compiled" : "reference");
  }

  void go() {
    while (!in_.spent()) {
      order(Kind(in_.next() % uint8_t(Kind::Count)));
      learnActors();
    }
    readEverything();
  }

private:
  const Pack &pack_;
  const ledger::pack::Tables &t_;
  Bytes &in_;
  std::optional<World> world_;
  std::vector<Handle> known_; // every actor handle the world gave, the gone ones too

  // ---- operands ----------------------------------------------------------

  // An id into a table of `size`: mostly one of its own; now and then one
  // just past it, kNoId or any.
  Id id(size_t size) {
    uint8_t b = in_.next();
    if (b < 224 && size > 0)
      return Id(b % size);
    switch (b % 4) {
    case 0:
      return Id(size + in_.next() % 4);
    case 1:
      return kNoId;
    default:
      return Id(in_.word(4));
    }
  }

  // Mostly an actor the world made; now and then 0, a stale handle (an
  // actor's slot, another generation), one past the world's actors (another
  // world's numbering), kNoId, or any 64 bits.
  Handle handle() {
    uint8_t b = in_.next();
    if (b < 200 && !known_.empty())
      return known_[b % known_.size()];
    Handle some = known_.empty() ? Handle(1) << 32 | 1 : known_[in_.next() % known_.size()];
    switch (b % 7) {
    case 0:
      return 0;
    case 1:
      return some + (Handle(1) << 32);
    case 2:
      return some - (Handle(1) << 32);
    case 3:
      return (some & ~Handle(0xffffffff)) | Handle(1000 + in_.next());
    case 4:
      return Handle(kNoId);
    case 5:
      return in_.next() % 2 ? INT64_MAX : INT64_MIN;
    default:
      return Handle(in_.word(8));
    }
  }

  // An amount in millionths: mostly a few whole ones either way, now and then
  // 0, a part of one, the extremes or any 64 bits.
  int64_t amount() {
    uint8_t b = in_.next();
    if (b < 160)
      return (int64_t(b % 64) - 16) * kOne;
    switch (b % 6) {
    case 0:
      return 0;
    case 1:
      return int64_t(in_.next()) * kOne / 7;
    case 2:
      return INT64_MAX;
    case 3:
      return INT64_MIN;
    default:
      return int64_t(in_.word(8));
    }
  }

  ledger::rt::Given given(size_t names) {
    ledger::rt::Given g;
    for (int n = in_.next() % 3; n > 0; --n) {
      bool tag = in_.next() % 2;
      g.values.push_back({id(names), tag ? int64_t(in_.next()) : amount(), tag});
    }
    return g;
  }

  std::vector<Handle> handles() {
    std::vector<Handle> out;
    for (int n = in_.next() % 4; n > 0; --n)
      out.push_back(handle());
    return out;
  }

  std::string name(Handle h) const {
    char text[64];
    std::snprintf(text, sizeof text, "%llx", (unsigned long long)h);
    return text;
  }
  std::string namesOf(const std::vector<Handle> &hs) const {
    std::string out;
    for (Handle h : hs)
      out += " " + name(h);
    return out;
  }
  std::string handlesText(const std::vector<std::pair<Id, Handle>> &links) const {
    std::string out;
    for (auto [l, to] : links)
      out += " " + std::to_string(l) + "=" + name(to);
    return out;
  }

  size_t tagSets() const { return t_.tagBits.size() / std::max<uint32_t>(t_.tagWords, 1); }

  // ---- orders --------------------------------------------------------------

  // What the world answers of every actor named and every actor in play:
  // what an order refused leaves as it was. (A save would say more: the
  // caches and counters a refusal may move, which aren't the world.)
  std::vector<int64_t> state(World &w) const {
    std::vector<Handle> everyone = w.living();
    std::vector<int64_t> out(everyone.begin(), everyone.end());
    out.push_back(w.now());
    everyone.insert(everyone.end(), known_.begin(), known_.end());
    for (Handle h : everyone) {
      out.push_back(w.alive(h) + 2 * w.exists(h));
      for (Id v = 0; v < t_.values.size(); ++v)
        out.push_back(w.value(h, v));
      for (Id e = 0; e < t_.effects.size(); ++e)
        out.push_back(w.stacksOf(h, e));
      for (Id l = 0; l < t_.links.size(); ++l)
        out.push_back(w.linkOf(h, l));
    }
    return out;
  }

  // Whether the world answers as `before` does, and has journaled nothing
  // since it was copied.
  void unchanged(World &before, const char *what) {
    if (world_->journalCount() != before.journalCount()) {
      trace("%s: the journal has %llu entries, not %llu", what,
            (unsigned long long)world_->journalCount(), (unsigned long long)before.journalCount());
      fail(what);
    }
    if (state(*world_) != state(before))
      fail(what);
  }

  // What an order may name that isn't there: an actor not in play (or,
  // where it may name none, one named that isn't), an id past its table.
  bool gone(Handle h) const { return !world_->alive(h); }
  bool goneIfNamed(Handle h) const { return h != 0 && gone(h); }
  bool anyPast(const std::vector<Id> &ids, size_t size) const {
    return std::any_of(ids.begin(), ids.end(), [&](Id i) { return i >= size; });
  }
  static std::vector<Id> givenNames(const ledger::rt::Given &g) {
    std::vector<Id> out;
    for (const auto &v : g.values)
      if (v.name != kNoId)
        out.push_back(v.name);
    return out;
  }

  // Gives an order: one naming what isn't there is refused, and a refusal
  // leaves the world as it found it.
  template <typename F> void give(bool naming, F order) {
    World before = *world_;
    Outcome o = order();
    trace("  %s", ledger::rt::refusalName(o.refusal));
    if (naming && o.ok())
      fail("an order naming what isn't there was taken");
    if (!o.ok())
      unchanged(before, "an order refused changed the world");
  }

  void order(Kind kind) {
    World &w = *world_;
    switch (kind) {
    case Kind::Make: {
      if (known_.size() >= kMostActors)
        break;
      Id archetype = id(t_.archetypes.size());
      std::vector<std::pair<Id, Handle>> links;
      for (int n = in_.next() % 3; n > 0; --n)
        links.push_back({id(t_.links.size()), handle()});
      trace("make %u with %zu links%s", archetype, links.size(), handlesText(links).c_str());
      bool naming = archetype >= t_.archetypes.size();
      for (auto [l, to] : links)
        naming = naming || l >= t_.links.size() || goneIfNamed(to);
      World before = w;
      Handle made = w.make(archetype, links);
      trace("  %s", w.handleName(made).c_str());
      if (naming && made != 0)
        fail("a make naming what isn't there made an actor");
      if (made == 0)
        unchanged(before, "a make refused changed the world");
      if (made != 0)
        known_.push_back(made);
      break;
    }
    case Kind::Destroy: {
      Handle a = handle();
      trace("destroy %s", name(a).c_str());
      give(gone(a), [&] { return w.destroy(a); });
      break;
    }
    case Kind::Act: {
      Handle by = handle();
      Id ability = id(t_.abilities.size());
      std::vector<Handle> targets = handles();
      ledger::rt::Given g = given(t_.props.size());
      Id grant = in_.next() % 4 == 0 ? id(t_.effects.size()) : kNoId;
      trace("act %s ability %u at%s, %zu given, grant %u", name(by).c_str(), ability,
            namesOf(targets).c_str(), g.values.size(), grant);
      bool naming = gone(by) || ability >= t_.abilities.size() ||
                    (grant != kNoId && grant >= t_.effects.size()) ||
                    anyPast(givenNames(g), t_.props.size());
      give(naming, [&] { return w.act(by, ability, targets, g, grant); });
      break;
    }
    case Kind::ActAt: {
      Handle by = handle();
      Id ability = id(t_.abilities.size());
      Handle at = handle();
      trace("act %s ability %u at %s", name(by).c_str(), ability, name(at).c_str());
      give(gone(by) || ability >= t_.abilities.size(), [&] { return w.actAt(by, ability, at); });
      break;
    }
    case Kind::CanAct: {
      Handle by = handle();
      Id ability = id(t_.abilities.size());
      std::vector<Handle> targets = handles();
      bool named = in_.next() % 2;
      trace("can %s ability %u at%s", name(by).c_str(), ability, namesOf(targets).c_str());
      World before = w;
      (void)w.canAct(by, ability, targets, named);
      unchanged(before, "a question changed the world");
      break;
    }
    case Kind::Apply: {
      Id effect = id(t_.effects.size());
      int64_t stacks = in_.next() % 2 ? kOne : amount();
      Handle to = handle(), from = in_.next() % 2 ? 0 : handle();
      ledger::rt::Lifetime life;
      if (in_.next() % 2)
        life.time = amount();
      if (in_.next() % 2)
        life.turns = amount();
      if (in_.next() % 2) {
        life.count = amount();
        life.countEvent = in_.next() % 2 ? id(t_.events.size()) : kNoId;
        life.countTag = in_.next() % 2 ? id(t_.tags.size()) : kNoId;
      }
      size_t vars = effect < t_.effects.size() ? t_.effects[effect].varCount : 0;
      ledger::rt::Given g = given(vars);
      trace("apply %u x%lld to %s from %s, life %lld %lld %lld (%u %u), %zu vars", effect,
            (long long)stacks, name(to).c_str(), name(from).c_str(), (long long)life.time,
            (long long)life.turns, (long long)life.count, life.countEvent, life.countTag,
            g.values.size());
      bool naming = effect >= t_.effects.size() || gone(to) || goneIfNamed(from) ||
                    (life.countEvent != kNoId && life.countEvent >= t_.events.size()) ||
                    (life.countTag != kNoId && life.countTag >= t_.tags.size()) ||
                    anyPast(givenNames(g), vars) || g.values.size() > givenNames(g).size();
      give(naming, [&] { return w.apply(effect, stacks, to, from, life, g); });
      break;
    }
    case Kind::Remove: {
      Id effect = id(t_.effects.size());
      Handle from = handle();
      int64_t stacks = in_.next() % 2 ? World::kWhole : amount();
      trace("remove %u x%lld from %s", effect, (long long)stacks, name(from).c_str());
      give(gone(from) || effect >= t_.effects.size(),
           [&] { return w.remove(effect, from, stacks); });
      break;
    }
    case Kind::SetPool: {
      Handle a = handle();
      Id pool = id(t_.values.size());
      int64_t to = amount();
      trace("set %s pool %u to %lld", name(a).c_str(), pool, (long long)to);
      give(gone(a) || pool >= t_.values.size(), [&] { return w.setPool(a, pool, to); });
      break;
    }
    case Kind::Link: {
      Handle a = in_.next() % 4 == 0 ? 0 : handle();
      Id link = id(t_.links.size());
      Handle to = handle();
      trace("link %s link %u to %s", name(a).c_str(), link, name(to).c_str());
      bool naming =
          link >= t_.links.size() || goneIfNamed(to) || (!t_.links[link].global && gone(a));
      give(naming, [&] { return w.link(a, link, to); });
      break;
    }
    case Kind::Raise: {
      Id event = id(t_.events.size());
      Handle of = handle(), by = in_.next() % 2 ? 0 : handle();
      trace("raise %u of %s by %s", event, name(of).c_str(), name(by).c_str());
      bool naming = event >= t_.events.size() || gone(of) || goneIfNamed(by);
      give(naming, [&] { return w.raise(event, of, by); });
      break;
    }
    case Kind::Deal: {
      int64_t much = amount();
      Handle to = handle(), from = in_.next() % 2 ? 0 : handle();
      std::vector<ledger::pack::TagSet> types;
      for (int n = in_.next() % 3; n > 0; --n)
        types.push_back(id(tagSets()));
      trace("deal %lld to %s from %s, %zu types", (long long)much, name(to).c_str(),
            name(from).c_str(), types.size());
      bool naming = gone(to) || goneIfNamed(from) || anyPast(types, tagSets());
      give(naming, [&] { return w.deal(much, to, from, types); });
      break;
    }
    case Kind::Advance:
      advance();
      break;
    case Kind::Save:
      saveAndLoad();
      break;
    case Kind::Copy:
      copy();
      break;
    case Kind::Read:
      readOne();
      break;
    case Kind::Count:
      break;
    }
  }

  // Mostly a few ticks; now and then none, or time back, or past what a
  // time holds: those move nothing.
  void advance() {
    World &w = *world_;
    uint8_t b = in_.next();
    if (b < 240) {
      trace("advance %d", b % kMostTicks);
      w.advance(b % kMostTicks);
      return;
    }
    World before = w;
    int64_t ticks = b % 2 ? -int64_t(1 + in_.next()) : INT64_MAX - int64_t(in_.next());
    trace("advance %lld", (long long)ticks);
    w.advance(ticks);
    unchanged(before, "an advance by no time the world counts moved it");
  }

  World loaded(const std::string &bytes) {
    std::string why;
    std::optional<World> back = World::loadSave(pack_, bytes, why);
    if (!back) {
      std::fprintf(stderr, "fuzz_orders: %s\n", why.c_str());
      fail("a world's own save was refused");
    }
    return std::move(*back);
  }

  // A world read back answers every read as the one saved and has its
  // journal's count and hash; its own save reads back to the same bytes.
  // (Its save may differ from the first where loading makes again what a
  // save doesn't hold: which of the compiled engine's autos sleep.)
  void saveAndLoad() {
    trace("save and load");
    World back = loaded(world_->saveBytes());
    if (back.journalCount() != world_->journalCount() ||
        back.journalHash() != world_->journalHash())
      fail("a world read back has another journal");
    if (state(back) != state(*world_))
      fail("a world read back reads otherwise");
    std::string second = back.saveBytes(), third = loaded(second).saveBytes();
    if (third != second) {
      size_t at = std::mismatch(second.begin(), second.end(), third.begin(), third.end()).first -
                  second.begin();
      trace("the saves part at byte %zu of %zu and %zu", at, second.size(), third.size());
      fail("a save read back saves other bytes");
    }
    world_.emplace(std::move(back));
  }

  // A copy saves as its world does, and goes on in its place, keeping what
  // the world it replaces keeps.
  void copy() {
    trace("copy");
    World copied = *world_;
    if (copied.saveBytes() != world_->saveBytes())
      fail("a copy saves other bytes than its world");
    World replaced = *world_;
    world_.emplace(std::move(copied));
    world_->keepFrom(replaced);
  }

  void readOne() {
    World &w = *world_;
    Handle a = handle();
    trace("read of %s", name(a).c_str());
    switch (in_.next() % 11) {
    case 0:
      (void)w.value(a, id(t_.values.size()));
      break;
    case 1:
      (void)w.maximum(a, id(t_.values.size()));
      break;
    case 2:
      (void)w.linkOf(a, id(t_.links.size()));
      break;
    case 3:
      (void)w.hasPool(a, id(t_.values.size()));
      break;
    case 4:
      (void)w.holds(a, id(t_.effects.size()));
      break;
    case 5:
      (void)w.carries(a, id(t_.tags.size()));
      break;
    case 6: {
      Id effect = id(t_.effects.size());
      (void)w.stacksOf(a, effect, handle());
      break;
    }
    case 7: {
      Id effect = id(t_.effects.size());
      auto unit = ledger::rt::DurationUnit(in_.next() % 5);
      Id event = in_.next() % 2 ? id(t_.events.size()) : kNoId;
      Id tag = in_.next() % 2 ? id(t_.tags.size()) : kNoId;
      (void)w.remainingOf(a, effect, unit, event, tag);
      break;
    }
    case 8:
      (void)w.countOf(id(t_.archetypes.size()));
      break;
    case 9:
      (void)w.alive(a);
      (void)w.exists(a);
      break;
    default:
      (void)w.handleName(a);
      break;
    }
  }

  // Actors content made (a create step) are the orders' to name too.
  void learnActors() {
    for (Handle h : world_->living())
      if (known_.size() < kMostActors && std::find(known_.begin(), known_.end(), h) == known_.end())
        known_.push_back(h);
  }

  // Every read of every actor, the gone ones too, and the journal.
  void readEverything() {
    World &w = *world_;
    (void)state(w);
    for (Handle h : known_) {
      for (Id v = 0; v < t_.values.size(); ++v) {
        (void)w.maximum(h, v);
        (void)w.hasPool(h, v);
      }
      for (Id e = 0; e < t_.effects.size(); ++e)
        (void)w.holds(h, e);
      for (Id e = 0; e < t_.effects.size(); ++e)
        for (auto unit : {ledger::rt::DurationUnit::Time, ledger::rt::DurationUnit::Turns,
                          ledger::rt::DurationUnit::Count})
          (void)w.remainingOf(h, e, unit);
      for (Id g = 0; g < t_.tags.size(); ++g)
        (void)w.carries(h, g);
    }
    for (Id a = 0; a < t_.archetypes.size(); ++a)
      (void)w.countOf(a);
    (void)w.journalText();
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  const std::vector<std::unique_ptr<Pack>> &all = packs();
  Run(*all[in.next() % all.size()], in).go();
  return 0;
}

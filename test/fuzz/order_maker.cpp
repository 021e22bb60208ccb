#include "order_maker.h"

#include "fuzz_random.h"

#include <algorithm>

namespace ledger::fuzz {

using pack::Id;
using pack::kNoId;

namespace {
constexpr int64_t kOne = 1'000'000;
} // namespace

class OrderMaker::Choices {
public:
  Choices(const pack::Tables &t, uint64_t seed) : t_(t), rng_(seed) {
    for (Id a = 0; a < t.archetypes.size(); ++a) {
      const pack::Archetype &arch = t.archetypes[a];
      bool anchor = arch.poolCount == 0 && arch.fullCount == 0 && arch.grantCount == 0 &&
                    arch.hasCount == 0 && arch.withCount == 0;
      (anchor ? anchors_ : fighters_).push_back(a);
    }
    if (fighters_.empty())
      fighters_ = anchors_;
    for (Id e = 0; e < t.events.size(); ++e)
      if (!t.events[e].builtin) {
        events_.push_back(e);
        // a count of turns is said as turns, never by the turn event's name
        if (e != t.turnEvent)
          counted_.push_back(e);
      }
    for (Id g = Id(pack::BuiltinTag::Count); g < t.tags.size(); ++g)
      tags_.push_back(g);
    for (Id v = 0; v < t.values.size(); ++v)
      if (t.values[v].kind == pack::ValueKind::Pool && t.values[v].member == kNoId)
        pools_.push_back(v);
    for (Id ef = 0; ef < t.effects.size(); ++ef)
      if (!t.effects[ef].isCooldown)
        effects_.push_back(ef);
  }

  // The first orders of every sequence: sides, then a few fighters on them.
  std::vector<Order> opening(const PlayedWorld &e) {
    std::vector<Order> out;
    size_t sides = t_.allegiance != kNoId && !anchors_.empty() ? 2 : 0;
    for (size_t i = 0; i < sides; ++i) {
      Order o;
      o.kind = OrderKind::Make;
      o.actor = "t" + std::to_string(++sides_);
      o.name = name(t_.archetypes[rng_.pick(anchors_)].name);
      out.push_back(o);
    }
    size_t fighters = size_t(rng_.range(2, 4));
    for (size_t i = 0; i < fighters; ++i)
      out.push_back(make(e, sides ? "t" + std::to_string(1 + i % 2) : ""));
    return out;
  }

  Order next(const PlayedWorld &e) {
    for (;;) {
      int roll = int(rng_.below(100));
      if (roll < 7 || livingFighters(e).size() < 2)
        return make(e, anchorName(e));
      if (roll < 37)
        return act(e, false);
      if (roll < 40)
        return act(e, true);
      if (roll < 51 && !effects_.empty())
        return apply(e);
      if (roll < 55 && !effects_.empty())
        return remove(e);
      if (roll < 60 && !events_.empty())
        return raise(e);
      if (roll < 68)
        return deal(e);
      if (roll < 72 && !pools_.empty())
        return setPool(e);
      if (roll < 74)
        return destroy(e);
      if (roll < 77 && !t_.links.empty())
        return link(e);
      if (roll < 94)
        return advance();
      if (roll < 96 && t_.turnEvent != kNoId) {
        Order o;
        o.kind = OrderKind::Turns;
        o.amount = rng_.range(1, 2);
        return o;
      }
      if (roll < 98) {
        Order o;
        o.kind = OrderKind::Save;
        o.name = "s" + std::to_string(++saves_);
        saved_.push_back(o.name);
        return o;
      }
      if (!saved_.empty()) {
        Order o;
        o.kind = OrderKind::Rewind;
        o.name = rng_.pick(saved_);
        o.keeping = rng_.chance(25);
        if (e.saves.count(o.name))
          return o;
      }
    }
  }

private:
  const pack::Tables &t_;
  Rng rng_;
  std::vector<Id> anchors_, fighters_, events_, counted_, tags_, pools_, effects_;
  int actors_ = 0, sides_ = 0, saves_ = 0;
  std::vector<std::string> saved_;

  std::string name(Id n) const { return std::string(t_.name(n)); }

  // The sides' anchors are named t1, t2; the fighters u1, u2, ...
  static bool isAnchor(const std::string &n) { return n[0] == 't'; }

  std::vector<std::string> livingFighters(const PlayedWorld &e) const {
    std::vector<std::string> out;
    for (const std::string &n : e.made)
      if (!isAnchor(n) && e.world->alive(e.actors.at(n)))
        out.push_back(n);
    return out;
  }
  std::string anchorName(const PlayedWorld &e) {
    std::vector<std::string> anchors;
    for (const std::string &n : e.made)
      if (isAnchor(n))
        anchors.push_back(n);
    return anchors.empty() ? "" : rng_.pick(anchors);
  }
  // Mostly a fighter alive; now and then a side's anchor, or any the play
  // named, the fallen and the gone among them.
  std::string someone(const PlayedWorld &e) {
    std::vector<std::string> fighters = livingFighters(e);
    int roll = int(rng_.below(100));
    if (roll < 85 && !fighters.empty())
      return rng_.pick(fighters);
    if (roll < 92 && !anchorName(e).empty())
      return anchorName(e);
    return rng_.pick(e.made);
  }
  Handle sideOf(const PlayedWorld &e, const std::string &n) const {
    return t_.allegiance == kNoId ? 0 : e.world->linkOf(e.actors.at(n), t_.allegiance);
  }
  // One the clause is likeliest to take: of the side it asks for, mostly.
  std::string targetFor(const PlayedWorld &e, const std::string &actor, const pack::Ability &ability) {
    if (ability.side == pack::Side::Any || t_.allegiance == kNoId || !rng_.chance(80))
      return someone(e);
    std::vector<std::string> fit;
    Handle mine = sideOf(e, actor);
    for (const std::string &n : livingFighters(e))
      if ((sideOf(e, n) == mine) == (ability.side == pack::Side::Ally))
        fit.push_back(n);
    return fit.empty() ? someone(e) : rng_.pick(fit);
  }

  int64_t amount() {
    switch (rng_.below(8)) {
    case 0:
      return 0;
    case 1:
      return -rng_.range(1, 20) * kOne;
    case 2:
      return rng_.range(1, 99) * kOne / 4;
    case 3:
      return rng_.range(100, 10000) * kOne;
    default:
      return rng_.range(1, 40) * kOne;
    }
  }

  Order make(const PlayedWorld &e, const std::string &side) {
    Order o;
    o.kind = OrderKind::Make;
    o.actor = "u" + std::to_string(++actors_);
    o.name = name(t_.archetypes[rng_.pick(fighters_)].name);
    if (t_.allegiance != kNoId && !side.empty() && rng_.chance(92))
      o.links.push_back({name(t_.links[t_.allegiance].name), side});
    for (Id l = 0; l < t_.links.size(); ++l)
      if (l != t_.allegiance && !t_.links[l].global && !e.made.empty() && rng_.chance(25))
        o.links.push_back({name(t_.links[l].name), rng_.pick(e.made)});
    return o;
  }

  // The abilities an actor's archetype grants.
  std::vector<Id> grantsOf(const PlayedWorld &e, const std::string &actor) const {
    std::vector<Id> granted;
    Id archetype = archetypeOf(e, e.actors.at(actor));
    if (archetype != kNoId) {
      const pack::Archetype &ar = t_.archetypes[archetype];
      for (uint32_t k = 0; k < ar.grantCount; ++k)
        granted.push_back(t_.idLists[ar.grantsBegin + k]);
    }
    return granted;
  }

  // An order, or with `asking` a host's question whether it would be taken
  // (World::canAct, a play's expect can / cannot).
  Order act(const PlayedWorld &e, bool asking) {
    if (t_.abilities.empty())
      return advance();
    Order o;
    o.kind = asking ? OrderKind::Can : OrderKind::Act;
    std::vector<std::string> granting;
    for (const std::string &n : livingFighters(e))
      if (!grantsOf(e, n).empty())
        granting.push_back(n);
    o.actor = !granting.empty() && rng_.chance(85) ? rng_.pick(granting) : someone(e);
    std::vector<Id> granted = grantsOf(e, o.actor);
    Id ab = !granted.empty() && rng_.chance(85) ? rng_.pick(granted) : Id(rng_.below(t_.abilities.size()));
    const pack::Ability &ability = t_.abilities[ab];
    o.name = name(ability.name);
    size_t count = 0;
    switch (ability.target) {
    case pack::TargetKind::Self:
      count = rng_.chance(80) ? 1 : 0;
      break;
    case pack::TargetKind::One:
      count = rng_.chance(95) ? 1 : 0;
      break;
    case pack::TargetKind::Many:
      count = ability.upTo ? size_t(rng_.range(0, ability.targetCount)) : ability.targetCount;
      if (rng_.chance(5))
        count += 1;
      break;
    default:
      count = rng_.chance(90) ? 0 : 1;
      break;
    }
    if (asking)
      count = std::min<size_t>(count, 1); // a play's question names one target at most
    for (size_t i = 0; i < count; ++i)
      o.targets.push_back(ability.target == pack::TargetKind::Self && rng_.chance(85) ? o.actor
                                                                                     : targetFor(e, o.actor, ability));
    if (asking)
      return o;
    if (rng_.chance(10))
      o.given.push_back({"X", rng_.range(0, 4) * kOne});
    for (uint32_t k = 0; k < ability.takeCount; ++k)
      if (rng_.chance(50)) {
        const pack::Prop &p = t_.props[t_.idLists[ability.takesBegin + k]];
        if (p.kind == pack::PropKind::Number)
          o.given.push_back({name(p.name), rng_.range(0, 12) * kOne});
      }
    return o;
  }

  // The archetype an actor was made from, read off its handle's name (Name#N).
  Id archetypeOf(const PlayedWorld &e, Handle h) const {
    std::string n = e.world->handleName(h);
    size_t hash = n.find('#');
    return hash == std::string::npos ? kNoId : t_.find(t_.archetypes, n.substr(0, hash));
  }

  Order apply(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::Apply;
    Id ef = rng_.pick(effects_);
    o.name = name(t_.effects[ef].name);
    o.actor = someone(e);
    if (rng_.chance(30)) {
      o.hasAmount = true;
      o.amount = rng_.pick<int64_t>({2, 3, 5, -1, 0}) * kOne;
    }
    switch (rng_.below(8)) {
    case 0:
    case 1:
      o.life = Order::Ticks;
      o.lifeAmount = rng_.range(1, 40);
      break;
    case 2:
      if (t_.turnEvent != kNoId) {
        o.life = Order::Turns;
        o.lifeAmount = rng_.range(1, 3) * kOne;
      }
      break;
    case 3:
      o.life = Order::Count;
      o.lifeAmount = rng_.range(1, 3) * kOne;
      o.lifeEvent = !counted_.empty() && rng_.chance(40) ? name(t_.events[rng_.pick(counted_)].name) : "Damage";
      break;
    default:
      break;
    }
    if (rng_.chance(50))
      o.other = someone(e);
    const pack::Effect &effect = t_.effects[ef];
    for (uint32_t k = 0; k < effect.varCount; ++k)
      if (t_.vars[effect.varsBegin + k].kind == pack::VarKind::Number && rng_.chance(40))
        o.given.push_back({name(t_.vars[effect.varsBegin + k].name), amount()});
    return o;
  }

  // Mostly an effect the actor holds.
  Order remove(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::Remove;
    o.actor = someone(e);
    std::vector<Id> held;
    for (Id ef : effects_)
      if (e.world->holds(e.actors.at(o.actor), ef))
        held.push_back(ef);
    o.name = name(t_.effects[!held.empty() && rng_.chance(75) ? rng_.pick(held) : rng_.pick(effects_)].name);
    if (rng_.chance(30)) {
      o.hasAmount = true;
      o.amount = rng_.range(0, 3) * kOne;
    }
    return o;
  }

  Order raise(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::Raise;
    o.name = name(t_.events[rng_.pick(events_)].name);
    o.actor = someone(e);
    if (rng_.chance(50))
      o.other = someone(e);
    return o;
  }

  Order deal(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::Deal;
    o.actor = someone(e);
    o.amount = amount();
    if (rng_.chance(50))
      o.other = someone(e);
    if (!tags_.empty() && rng_.chance(40))
      for (int k = 0, n = int(rng_.range(1, 2)); k < n; ++k) {
        std::string tag = name(t_.tags[rng_.pick(tags_)].name);
        if (std::find(o.types.begin(), o.types.end(), tag) == o.types.end())
          o.types.push_back(tag);
      }
    return o;
  }

  Order setPool(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::SetPool;
    o.actor = someone(e);
    o.name = name(t_.values[rng_.pick(pools_)].name);
    o.amount = amount();
    return o;
  }

  Order destroy(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::Destroy;
    o.actor = someone(e);
    return o;
  }

  Order link(const PlayedWorld &e) {
    Order o;
    o.kind = OrderKind::Link;
    Id l = Id(rng_.below(t_.links.size()));
    o.name = name(t_.links[l].name);
    if (!t_.links[l].global)
      o.actor = someone(e);
    o.other = l == t_.allegiance && rng_.chance(70) && !anchorName(e).empty() ? anchorName(e) : someone(e);
    return o;
  }

  Order advance() {
    Order o;
    o.kind = OrderKind::Advance;
    int64_t perSecond = std::max<int64_t>(1, t_.unitsPerSecond / (t_.unitsPerTick * kOne));
    o.amount = rng_.chance(70) ? rng_.range(1, 3) : rng_.chance(70) ? rng_.range(1, 2 * perSecond)
                                                                     : rng_.range(1, 20 * perSecond);
    return o;
  }
};

OrderMaker::OrderMaker(const pack::Tables &tables, uint64_t seed)
    : choices_(std::make_unique<Choices>(tables, seed)) {}
OrderMaker::~OrderMaker() = default;
std::vector<Order> OrderMaker::opening(const PlayedWorld &w) { return choices_->opening(w); }
Order OrderMaker::next(const PlayedWorld &w) { return choices_->next(w); }

} // namespace ledger::fuzz

// Orders: an ability checked as the reference orders its checks, then paid,
// raised and run; and the host's other orders, each refused by name before
// anything moves.
#include "world.h"

namespace ledger::cw {

using pack::BuiltinEvent;
using pack::BuiltinTag;

namespace {
Outcome refused(Refusal r) {
  Outcome o;
  o.refusal = r;
  return o;
}
} // namespace

// A refusal with words, built in the world's buffer.
Outcome World::wordsOf(Refusal r, const char *text, uint32_t length) {
  Outcome o = refused(r);
  uint32_t n = length < sizeof words_ ? length : uint32_t(sizeof words_);
  std::memcpy(words_, text, n);
  o.text = words_;
  o.textLength = n;
  return o;
}

// "having Fire Ice": a clause's word, then each tag of a set by name.
Outcome World::clauseWords(Refusal r, const char *word, pack::TagSet set) {
  uint32_t n = 0;
  auto put = [&](const char *s, uint32_t len) {
    for (uint32_t k = 0; k < len && n < sizeof words_; ++k)
      words_[n++] = s[k];
  };
  uint32_t wordLength = 0;
  while (word[wordLength])
    ++wordLength;
  put(word, wordLength);
  const uint64_t *bits = tagSet(set);
  for (Id g = 0; g < shape().tagCount; ++g)
    if (bits[g / 64] >> (g % 64) & 1) {
      put(" ", 1);
      put(nameChars(lp_tags[g].name), nameLength(lp_tags[g].name));
    }
  Outcome o = refused(r);
  o.text = words_;
  o.textLength = n;
  return o;
}

World::ClauseMiss World::clauseMiss(Handle caster, const pack::Ability &ab, Handle t) {
  if (!alive(t))
    return ClauseMiss::Gone;
  if ((ab.side == pack::Side::Enemy && !enemies(t, caster)) ||
      (ab.side == pack::Side::Ally && !allies(t, caster)))
    return ClauseMiss::Side;
  if (!ab.targetHaving && !ab.targetUnless)
    return ClauseMiss::None;
  Tags tb = tagsOf(t);
  if (ab.targetHaving && !carriesAll(tb, ab.targetHaving))
    return ClauseMiss::Having;
  if (ab.targetUnless && carriesAny(tb, ab.targetUnless))
    return ClauseMiss::Unless;
  return ClauseMiss::None;
}

// The checks of an order that read no target: the actor, its grant, its
// cooldown.
Outcome World::checkCaster(Handle a, Id ability, bool forCast, bool noCooldown, Id usingEffect,
                           Handle &grant) {
  ActorHead *ac = actor(a);
  if (!ac || !ac->live || ac->fallen)
    return refused(Refusal::Gone);
  const pack::Ability &ab = lp_abilities[ability];
  if (!forCast && !granted(a, ability, &grant, usingEffect))
    return refused(Refusal::NotGranted);
  if (!noCooldown && ab.cooldownEffect != kNoId && holds(a, ab.cooldownEffect))
    return refused(Refusal::OnCooldown);
  return {};
}

Outcome World::check(Handle a, Id ability, const Handle *targets, uint32_t n, bool forCast,
                     bool free, bool noCooldown, const Frame *parent, bool targetsNamed,
                     Id usingEffect, Given given) {
  Handle grant = 0;
  if (Outcome o = checkCaster(a, ability, forCast, noCooldown, usingEffect, grant); !o.ok())
    return o;
  return checkOrder(a, ability, targets, n, free, parent, targetsNamed, grant, given);
}

// The checks of an order past its caster's: its targets, its requirements,
// its costs, none of them moving anything.
Outcome World::checkOrder(Handle a, Id ability, const Handle *targets, uint32_t n, bool free,
                          const Frame *parent, bool targetsNamed, Handle grant, Given given) {
  (void)given;
  const pack::Ability &ab = lp_abilities[ability];
  auto fits = [&](Handle t, uint32_t element) -> Outcome {
    ClauseMiss miss = clauseMiss(a, ab, t);
    if (miss == ClauseMiss::None)
      return {};
    if (miss == ClauseMiss::Gone)
      return refused(Refusal::Gone);
    Outcome o = miss == ClauseMiss::Having   ? clauseWords(Refusal::BadTarget, "having", ab.targetHaving)
                : miss == ClauseMiss::Unless ? clauseWords(Refusal::BadTarget, "unless", ab.targetUnless)
                : ab.side == pack::Side::Enemy ? wordsOf(Refusal::BadTarget, "enemy", 5)
                                               : wordsOf(Refusal::BadTarget, "ally", 4);
    o.element = element;
    return o;
  };
  switch (targetsNamed ? ab.target : pack::TargetKind::None) {
  case pack::TargetKind::None:
  case pack::TargetKind::Self:
    if (targetsNamed && n > 0 && !(n == 1 && targets[0] == a))
      return wordsOf(Refusal::BadTarget, "self", 4);
    break;
  case pack::TargetKind::One:
    if (n == 0)
      return refused(Refusal::NoTarget);
    if (n > 1)
      return wordsOf(Refusal::BadTarget, "one", 3);
    if (Outcome o = fits(targets[0], 0); !o.ok())
      return o;
    break;
  case pack::TargetKind::Many: {
    if (ab.upTo ? n > ab.targetCount : n != ab.targetCount) {
      char count[32];
      uint32_t len = 0;
      if (ab.upTo)
        for (const char *s = "up to "; *s; ++s)
          count[len++] = *s;
      char digits[12];
      uint32_t d = 0;
      uint32_t c = ab.targetCount;
      do {
        digits[d++] = char('0' + c % 10);
        c /= 10;
      } while (c);
      while (d)
        count[len++] = digits[--d];
      return wordsOf(Refusal::BadTarget, count, len);
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (ab.distinct)
        for (uint32_t j = 0; j < i; ++j)
          if (targets[j] == targets[i]) {
            Outcome o = wordsOf(Refusal::BadTarget, "distinct", 8);
            o.element = i + 1;
            return o;
          }
      if (Outcome o = fits(targets[i], i + 1); !o.ok())
        return o;
    }
    break;
  }
  default:
    break;
  }
  // Requirements and costs read the order as its Activate will carry it; the
  // probe is gone as the check ends.
  uint32_t mark = events_.size();
  Frame f{};
  f.roots[LEDGER_SLOT_HOLDER] = a;
  f.roots[LEDGER_SLOT_SOURCE] = a;
  f.roots[LEDGER_SLOT_CREDIT] = a;
  f.roots[LEDGER_SLOT_TARGET] = n == 0 ? (ab.target == pack::TargetKind::Self ? a : 0) : targets[0];
  f.targets = targets;
  f.targetCount = n;
  f.grant = grant;
  f.event = f.propsEvent =
      activateEvent(parent, a, ability, targets, n, 0, parent ? parent->chain : 0, grant);
  Outcome result;
  for (uint32_t r = 0; r < ab.requireCount && result.ok(); ++r) {
    const pack::Requirement &req = lp_requirements[ab.requiresBegin + r];
    if (runBody(req.body, f) != 0)
      continue;
    result = req.text == kNoId ? refused(Refusal::Requirement)
                               : wordsOf(Refusal::Requirement, nameChars(req.text),
                                         nameLength(req.text));
    if (req.leftBody != kNoId) {
      result.hasNumbers = true;
      result.have = runBody(req.leftBody, f);
      result.need = runBody(req.rightBody, f);
    }
  }
  if (result.ok() && !free) {
    // Each cost against its pool at its turn: what the costs before it bill
    // on that pool is spoken for (docs/readings.md).
    uint32_t billAt = scratchHandles_.size();
    for (uint32_t c = 0; c < ab.costCount && result.ok(); ++c) {
      const pack::Cost &cost = lp_costs[ab.costsBegin + c];
      Handle payer = cost.link != kNoId ? linkOf(a, cost.link) : a;
      if (!alive(payer) || !hasPool(payer, cost.pool)) {
        result = refused(Refusal::NoPool);
        break;
      }
      int64_t amount =
          price(payer, cost.pool, runBody(cost.amountBody, f), a, ability, f.propsEvent);
      amount = amount > 0 ? amount : 0;
      int64_t have = poolNow(payer, cost.pool) - poolLeast(payer, cost.pool);
      for (uint32_t k = billAt; k < scratchHandles_.size(); k += 3)
        if (scratchHandles_[k] == payer && scratchHandles_[k + 1] == int64_t(cost.pool))
          have -= scratchHandles_[k + 2] > 0 ? scratchHandles_[k + 2] : 0;
      if (amount > have) {
        result = refused(Refusal::CannotAfford);
        result.hasNumbers = true;
        result.need = amount;
        result.have = have;
        result.payer = payer;
        result.pool = cost.pool;
        break;
      }
      scratchHandles_.push(payer);
      scratchHandles_.push(int64_t(cost.pool));
      scratchHandles_.push(amount);
    }
    scratchHandles_.truncate(billAt);
  }
  events_.truncate(mark);
  return result;
}

// The Activate an order makes, not yet raised.
uint32_t World::activateEvent(const Frame *parent, Handle caster, Id ability,
                              const Handle *targets, uint32_t n, pack::TagSet tagged,
                              uint32_t chain, Handle grant) {
  uint32_t ei = newEvent(Id(BuiltinEvent::Activate), caster, caster, caster, chain);
  Event &e = ev(ei);
  e.ability = ability;
  e.target = n == 0 ? 0 : targets[0];
  e.targetsAt = e.targetedAt = eventTargets_.size();
  e.targetCount = e.targetedCount = n;
  for (uint32_t k = 0; k < n; ++k)
    eventTargets_.push(targets[k]);
  addTags(ev(ei).tags, lp_abilities[ability].tags);
  addTags(ev(ei).tags, tagged);
  if (parent)
    inheritChain(ev(ei), *parent);
  if (grant)
    ev(ei).grant = grant;
  return ei;
}

// An ability goes off: its costs paid as changes tagged Cost, its Activate
// raised, its steps run once, its cooldown put on its caster.
Refusal World::castAbility(Frame *parent, Handle caster, Id ability, const Handle *targets,
                           uint32_t n, bool free, bool noCooldown, pack::TagSet tagged,
                           uint32_t chain, Handle grant) {
  const pack::Ability &ab = lp_abilities[ability];
  Frame cf{};
  cf.event = cf.propsEvent = -1;
  cf.roots[LEDGER_SLOT_HOLDER] = caster;
  cf.roots[LEDGER_SLOT_SOURCE] = caster;
  cf.roots[LEDGER_SLOT_CREDIT] = caster;
  cf.roots[LEDGER_SLOT_TARGET] =
      n == 0 ? (ab.target == pack::TargetKind::Self ? caster : 0) : targets[0];
  cf.targets = targets;
  cf.targetCount = n;
  cf.grant = grant;
  if (!grant && parent && parent->propsEvent >= 0)
    cf.grant = ev(uint32_t(parent->propsEvent)).grant;
  uint32_t ei = activateEvent(parent, caster, ability, targets, n, tagged, chain, grant);
  if (!free) {
    // Every cost priced before any is paid: the bill, payer and amount by turns.
    cf.event = cf.propsEvent = ei;
    uint32_t billAt = scratchHandles_.size();
    billing_ = true;
    for (uint32_t c = 0; c < ab.costCount; ++c) {
      const pack::Cost &cost = lp_costs[ab.costsBegin + c];
      Handle payer = cost.link != kNoId ? linkOf(caster, cost.link) : caster;
      scratchHandles_.push(payer);
      int64_t amount = price(payer, cost.pool, runBody(cost.amountBody, cf), caster, ability, ei);
      scratchHandles_.push(amount > 0 ? amount : 0);
    }
    billing_ = false;
    cf.event = cf.propsEvent = -1;
    // The payments go down the order's chain.
    Frame pay{};
    if (parent)
      pay = *parent;
    else
      pay.event = -1;
    pay.propsEvent = ei;
    uint32_t reachedFrom = reachedLater_.size();
    ++deferReached_;
    for (uint32_t c = 0; c < ab.costCount; ++c) {
      Portion p;
      clearTags(p.tags);
      p.gone = 0;
      p.amount = scratchHandles_[billAt + 2 * c + 1];
      changePool(&pay, Id(BuiltinTag::Cost), lp_costs[ab.costsBegin + c].pool,
                 scratchHandles_[billAt + 2 * c], caster, caster, &p, 1, INT64_MAX, chain, true);
    }
    --deferReached_;
    scratchHandles_.truncate(billAt);
    // What the costs' landings set off runs once the last has landed.
    for (uint32_t k = reachedFrom; k < reachedLater_.size(); ++k)
      raiseReached(reachedLater_[k]);
    reachedLater_.truncate(reachedFrom);
    // A caster its own bill destroyed goes off at nothing (docs/readings.md 119).
    if (!alive(caster))
      return Refusal::None;
  }
  Refusal r = raiseOf<Id(BuiltinEvent::Activate)>(ei);
  if (covering_)
    ++coverage_[r == Refusal::None ? LEDGER_COVER_USED : LEDGER_COVER_REFUSED][ability];
  if (r != Refusal::None)
    return r;
  cf.event = cf.propsEvent = ei;
  cf.chain = chain;
  runSteps(ab.steps, cf);
  if (!noCooldown && ab.cooldownEffect != kNoId && alive(caster)) {
    // Its length reads the activation, and its target and targets.
    Frame cooled{};
    cooled.chain = chain;
    cooled.event = cooled.propsEvent = ei;
    cooled.roots[LEDGER_SLOT_TARGET] = cf.roots[LEDGER_SLOT_TARGET];
    cooled.targets = targets;
    cooled.targetCount = n;
    applyTo(&cooled, ab.cooldownEffect, kOne, caster, caster, caster, Lifetime{}, {}, chain,
            nullptr, nullptr);
  }
  return Refusal::None;
}

// A cost as the change it will be: its formula, then the before rules on
// it, changing its amount alone; nothing lands.
int64_t World::price(Handle payer, Id pool, int64_t amount, Handle caster, Id ability,
                     int64_t order) {
  if (!shape().costHeard)
    return amount;
  uint32_t ei = newEvent(Id(BuiltinEvent::Change), payer, caster, caster, 0);
  Event &e = ev(ei);
  if (order >= 0) {
    Frame f{};
    f.propsEvent = order;
    inheritChain(e, f);
  }
  ev(ei).pool = pool;
  ev(ei).ability = ability;
  addTags(ev(ei).tags, lp_tags[Id(BuiltinTag::Cost)].closure);
  addTags(ev(ei).tags, lp_abilities[ability].tags);
  ev(ei).amount = amount;
  ev(ei).sent = amount;
  bool was = pricing_;
  pricing_ = true;
  runBefore(ei);
  pricing_ = was;
  return ev(ei).prevented ? 0 : ev(ei).amount;
}

// An order names X alone, a number: the catalogs this engine runs declare no
// properties.
Outcome World::checkProps(Id, Given given) {
  for (uint32_t k = 0; k < given.count; ++k) {
    static const char lacks[] = "a property its pack lacks";
    if (given.values[k].name != kNoId)
      return wordsOf(Refusal::BadProperty, lacks, sizeof lacks - 1);
    if (given.values[k].tag)
      return wordsOf(Refusal::BadProperty, "X", 1);
  }
  return {};
}

Outcome World::canAct(Handle a, Id ability, const Handle *targets, uint32_t n, bool targetsNamed) {
  if (ability >= shape().abilityCount)
    return refused(Refusal::NotGranted);
  return check(a, ability, targets, n, false, false, false, nullptr, targetsNamed, kNoId, {});
}

Outcome World::act(Handle a, Id ability, const Handle *targets, uint32_t n, Given given,
                   Id usingEffect) {
  if (ability >= shape().abilityCount)
    return refused(Refusal::NotGranted);
  Outcome o = checkProps(ability, given);
  if (o.ok())
    o = check(a, ability, targets, n, false, false, false, nullptr, true, usingEffect, given);
  if (!o.ok()) {
    if (covering_)
      ++coverage_[LEDGER_COVER_REFUSED][ability];
    return o;
  }
  Handle grant = 0;
  granted(a, ability, &grant, usingEffect);
  beginMoment();
  Refusal r = castAbility(nullptr, a, ability, targets, n, false, false, 0, ++chains_, grant);
  endMoment();
  if (r != Refusal::None && r != Refusal::Prevented)
    return refused(r);
  return {};
}

Outcome World::apply(Id effect, int64_t stacks, Handle to, Handle from, const Lifetime &given,
                     Given vars) {
  if (effect >= shape().effectCount)
    return refused(Refusal::Refused);
  const pack::Effect &ef = lp_effects[effect];
  for (uint32_t k = 0; k < vars.count; ++k)
    if (vars.values[k].name >= ef.varCount ||
        bool(vars.values[k].tag) != (lp_vars[ef.varsBegin + vars.values[k].name].kind == pack::VarKind::Tag))
      return refused(Refusal::Refused);
  if (!alive(to) || (from && !alive(from)))
    return refused(Refusal::Gone);
  beginMoment();
  Refusal r = applyTo(nullptr, effect, stacks, to, from, from, given, vars, ++chains_, nullptr,
                      nullptr);
  endMoment();
  return r == Refusal::None ? Outcome{} : refused(r);
}

Outcome World::remove(Id effect, Handle from, int64_t stacks) {
  if (!alive(from))
    return refused(Refusal::Gone);
  if (effect >= shape().effectCount || !holds(from, effect))
    return refused(Refusal::NotHeld);
  beginMoment();
  uint32_t keptBy[uint32_t(Refusal::Count)] = {};
  int64_t taken = removeEffect(effect, from, stacks, Id(BuiltinTag::EndRemoved), ++chains_, 0, 0,
                               keptBy);
  endMoment();
  return taken == 0 && keptBy[uint32_t(Refusal::Blocked)] > 0 ? refused(Refusal::Blocked)
                                                               : Outcome{};
}

Outcome World::raise(Id event, Handle of, Handle by) {
  if (event < Id(BuiltinEvent::Count) || event >= shape().eventCount)
    return refused(Refusal::Refused);
  if (!alive(of) || (by && !alive(by)))
    return refused(Refusal::Gone);
  beginMoment();
  Refusal r = raiseOn(nullptr, event, of, by ? by : of, 0, ++chains_);
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

Outcome World::deal(int64_t amount, Handle to, Handle from, const uint32_t *types, uint32_t n) {
  if (!alive(to) || (from && !alive(from)))
    return refused(Refusal::Gone);
  if (shape().damagePool == kNoId || !hasPool(to, shape().damagePool))
    return refused(Refusal::NoPool);
  for (uint32_t k = 0; k < n; ++k)
    if (types[k] >= shape().tagSetCount)
      return refused(Refusal::Refused);
  Portion p;
  clearTags(p.tags);
  p.gone = 0;
  p.amount = amount;
  for (uint32_t k = 0; k < n; ++k)
    addTags(p.tags, types[k]);
  beginMoment();
  Refusal r = changePool(nullptr, Id(BuiltinTag::Damage), shape().damagePool, to, from, from, &p,
                         1, INT64_MAX, ++chains_);
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

Outcome World::setPool(Handle a, Id pool, int64_t amount) {
  if (!alive(a))
    return refused(Refusal::Gone);
  if (!hasPool(a, pool))
    return refused(Refusal::NoPool);
  Portion p;
  clearTags(p.tags);
  p.gone = 0;
  p.amount = amount;
  beginMoment();
  Refusal r = changePool(nullptr, Id(BuiltinTag::Set), pool, a, 0, 0, &p, 1, INT64_MAX, ++chains_);
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

Outcome World::destroy(Handle a) {
  if (!alive(a))
    return refused(Refusal::Gone);
  beginMoment();
  Refusal r = destroyActor(a, ++chains_);
  endMoment();
  return r == Refusal::None || r == Refusal::Prevented ? Outcome{} : refused(r);
}

// A link set by an order is a moment of its own: an auto sleeping on it
// wakes as it ends.
Outcome World::link(Handle a, Id l, Handle to) {
  if (l >= shape().linkCount)
    return refused(Refusal::Refused);
  if ((!lp_links[l].global && !alive(a)) || (to && !alive(to)))
    return refused(Refusal::Gone);
  beginMoment();
  if (lp_links[l].global) {
    setLink(globals_[l], to, true);
    ++epoch_;
  } else {
    touch(a);
    setLink(linkSlot(indexOf(a), l), to, true);
  }
  shapeMoved(lp_links[l].global ? 0 : a);
  endMoment();
  return {};
}

} // namespace ledger::cw

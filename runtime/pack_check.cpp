// The checks a pack's tables pass as they are read back, so that nothing an
// engine reads of them can point outside them or run without end: a damaged
// or foreign blob is refused whole, never half used. Pass by pass, each only
// once those before hold, as each reads what they checked: the header, every
// index, expressions first to last, steps last to first, then every body in
// each place that runs it.
#include "pack_check.h"

#include "pack_abi.h"
#include "refusals.h"

#include <algorithm>

namespace ledger::pack {

namespace {

// What a stretch of a body asks of the frame running it: locals below
// `locals`, vars below `vars`; and how deep it nests.
struct Need {
  uint64_t locals = 0, vars = 0;
  uint32_t depth = 0;
  void add(const Need &other) {
    locals = std::max(locals, other.locals);
    vars = std::max(vars, other.vars);
    depth = std::max(depth, other.depth);
  }
};

// A frame: the locals it has, the vars of whatever runs it (an effect's
// instance, or none).
struct Frame {
  uint64_t locals = LEDGER_SLOT_FIRST_LOCAL;
  uint64_t vars = 0;
};

// The operands an action's step reads, in the order Kernel::runAction reads
// them: its targets' query's, then each its flags and lists say.
uint64_t operandsOf(const Action &a) {
  auto has = [&](uint32_t flag) { return uint64_t((a.flags & flag) != 0); };
  uint64_t query = a.queryArgCount;
  switch (a.op) {
  case ActionOp::Deal:
  case ActionOp::Heal:
    return query + std::min(a.listCount, kMaxPortions) + has(kHasUpTo) + has(kHasFrom) +
           a.withCount;
  case ActionOp::Gain:
  case ActionOp::Lose:
  case ActionOp::SetPool:
    return query + 1 + has(kHasUpTo) + a.withCount;
  case ActionOp::Apply:
    return query + has(kHasStacks) + (has(kForTime) | has(kForTurns) | has(kForCount)) +
           has(kHasFrom) + a.withCount;
  case ActionOp::RemoveEffect:
  case ActionOp::RemoveTag:
  case ActionOp::RemoveCooldown:
  case ActionOp::RemoveHandle:
    return query + (a.op == ActionOp::RemoveHandle) +
           (a.op == ActionOp::RemoveCooldown && a.a == kNoId) + has(kHasCount);
  case ActionOp::SetInstanceVar:
    return 2;
  case ActionOp::Raise:
    return query + has(kHasBy);
  case ActionOp::Create:
    return query + has(kHasCount) + a.withCount;
  case ActionOp::Destroy:
    return query;
  case ActionOp::Revive:
    return query + has(kHasAmount);
  case ActionOp::Cast:
    return has(kAgain) ? 0 : query + !has(kGranted) + a.withCount;
  case ActionOp::SetLink:
    return query + !has(kToNone);
  case ActionOp::ScaleDuration:
  case ActionOp::AddDuration:
  case ActionOp::AtMostDuration:
    return query + 1 + has(kHasOn);
  case ActionOp::AddAmount:
  case ActionOp::Reduce:
  case ActionOp::AtMost:
  case ActionOp::AtLeast:
  case ActionOp::SetProp:
    return query + 1;
  case ActionOp::Absorb:
    return query + has(kHasUpTo);
  case ActionOp::Redirect:
    return query + has(kHasOn);
  case ActionOp::Prevent:
  case ActionOp::Convert:
  case ActionOp::Scale:
    return 0;
  }
  return 0;
}

// The operands an expression evaluates (a, then b, then c): none, one, two
// or three.
uint32_t operandsOf(ExprOp op) {
  switch (op) {
  case ExprOp::Const:
  case ExprOp::Local:
  case ExprOp::Var:
  case ExprOp::Read:
  case ExprOp::Fold:
    return 0;
  case ExprOp::Neg:
  case ExprOp::Not:
  case ExprOp::Floor:
  case ExprOp::Ceil:
  case ExprOp::Round:
  case ExprOp::Trunc:
  case ExprOp::Abs:
  case ExprOp::Pow:
  case ExprOp::Root:
    return 1;
  case ExprOp::Clamp:
  case ExprOp::If:
    return 3;
  default:
    return 2;
  }
}

// The locals an action writes its counts to (`as NAME`, what a prevent or
// an absorb took): from resultSlot, this many; none where it writes none.
uint64_t resultsOf(const Action &a) {
  bool counts = a.op == ActionOp::Apply || a.op == ActionOp::Cast ||
                a.op == ActionOp::RemoveEffect || a.op == ActionOp::RemoveTag ||
                a.op == ActionOp::RemoveCooldown || a.op == ActionOp::RemoveHandle;
  if ((a.flags & kHasAs) && counts)
    return rt::kResultSlots;
  if ((a.flags & kHasAs) && a.op == ActionOp::Create)
    return 1;
  if ((a.op == ActionOp::Prevent || a.op == ActionOp::Absorb) && a.resultSlot != kNoId)
    return 1;
  return 0;
}

class Checker {
public:
  explicit Checker(const Tables &t) : t_(t) {}

  bool run(std::string &why) {
    header();
    if (why_.empty())
      indices();
    if (why_.empty())
      expressions();
    if (why_.empty())
      steps();
    if (why_.empty())
      places();
    why = why_;
    return why_.empty();
  }

private:
  const Tables &t_;
  std::string why_;
  std::vector<Need> exprNeeds_, stepNeeds_;

  bool fail(const std::string &what) {
    if (why_.empty())
      why_ = what;
    return false;
  }
  bool in(uint64_t id, size_t size, const char *what, bool optional = true) {
    if ((optional && id == kNoId) || id < size)
      return true;
    return fail(std::string("an index into ") + what + " points past its end");
  }
  bool range(uint32_t begin, uint32_t count, size_t size, const char *what) {
    if (uint64_t(begin) + count <= size)
      return true;
    return fail(std::string("a range of ") + what + " runs past its end");
  }
  // Each id of a list in idLists, checked against its table.
  bool list(uint32_t begin, uint32_t count, size_t size, const char *what) {
    if (!range(begin, count, t_.idLists.size(), "lists"))
      return false;
    for (uint32_t k = 0; k < count; ++k)
      if (!in(t_.idLists[begin + k], size, what, false))
        return false;
    return true;
  }
  template <typename E> bool known(E value, E last, const char *what) {
    if (value <= last)
      return true;
    return fail(std::string("its ") + what + " is of no kind this runtime knows");
  }
  size_t tagSets() const { return t_.tagBits.size() / std::max<uint32_t>(t_.tagWords, 1); }
  bool tagSet(TagSet set) { return in(set, tagSets(), "tag sets", false); }
  bool body(Id id) { return in(id, t_.bodies.size(), "bodies"); }

  // ---- the header and every index -----------------------------------------

  void header() {
    if (t_.tagWords == 0 || t_.tagBits.empty() || t_.tagBits.size() % t_.tagWords != 0)
      fail("its tag sets are malformed");
    else if (t_.tagWords > LEDGER_EVENT_TAG_WORDS || t_.tags.size() > size_t(t_.tagWords) * 64)
      fail("its tags are more than an event carries");
    if (t_.events.size() < size_t(BuiltinEvent::Count) ||
        t_.tags.size() < size_t(BuiltinTag::Count))
      fail("it lacks the built-in events and tags");
    // A tick of up to a million units, as a catalog's rate gives one (docs/readings.md 135).
    if (t_.unitsPerTick < 1 || t_.unitsPerTick > 1'000'000 || t_.unitsPerSecond < 1)
      fail("its rate is malformed");
    in(t_.timeStat, t_.values.size(), "values");
    in(t_.allegiance, t_.links.size(), "links");
    in(t_.damagePool, t_.values.size(), "values");
    in(t_.turnEvent, t_.events.size(), "events");
  }

  void filter(const Filter &f) {
    in(f.event, t_.events.size(), "events");
    in(f.tag, t_.tags.size(), "tags");
    in(f.pool, t_.values.size(), "values");
    tagSet(f.having);
    tagSet(f.unless);
    for (const WhoClause *w : {&f.of, &f.by, &f.credited, &f.targeting}) {
      known(w->who, Who::Others, "who");
      body(w->body);
    }
  }

  void indices() {
    for (Id g = 0; g < t_.tags.size(); ++g) {
      const Tag &tag = t_.tags[g];
      in(tag.name, t_.names.size(), "names", false);
      // A parent comes before its children: a walk up the tags ends.
      in(tag.parent, g, "tags");
      tagSet(tag.closure);
    }
    for (const Event &e : t_.events)
      in(e.name, t_.names.size(), "names", false);
    for (const Value &v : t_.values) {
      in(v.name, t_.names.size(), "names", false);
      known(v.kind, ValueKind::Pool, "value");
      known(v.whole, Rounding::Trunc, "rounding");
      known(v.rise, Rise::Heal, "rise");
      in(v.member, t_.values.size(), "values");
      in(v.memberTag, t_.tags.size(), "tags", v.member == kNoId);
      body(v.minBody);
      body(v.maxBody);
      in(v.regenStat, t_.values.size(), "values");
      body(v.regenPeriodBody);
      body(v.refillPeriodBody);
    }
    for (const Link &l : t_.links)
      in(l.name, t_.names.size(), "names", false);
    for (const Prop &p : t_.props) {
      in(p.name, t_.names.size(), "names", false);
      known(p.kind, PropKind::Tag, "property");
      in(p.under, t_.tags.size(), "tags");
      tagSet(p.among);
    }
    for (const Curve &c : t_.curves)
      range(c.pointsBegin, c.pointCount, t_.curvePoints.size(), "curve points");
    for (const Effect &e : t_.effects)
      effect(e);
    for (const AutoGrant &g : t_.autos) {
      in(g.ability, t_.abilities.size(), "abilities", false);
      range(g.keysBegin, g.keyCount, t_.sortKeys.size(), "sort keys");
    }
    for (const SortKey &k : t_.sortKeys) {
      known(k.kind, SortKeyKind::Oldest, "sort key");
      in(k.tag, t_.tags.size(), "tags", k.kind != SortKeyKind::Tag);
      body(k.body);
    }
    for (const Var &v : t_.vars) {
      known(v.kind, VarKind::Instance, "var");
      body(v.initBody);
    }
    for (const Block &b : t_.blocks) {
      in(b.event, t_.events.size(), "events");
      tagSet(b.tags);
      tagSet(b.having);
      tagSet(b.unless);
      known(b.from.who, Who::Others, "who");
      body(b.from.body);
    }
    for (const LinkOverride &o : t_.linkOverrides) {
      in(o.link, t_.links.size(), "links", false);
      body(o.actorBody);
    }
    for (const Modifier &m : t_.modifiers) {
      in(m.stat, t_.values.size(), "values", false);
      known(m.op, ModOp::AtMost, "modifier");
      in(m.category, t_.categories.size(), "categories");
      body(m.amountBody);
    }
    for (Id r = 0; r < t_.rules.size(); ++r)
      rule(r);
    for (const Ability &a : t_.abilities)
      ability(a);
    for (const Cost &c : t_.costs) {
      in(c.pool, t_.values.size(), "values", false);
      body(c.amountBody);
      in(c.link, t_.links.size(), "links");
    }
    for (const Requirement &r : t_.requirements) {
      body(r.body);
      body(r.leftBody);
      body(r.rightBody);
      in(r.text, t_.names.size(), "names");
    }
    for (const Archetype &a : t_.archetypes)
      archetype(a);
    for (const ArchetypeValue &v : t_.archetypeValues) {
      body(v.body);
      in(v.link, t_.links.size(), "links");
    }
    for (const Body &b : t_.bodies) {
      known(b.kind, BodyKind::Steps, "body");
      if (b.kind == BodyKind::Formula)
        in(b.root, t_.exprs.size(), "expressions", false);
      else if (b.stepsBegin > b.stepsEnd)
        fail("a body's steps are malformed");
      else
        range(b.stepsBegin, b.stepsEnd - b.stepsBegin, t_.steps.size(), "steps");
    }
    for (const Expr &e : t_.exprs) {
      known(e.op, ExprOp::Fold, "expression");
      for (Id k : {e.a, e.b, e.c})
        in(k, t_.exprs.size(), "expressions");
      range(e.argsBegin, e.argCount, t_.exprArgs.size(), "arguments");
      if (e.op == ExprOp::Read)
        in(uint64_t(e.imm), t_.reads.size(), "reads", false);
      if (e.op == ExprOp::Fold)
        in(uint64_t(e.imm), t_.folds.size(), "folds", false);
    }
    for (uint32_t a : t_.exprArgs)
      in(a, t_.exprs.size(), "expressions", false);
    for (const Fold &f : t_.folds) {
      known(f.kind, FoldKind::Count, "fold");
      in(f.query, t_.queries.size(), "queries", false);
      in(f.item, t_.exprs.size(), "expressions");
    }
    for (const Read &r : t_.reads)
      read(r);
    for (const Query &q : t_.queries)
      query(q);
    for (const Step &s : t_.steps) {
      known(s.op, StepOp::Action, "step");
      range(s.argsBegin, s.argCount, t_.exprArgs.size(), "arguments");
      if (s.bodyBegin > s.bodyEnd || s.elseBegin > s.elseEnd)
        fail("a step's body is malformed");
      range(s.bodyBegin, s.bodyEnd - s.bodyBegin, t_.steps.size(), "steps");
      range(s.elseBegin, s.elseEnd - s.elseBegin, t_.steps.size(), "steps");
      if (s.op == StepOp::Action)
        in(s.info, t_.actions.size(), "actions", false);
      if (s.op == StepOp::ForEach)
        in(s.info, t_.queries.size(), "queries", false);
    }
    for (const Action &a : t_.actions)
      action(a);
  }

  void effect(const Effect &e) {
    in(e.name, t_.names.size(), "names", false);
    tagSet(e.tags);
    tagSet(e.exclusive);
    tagSet(e.suspendsExcept);
    known(e.stack.mode, StackMode::Replace, "stacking");
    known(e.stack.full, FullMode::Refresh, "stacking");
    known(e.lasts.kind, LastsKind::Count, "lifetime");
    known(e.clock, ClockKind::Stat, "clock");
    range(e.varsBegin, e.varCount, t_.vars.size(), "vars");
    list(e.grantsBegin, e.grantCount, t_.abilities.size(), "abilities");
    range(e.autosBegin, e.autoCount, t_.autos.size(), "autos");
    list(e.grantVarsBegin, e.grantVarCount, e.varCount, "an effect's vars");
    range(e.blocksBegin, e.blockCount, t_.blocks.size(), "blocks");
    range(e.overridesBegin, e.overrideCount, t_.linkOverrides.size(), "link overrides");
    range(e.modifiersBegin, e.modifierCount, t_.modifiers.size(), "modifiers");
    range(e.rulesBegin, e.ruleCount, t_.rules.size(), "rules");
    body(e.stack.maxBody);
    body(e.stack.strongerBody);
    body(e.lasts.timeBody);
    body(e.lasts.countBody);
    filter(e.lasts.countFilter);
    body(e.lasts.countMatchBody);
    in(e.clockStat, t_.values.size(), "values");
    in(e.diesPool, t_.values.size(), "values");
    in(e.diesEvent, t_.events.size(), "events");
    in(e.fallsPool, t_.values.size(), "values");
    in(e.fallsEvent, t_.events.size(), "events");
    body(e.orderBody);
    if (why_.empty())
      for (uint32_t b = 0; b < e.blockCount; ++b)
        in(t_.blocks[e.blocksBegin + b].havingVar, e.varCount, "an effect's vars");
  }

  // A rule stands among its own effect's: what runs it is an instance of that.
  void rule(Id r) {
    const Rule &rule = t_.rules[r];
    known(rule.kind, RuleKind::Each, "rule");
    if (!in(rule.owner, t_.effects.size(), "effects", false))
      return;
    const Effect &owner = t_.effects[rule.owner];
    if (r < owner.rulesBegin || r - owner.rulesBegin >= owner.ruleCount)
      fail("a rule stands outside its effect's");
    filter(rule.filter);
    in(rule.stage, t_.stages.size(), "stages");
    body(rule.whenBody);
    body(rule.matchBody);
    body(rule.steps);
    body(rule.intervalBody);
    body(rule.countBody);
    tagSet(rule.having);
    tagSet(rule.unless);
  }

  void ability(const Ability &a) {
    in(a.name, t_.names.size(), "names", false);
    known(a.target, TargetKind::Direction, "target");
    known(a.side, Side::Ally, "side");
    tagSet(a.tags);
    tagSet(a.targetHaving);
    tagSet(a.targetUnless);
    body(a.withinBody);
    list(a.takesBegin, a.takeCount, t_.props.size(), "properties");
    list(a.listedBegin, a.listedCount, t_.tags.size(), "tags");
    range(a.requiresBegin, a.requireCount, t_.requirements.size(), "requirements");
    range(a.costsBegin, a.costCount, t_.costs.size(), "costs");
    in(a.cooldownEffect, t_.effects.size(), "effects");
    body(a.steps);
  }

  // Its bases are stats', its withs pools' or links', what it has effects'.
  void archetype(const Archetype &a) {
    in(a.name, t_.names.size(), "names", false);
    tagSet(a.tags);
    auto values = [&](uint32_t begin, uint32_t count, size_t size, const char *what,
                      bool optional) {
      if (range(begin, count, t_.archetypeValues.size(), "archetype values"))
        for (uint32_t k = 0; k < count; ++k)
          in(t_.archetypeValues[begin + k].value, size, what, optional);
    };
    values(a.basesBegin, a.baseCount, t_.values.size(), "values", false);
    values(a.withBegin, a.withCount, t_.values.size(), "values", true);
    values(a.hasBegin, a.hasCount, t_.effects.size(), "effects", false);
    list(a.poolsBegin, a.poolCount, t_.values.size(), "values");
    list(a.fullBegin, a.fullCount, t_.values.size(), "values");
    list(a.grantsBegin, a.grantCount, t_.abilities.size(), "abilities");
    list(a.givesBegin, a.giveCount, t_.effects.size(), "effects");
    range(a.autosBegin, a.autoCount, t_.autos.size(), "autos");
  }

  // What each read names, by what it reads.
  void read(const Read &r) {
    known(r.op, ReadOp::EventTargeting, "read");
    tagSet(r.tags);
    switch (r.op) {
    case ReadOp::Value:
    case ReadOp::ValueExcept:
      in(r.a, t_.values.size(), "values", false);
      break;
    case ReadOp::Link:
    case ReadOp::GlobalLink:
      in(r.a, t_.links.size(), "links", false);
      break;
    case ReadOp::Curve:
      in(r.a, t_.curves.size(), "curves", false);
      break;
    case ReadOp::Has:
    case ReadOp::Stacks:
    case ReadOp::HighestStacks:
    case ReadOp::CountEffect:
      in(r.a, t_.effects.size(), "effects", r.op == ReadOp::Has);
      break;
    case ReadOp::EventProp:
      in(r.a, t_.props.size(), "properties", false);
      break;
    case ReadOp::ArchetypeStat:
      in(r.a, t_.archetypes.size(), "archetypes", false);
      in(r.b, t_.values.size(), "values");
      break;
    case ReadOp::Portion:
      in(r.a, t_.tags.size(), "tags", r.b == kTagOperand);
      break;
    case ReadOp::FirstOf:
      in(r.a, t_.queries.size(), "queries", false);
      break;
    default:
      break;
    }
  }

  void query(const Query &q) {
    known(q.kind, QueryKind::Held, "query");
    known(q.quantifier, Quantifier::NRandom, "quantifier");
    known(q.subject, Subject::Others, "subject");
    tagSet(q.having);
    tagSet(q.unless);
    body(q.whenBody);
    in(q.effect, t_.effects.size(), "effects");
    if (range(q.keysBegin, q.keyCount, t_.sortKeys.size(), "sort keys"))
      keys(q.keysBegin, q.keyCount, q.kind == QueryKind::Held);
  }

  // Newest and oldest rank instances, which only a held(...) finds.
  void keys(uint32_t begin, uint32_t count, bool instances) {
    for (uint32_t k = 0; k < count; ++k) {
      SortKeyKind kind = t_.sortKeys[begin + k].kind;
      if (!instances && (kind == SortKeyKind::Newest || kind == SortKeyKind::Oldest))
        fail("a list of actors is ranked by what ranks instances");
    }
  }

  // What each action names, by what it does.
  void action(const Action &a) {
    known(a.op, ActionOp::Redirect, "action");
    range(a.listBegin, a.listCount, t_.idLists.size(), "lists");
    range(a.withBegin, a.withCount, t_.idLists.size(), "lists");
    tagSet(a.tags);
    in(a.query, t_.queries.size(), "queries");
    bool tagInVar = a.flags & kTagInVar;
    switch (a.op) {
    case ActionOp::Deal:
    case ActionOp::Heal:
      if (why_.empty())
        for (uint32_t p = 0; p < std::min(a.listCount, kMaxPortions); ++p)
          tagSet(t_.idLists[a.listBegin + p]);
      break;
    case ActionOp::Gain:
    case ActionOp::Lose:
    case ActionOp::SetPool:
      in(a.a, t_.values.size(), "values", false);
      break;
    case ActionOp::Apply:
      in(a.a, t_.effects.size(), "effects", false);
      in(a.b, t_.events.size(), "events");
      if (why_.empty())
        for (uint32_t w = 0; w < a.withCount; ++w)
          in(t_.idLists[a.withBegin + w], t_.effects[a.a].varCount, "an effect's vars", false);
      break;
    case ActionOp::RemoveEffect:
      in(a.a, t_.effects.size(), "effects");
      break;
    case ActionOp::RemoveTag:
      tagSet(a.c);
      break;
    case ActionOp::RemoveCooldown:
      in(a.a, t_.abilities.size(), "abilities");
      break;
    case ActionOp::Raise:
      in(a.a, t_.events.size(), "events", false);
      break;
    case ActionOp::Create:
      in(a.a, t_.archetypes.size(), "archetypes", false);
      if (why_.empty())
        for (uint32_t w = 0; w < a.withCount; ++w) {
          Id with = t_.idLists[a.withBegin + w];
          if (with & kWithLink)
            in(with & ~kWithLink, t_.links.size(), "links", false);
        }
      break;
    case ActionOp::Cast:
      if (a.flags & kGranted) {
        in(a.a, t_.effects.size(), "effects", false);
        tagSet(a.c);
      }
      break;
    case ActionOp::SetLink:
      in(a.a, t_.links.size(), "links", false);
      break;
    case ActionOp::ScaleDuration:
    case ActionOp::AddDuration:
    case ActionOp::AtMostDuration:
      in(a.b, t_.events.size(), "events");
      break;
    case ActionOp::Convert:
      in(a.a, t_.tags.size(), "tags", false);
      if (!tagInVar)
        in(a.b, t_.tags.size(), "tags");
      body(a.c);
      break;
    case ActionOp::Scale:
      body(a.c);
      break;
    case ActionOp::AddAmount:
      if (!tagInVar)
        in(a.a, t_.tags.size(), "tags");
      break;
    case ActionOp::Absorb:
      if (a.flags & kIntoPool)
        in(a.a, t_.values.size(), "values", false);
      break;
    case ActionOp::Redirect:
      in(a.a, t_.values.size(), "values");
      break;
    default:
      break;
    }
  }

  // ---- expressions, first to last ------------------------------------------

  // A formula body within a stretch: its kind, and that it reads only what
  // stands before `before` (an expression, so nothing reads itself).
  bool formulaWithin(Id id, uint64_t before, Need &need) {
    if (id == kNoId)
      return true;
    const Body &b = t_.bodies[id];
    if (b.kind != BodyKind::Formula)
      return fail("a formula's place names a body of steps");
    if (b.root >= before)
      return fail("an expression reads one after it");
    need.add(exprNeeds_[b.root]);
    return true;
  }

  // What the frame running a query's bodies needs: they run in it, one
  // candidate at a time.
  bool queryWithin(Id q, uint64_t before, Need &need) {
    const Query &query = t_.queries[q];
    if (!formulaWithin(query.whenBody, before, need))
      return false;
    for (uint32_t k = 0; k < query.keyCount; ++k) {
      const SortKey &key = t_.sortKeys[query.keysBegin + k];
      bool ranks = key.kind == SortKeyKind::Highest || key.kind == SortKeyKind::Lowest;
      if (ranks && key.body == kNoId)
        return fail("a key ranks by no formula");
      if (!formulaWithin(key.body, before, need))
        return false;
    }
    return true;
  }

  // Each expression reads only those before it, and is read by one at most:
  // a formula is a tree, evaluated in time linear in its size.
  void expressions() {
    exprNeeds_.assign(t_.exprs.size(), {});
    std::vector<uint8_t> read(t_.exprs.size(), 0);
    auto operand = [&](Id k, Id e, Need &need) {
      if (k == kNoId)
        return true;
      if (k >= e)
        return fail("an expression reads one after it");
      if (read[k]++)
        return fail("an expression is read twice");
      need.add(exprNeeds_[k]);
      return true;
    };
    for (Id e = 0; e < t_.exprs.size() && why_.empty(); ++e) {
      const Expr &x = t_.exprs[e];
      Need need;
      Id abc[] = {x.a, x.b, x.c};
      for (uint32_t k = 0; k < 3; ++k)
        if (k < operandsOf(x.op) && abc[k] == kNoId)
          fail("an expression lacks an operand");
        else
          operand(abc[k], e, need);
      for (uint32_t i = 0; i < x.argCount; ++i)
        operand(t_.exprArgs[x.argsBegin + i], e, need);
      switch (x.op) {
      case ExprOp::Local:
        if (x.imm < 0 || x.imm >= int64_t(kNoId))
          fail("an expression reads no local");
        need.locals = std::max(need.locals, uint64_t(x.imm) + 1);
        break;
      case ExprOp::Var:
        if (x.imm < 0 || x.imm >= int64_t(kNoId))
          fail("an expression reads no var");
        need.vars = std::max(need.vars, uint64_t(x.imm) + 1);
        break;
      case ExprOp::Read:
        if (t_.reads[x.imm].op == ReadOp::FirstOf)
          queryWithin(t_.reads[x.imm].a, e, need);
        break;
      case ExprOp::Fold: {
        const Fold &f = t_.folds[x.imm];
        if (f.kind != FoldKind::Count && f.item == kNoId)
          fail("a fold reads no formula of each it finds");
        operand(f.item, e, need);
        queryWithin(f.query, e, need);
        break;
      }
      default:
        break;
      }
      if (++need.depth > kMostNesting)
        fail("a formula nests past what one holds");
      exprNeeds_[e] = need;
    }
  }

  // ---- steps, last to first --------------------------------------------------

  // What an action asks of its step's frame, beside its operands.
  void actionNeeds(const Action &a, Need &need) {
    if (a.query != kNoId)
      queryWithin(a.query, t_.exprs.size(), need);
    if (a.op == ActionOp::Convert || a.op == ActionOp::Scale)
      if (a.c == kNoId || !formulaWithin(a.c, t_.exprs.size(), need))
        fail("a change of the amount reads no formula");
    if (uint64_t results = resultsOf(a)) {
      if (a.resultSlot == kNoId)
        fail("an action counts into no local");
      need.locals = std::max(need.locals, uint64_t(a.resultSlot) + results);
    }
    // A var holding a tag, or one an absorb draws on: the running instance's.
    Id var = kNoId;
    if (a.flags & kTagInVar)
      var = a.op == ActionOp::Convert                                    ? a.b
            : a.op == ActionOp::RemoveTag || a.op == ActionOp::AddAmount ? a.a
                                                                         : kNoId;
    if (a.op == ActionOp::Absorb && (a.flags & kIntoVar))
      var = a.a;
    if (var != kNoId)
      need.vars = std::max(need.vars, uint64_t(var) + 1);
  }

  // Each step's body and else follow it, and each step stands in one list
  // of steps at most: steps are a tree, run in time linear in their size.
  void steps() {
    stepNeeds_.assign(t_.steps.size(), {});
    std::vector<uint8_t> listed(t_.steps.size(), 0);
    auto list = [&](uint32_t begin, uint32_t end, Need &need) {
      for (uint32_t c = begin; c < end; ++c) {
        if (listed[c]++)
          return fail("a step stands in two bodies");
        need.add(stepNeeds_[c]);
      }
      return true;
    };
    auto children = [&](uint32_t s, uint32_t begin, uint32_t end, Need &need) {
      if (begin != end && begin <= s)
        return fail("a step's body comes before it");
      return list(begin, end, need);
    };
    for (uint32_t s = uint32_t(t_.steps.size()); s-- > 0 && why_.empty();) {
      const Step &step = t_.steps[s];
      Need need;
      children(s, step.bodyBegin, step.bodyEnd, need);
      children(s, step.elseBegin, step.elseEnd, need);
      for (uint32_t i = 0; i < step.argCount; ++i)
        need.add(exprNeeds_[t_.exprArgs[step.argsBegin + i]]);
      uint64_t operands = 0;
      switch (step.op) {
      case StepOp::If:
      case StepOp::Repeat:
        operands = 1;
        break;
      case StepOp::ForEach:
        queryWithin(step.info, t_.exprs.size(), need);
        need.locals = std::max(need.locals, uint64_t(step.slot) + 1);
        break;
      case StepOp::Let:
        operands = 1;
        need.locals = std::max(need.locals, uint64_t(step.slot) + 1);
        break;
      case StepOp::SetVar:
        operands = 1;
        need.vars = std::max(need.vars, uint64_t(step.slot) + 1);
        break;
      case StepOp::Action:
        operands = operandsOf(t_.actions[step.info]);
        actionNeeds(t_.actions[step.info], need);
        break;
      }
      if (step.argCount < operands)
        fail("a step has fewer operands than it reads");
      if (++need.depth > kMostNesting)
        fail("steps nest past what a body holds");
      stepNeeds_[s] = need;
    }
    Need top;
    for (const Body &b : t_.bodies)
      if (b.kind == BodyKind::Steps && why_.empty())
        list(b.stepsBegin, b.stepsEnd, top);
  }

  // ---- every body in each place that runs it ---------------------------------

  bool fits(const Need &need, const Frame &frame) {
    if (need.locals > frame.locals)
      return fail("a body reads a local its frame lacks");
    if (need.vars > frame.vars)
      return fail("a body reads a var its frame lacks");
    return true;
  }
  // A formula in a place of its own runs in its caller's frame: the roots.
  void formula(Id id, const Frame &frame) {
    Need need;
    if (formulaWithin(id, t_.exprs.size(), need))
      fits(need, frame);
  }
  // Steps run in a frame of their own, their names above the roots.
  void stepsBody(Id id, Frame frame) {
    if (id == kNoId)
      return;
    const Body &b = t_.bodies[id];
    if (b.kind != BodyKind::Steps) {
      fail("a place for steps names a formula");
      return;
    }
    if (b.localCount > kLocalSlots - LEDGER_SLOT_FIRST_LOCAL) {
      fail("a body names more than a world's rules hold");
      return;
    }
    frame.locals += b.localCount;
    Need need;
    for (uint32_t s = b.stepsBegin; s < b.stepsEnd; ++s)
      need.add(stepNeeds_[s]);
    fits(need, frame);
  }
  void filterPlaces(const Filter &f, const Frame &frame) {
    for (const WhoClause *w : {&f.of, &f.by, &f.credited, &f.targeting})
      formula(w->body, frame);
  }
  void autoPlaces(uint32_t begin, uint32_t count, const Frame &frame) {
    for (uint32_t g = begin; g < begin + count; ++g) {
      const AutoGrant &grant = t_.autos[g];
      keys(grant.keysBegin, grant.keyCount, false);
      for (uint32_t k = grant.keysBegin; k < grant.keysBegin + grant.keyCount; ++k)
        formula(t_.sortKeys[k].body, frame);
    }
  }

  void places() {
    const Frame none;
    for (const Effect &e : t_.effects) {
      Frame own{LEDGER_SLOT_FIRST_LOCAL, e.varCount};
      formula(e.stack.maxBody, own);
      formula(e.stack.strongerBody, own);
      formula(e.lasts.timeBody, own);
      formula(e.lasts.countBody, own);
      formula(e.lasts.countMatchBody, own);
      filterPlaces(e.lasts.countFilter, own);
      formula(e.orderBody, own);
      for (uint32_t v = e.varsBegin; v < e.varsBegin + e.varCount; ++v)
        formula(t_.vars[v].initBody, own);
      for (uint32_t b = e.blocksBegin; b < e.blocksBegin + e.blockCount; ++b)
        formula(t_.blocks[b].from.body, own);
      for (uint32_t o = e.overridesBegin; o < e.overridesBegin + e.overrideCount; ++o)
        formula(t_.linkOverrides[o].actorBody, own);
      for (uint32_t m = e.modifiersBegin; m < e.modifiersBegin + e.modifierCount; ++m)
        formula(t_.modifiers[m].amountBody, own);
      autoPlaces(e.autosBegin, e.autoCount, own);
    }
    for (const Rule &r : t_.rules) {
      Frame own{LEDGER_SLOT_FIRST_LOCAL, t_.effects[r.owner].varCount};
      filterPlaces(r.filter, own);
      formula(r.whenBody, own);
      formula(r.matchBody, own);
      formula(r.intervalBody, own);
      formula(r.countBody, own);
      stepsBody(r.steps, own);
    }
    for (const Value &v : t_.values)
      for (Id b : {v.minBody, v.maxBody, v.regenPeriodBody, v.refillPeriodBody})
        formula(b, none);
    for (const Ability &a : t_.abilities) {
      formula(a.withinBody, none);
      stepsBody(a.steps, none);
    }
    for (const Cost &c : t_.costs)
      formula(c.amountBody, none);
    for (const Requirement &r : t_.requirements)
      for (Id b : {r.body, r.leftBody, r.rightBody})
        formula(b, none);
    for (const ArchetypeValue &v : t_.archetypeValues)
      formula(v.body, none);
    for (const Archetype &a : t_.archetypes)
      autoPlaces(a.autosBegin, a.autoCount, none);
  }
};

} // namespace

bool checkTables(const Tables &tables, std::string &why) { return Checker(tables).run(why); }

} // namespace ledger::pack

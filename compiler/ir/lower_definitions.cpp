// Lowering, definitions: effects, abilities and archetypes from their parts
// (their parent's, their template's, their own and their extends' lines, in
// that order), and the run that lowers a whole catalog.
#include "ir/lowerer.h"

#include "pack_abi.h"

#include <algorithm>
#include <functional>
#include <tuple>

namespace ledger::ir {

static bool isStepForm(FormKind k) {
  switch (k) {
  case FormKind::StepIf: case FormKind::StepElse: case FormKind::StepForEach:
  case FormKind::StepDeal: case FormKind::StepHeal: case FormKind::StepGain:
  case FormKind::StepLose: case FormKind::StepSetLink: case FormKind::StepSet:
  case FormKind::StepApply: case FormKind::StepRemove: case FormKind::StepRaise:
  case FormKind::StepCreate: case FormKind::StepDestroy: case FormKind::StepRevive:
  case FormKind::StepStop: case FormKind::StepLet: case FormKind::StepSelf:
  case FormKind::StepRepeat: case FormKind::StepCast: case FormKind::StepPick:
  case FormKind::StepOutcome: case FormKind::StepRequest: case FormKind::StepCopy:
  case FormKind::StepMove: case FormKind::StepDraw: case FormKind::StepShuffle:
  case FormKind::StepBecome: case FormKind::BeforeScaleDuration:
  case FormKind::BeforeAddDuration: case FormKind::BeforeAtMost:
    return true;
  default:
    return false;
  }
}

pack::WhoClause Lowerer::lowerWho(NodeId n, std::string_view label, BodyScope &scope) {
  WhoClause w;
  const Slot *s = tree_.slot(n, label);
  if (!s)
    return w;
  NodeId who = s->value;
  std::string side = slotText(who, "side");
  if (side.empty()) {
    std::string actor = slotText(who, "actor");
    if (actor == "holder") {
      w.who = Who::Holder;
      return w;
    }
    w.who = Who::Actor;
    w.body = pathBody(who, "actor", scope);
    return w;
  }
  w.who = side == "anyone"                 ? Who::Anyone
          : side.starts_with("enem")       ? Who::Enemies
          : side.starts_with("other all")  ? Who::OtherAllies
          : side.starts_with("other")      ? Who::Others
                                           : Who::Allies;
  return w;
}

pack::Filter Lowerer::lowerFilter(NodeId part, BodyScope &scope) {
  Filter f;
  std::string ev = slotText(part, "event");
  // Built-in events only phases, piles, auras and the space raise.
  for (const char *unraised : {"Become", "Move", "Target", "Commit", "Resolved", "Stopped", "Pulse",
                               "Finished", "Contact", "Enter", "Leave", "Cross"})
    if (ev == unraised)
      notRunYet(part, "hearing a " + ev);
  if (ev == "any") {
    f.any = true;
  } else if (Id e = find(events_, ev); e != kNoId) {
    f.event = e;
  } else if (Id p = valueId(ev); p != kNoId) {
    f.event = Id(BuiltinEvent::Change);
    f.pool = p;
  } else {
    f.tag = tagId(ev);
  }
  if (const Slot *p = tree_.slot(part, "pool"); p)
    f.pool = valueId(slotText(part, "pool"));
  f.having = tagsOf(part, "having", false);
  f.unless = tagsOf(part, "unless", false);
  f.prevented = tree_.hasFlag(part, "prevented");
  f.of = lowerWho(part, "of", scope);
  f.by = lowerWho(part, "by", scope);
  f.credited = lowerWho(part, "credited", scope);
  f.targeting = lowerWho(part, "targeting", scope);
  if (f.of.who == Who::Unsaid && f.by.who == Who::Unsaid && f.credited.who == Who::Unsaid &&
      f.targeting.who == Who::Unsaid)
    f.of.who = Who::Holder; // saying none, of holder
  return f;
}

// A filter's test of the event in hand: the kernel hears an event's
// candidates (its subject's, source's and credit's rules, and those hearing
// more) and each rule's own words decide, so both engines run them as bodies.
Id Lowerer::whoTest(NodeId part, std::string_view label, const pack::WhoClause &w,
                    pack::EventRole role, BodyScope &scope) {
  Read actor{ReadOp::EventActor};
  actor.a = Id(role);
  Id who = read(actor, {}, Kind::Actor).expr;
  switch (w.who) {
  case Who::Unsaid:
    return kNoId;
  case Who::Holder: {
    pack::Expr eq{pack::ExprOp::Eq};
    eq.a = who;
    eq.b = local(LEDGER_SLOT_HOLDER);
    return addExpr(eq);
  }
  case Who::Actor: {
    pack::Expr eq{pack::ExprOp::Eq};
    eq.a = who;
    eq.b = actorOf(tree_.slot(part, label)->value, "actor", scope).expr;
    return addExpr(eq);
  }
  default: {
    Read rel{ReadOp::Relation};
    rel.a = Id(w.who);
    return read(rel, {who, local(LEDGER_SLOT_HOLDER)}, Kind::Number).expr;
  }
  }
}

// targeting: "one its activation named", so any of the targets it named.
Id Lowerer::targetingTest(NodeId part, const pack::WhoClause &w, BodyScope &scope) {
  if (w.who == Who::Unsaid)
    return kNoId;
  Read named{ReadOp::EventTargeting};
  named.a = Id(w.who);
  Id who = w.who == Who::Holder  ? local(LEDGER_SLOT_HOLDER)
           : w.who == Who::Actor ? actorOf(tree_.slot(part, "targeting")->value, "actor", scope).expr
                                 : constant(0);
  return read(named, {who, local(LEDGER_SLOT_HOLDER)}, Kind::Number).expr;
}

Id Lowerer::matchBody(const pack::Filter &f, NodeId part, BodyScope scope) {
  uint32_t slots = scope.nextSlot;
  scope.maxSlot = &slots;
  std::vector<Id> tests;
  auto eq = [&](Read r, int64_t value) {
    pack::Expr e{pack::ExprOp::Eq};
    e.a = read(r, {}, Kind::Number).expr;
    e.b = constant(value);
    return addExpr(e);
  };
  if (!f.any) {
    if (f.event != kNoId)
      tests.push_back(eq(Read{ReadOp::EventKind}, int64_t(f.event) + 1));
    if (f.tag != kNoId) {
      Read r{ReadOp::EventTags};
      r.tags = tagSet({t_.names[t_.tags[f.tag].name]}, false);
      tests.push_back(read(r, {}, Kind::Number).expr);
    }
  }
  if (f.pool != kNoId)
    tests.push_back(eq(Read{ReadOp::EventPool}, int64_t(f.pool) + 1));
  if (f.having) {
    Read r{ReadOp::EventTags};
    r.tags = f.having;
    tests.push_back(read(r, {}, Kind::Number).expr);
  }
  if (f.unless) {
    Read r{ReadOp::EventTags};
    r.a = 1;
    r.tags = f.unless;
    pack::Expr no{pack::ExprOp::Not};
    no.a = read(r, {}, Kind::Number).expr;
    tests.push_back(addExpr(no));
  }
  tests.push_back(eq(Read{ReadOp::EventPrevented}, f.prevented ? Fixed::kScale : 0));
  for (auto [label, w, role] :
       {std::tuple{"of", f.of, pack::EventRole::Subject}, std::tuple{"by", f.by, pack::EventRole::Source},
        std::tuple{"credited", f.credited, pack::EventRole::Credit}})
    if (Id t = whoTest(part, label, w, role, scope); t != kNoId)
      tests.push_back(t);
  if (Id t = targetingTest(part, f.targeting, scope); t != kNoId)
    tests.push_back(t);
  Id all = tests.front();
  for (size_t i = 1; i < tests.size(); ++i) {
    pack::Expr both{pack::ExprOp::And};
    both.a = all;
    both.b = tests[i];
    all = addExpr(both);
  }
  Body b;
  b.kind = BodyKind::Formula;
  b.root = all;
  b.localCount = slots - LEDGER_SLOT_FIRST_LOCAL;
  b.line = lineOf(part);
  b.file = fileIndex_[tree_.files[tree_.nodes[part].file].file];
  t_.bodies.push_back(b);
  return Id(t_.bodies.size() - 1);
}

// Whether a modifier's amount reads another actor's values or held(...), so
// it is worked out as the effect goes on and kept; its holder's own values
// (its stats, its effects and tags, the instance's own fields) it reads live.
bool Lowerer::readsBeyondHolder(Id id) const {
  const pack::Expr &e = t_.exprs[id];
  if (e.op == pack::ExprOp::Fold)
    return true;
  if (e.op == pack::ExprOp::Read) {
    auto argIs = [&](uint32_t slot) {
      if (e.argCount == 0)
        return false;
      const pack::Expr &arg = t_.exprs[t_.exprArgs[e.argsBegin]];
      return arg.op == pack::ExprOp::Local && arg.imm == slot;
    };
    switch (t_.reads[e.imm].op) {
    case ReadOp::Value:
    case ReadOp::ValueExcept:
    case ReadOp::Link:
    case ReadOp::Has:
    case ReadOp::Stacks:
    case ReadOp::HighestStacks:
    case ReadOp::CountEffect:
    case ReadOp::CountTag:
      if (!argIs(LEDGER_SLOT_HOLDER))
        return true;
      break;
    case ReadOp::InstanceField:
    case ReadOp::InstanceVar:
    case ReadOp::HasHandle:
      if (!argIs(LEDGER_SLOT_SELF))
        return true;
      break;
    case ReadOp::FirstOf:
    case ReadOp::Relation:
    case ReadOp::EventTargeting:
      return true;
    default:
      break;
    }
  }
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId && readsBeyondHolder(k))
      return true;
  for (uint32_t i = 0; i < e.argCount; ++i)
    if (readsBeyondHolder(t_.exprArgs[e.argsBegin + i]))
      return true;
  return false;
}

void Lowerer::lowerRule(Id effect, NodeId c, RuleKind kind, std::vector<Rule> &rules) {
  BodyScope scope;
  scope.effect = effect;
  Rule r;
  r.kind = kind;
  r.owner = effect;
  r.line = lineOf(c);
  uint32_t file = tree_.nodes[c].file;
  if (const Slot *f = tree_.slot(c, "filter")) {
    r.filter = lowerFilter(f->value, scope);
    r.matchBody = matchBody(r.filter, f->value, scope);
  }
  if (tree_.slot(c, "stage"))
    r.stage = find(stages_, slotText(c, "stage"));
  r.oncePerChain = tree_.hasFlag(c, "once per chain");
  r.creditHolder = tree_.hasFlag(c, "credit holder");
  if (const Slot *w = tree_.slot(c, "when"))
    r.whenBody = formulaBody(file, w->value, scope, r.line);
  if (const Slot *i = tree_.slot(c, "interval"))
    r.intervalBody = formulaBody(file, i->value, scope, r.line);
  if (kind == RuleKind::Each)
    r.countBody = formulaBody(file, tree_.slot(c, "count")->value, scope, r.line);
  r.having = tagsOf(c, "having", false);
  r.unless = tagsOf(c, "unless", false);
  if (kind != RuleKind::EndsOn && kind != RuleKind::Each)
    r.steps = stepsBody(childrenOf(c), scope, c);
  r.index = uint32_t(rules.size());
  rules.push_back(r);
}

void Lowerer::lowerEffectClause(Id id, NodeId c, std::vector<Rule> &rules,
                                std::vector<Modifier> &mods, std::vector<Block> &blocks,
                                std::vector<LinkOverride> &overrides, std::vector<Id> &grants,
                                std::vector<pack::AutoGrant> &autos, std::vector<Id> &grantVars) {
  Effect &e = t_.effects[id];
  BodyScope scope;
  scope.effect = id;
  uint32_t file = tree_.nodes[c].file;
  uint32_t line = lineOf(c);
  switch (tree_.nodes[c].kind) {
  case FormKind::EffectVar:
    break; // gathered first
  case FormKind::EffectTags: {
    TagSet more = tagsOf(c, "tags", true);
    std::vector<uint64_t> bits(t_.tagSet(e.tags), t_.tagSet(e.tags) + t_.tagWords);
    for (uint32_t w = 0; w < t_.tagWords; ++w)
      bits[w] |= t_.tagSet(more)[w];
    t_.effects[id].tags = internSet(bits);
    break;
  }
  case FormKind::EffectStack: {
    StackPolicy s;
    std::string mode = slotText(c, "mode");
    s.mode = mode == "add"        ? StackMode::Add
             : mode == "separate" ? StackMode::Separate
             : mode == "refresh"  ? StackMode::Refresh
             : mode == "extend"   ? StackMode::Extend
             : mode == "ignore"   ? StackMode::Ignore
                                  : StackMode::Replace;
    if (const Slot *m = tree_.slot(c, "max"))
      s.maxBody = formulaBody(file, m->value, scope, line);
    std::string full = slotText(c, "full");
    s.full = full == "refuse"     ? FullMode::Refuse
             : full == "oldest"   ? FullMode::Oldest
             : full == "shortest" ? FullMode::Shortest
             : full == "refresh"  ? FullMode::Refresh
                                  : FullMode::Unsaid;
    s.perSource = tree_.hasFlag(c, "per source");
    s.isSigned = tree_.hasFlag(c, "signed");
    if (const Slot *st = tree_.slot(c, "stronger"))
      s.strongerBody = formulaBody(file, st->value, scope, line);
    if (tree_.slot(c, "keep")) {
      s.keepSaid = true;
      s.keepUpTo = literal(c, "keep");
    }
    t_.effects[id].stack = s;
    break;
  }
  case FormKind::EffectLasts: {
    Lasts l = e.lasts;
    if (const Slot *time = tree_.slot(c, "time")) {
      l.kind = l.kind == LastsKind::Count ? LastsKind::Count : LastsKind::Time;
      l.timeBody = formulaBody(file, time->value, scope, line);
      l.oneAtATime = tree_.hasFlag(c, "one at a time");
    } else if (tree_.slot(c, "unit")) {
      l.kind = LastsKind::Turns;
      l.countBody = formulaBody(file, tree_.slot(c, "count")->value, scope, line);
    } else {
      l.kind = LastsKind::Count;
      l.countBody = formulaBody(file, tree_.slot(c, "count")->value, scope, line);
      l.countFilter = lowerFilter(tree_.slot(c, "filter")->value, scope);
      l.countMatchBody = matchBody(l.countFilter, tree_.slot(c, "filter")->value, scope);
    }
    t_.effects[id].lasts = l;
    break;
  }
  case FormKind::EffectClock: {
    std::string which = slotText(c, "which");
    if (which == "world")
      t_.effects[id].clock = ClockKind::World;
    else if (which == "holder")
      t_.effects[id].clock = ClockKind::Holder;
    else {
      t_.effects[id].clock = ClockKind::Stat;
      t_.effects[id].clockStat = valueId(slotText(c, "stat"));
    }
    break;
  }
  case FormKind::EffectEndsOn:
    lowerRule(id, c, RuleKind::EndsOn, rules);
    break;
  case FormKind::EffectEach:
    lowerRule(id, c, RuleKind::Each, rules);
    break;
  case FormKind::EffectDies:
  case FormKind::EffectFalls: {
    Id pool = valueId(slotText(c, "pool"));
    Id ev = tree_.slot(c, "event") ? find(events_, slotText(c, "event")) : kNoId;
    if (tree_.nodes[c].kind == FormKind::EffectDies) {
      t_.effects[id].diesPool = pool;
      t_.effects[id].diesEvent = ev;
    } else {
      t_.effects[id].fallsPool = pool;
      t_.effects[id].fallsEvent = ev;
    }
    break;
  }
  case FormKind::EffectPrevents:
    t_.effects[id].preventsDeath = true;
    break;
  case FormKind::EffectGrants:
    if (tree_.slot(c, "var")) {
      std::string var = slotText(c, "var");
      const Effect &self = t_.effects[id];
      for (uint32_t v = 0; v < self.varCount; ++v)
        if (t_.names[t_.vars[self.varsBegin + v].name] == var)
          grantVars.push_back(v);
      break;
    }
    for (const std::string &a : listItems(c, "abilities"))
      grants.push_back(find(abilities_, a));
    autoGrants(c, autos);
    break;
  case FormKind::EffectBlocks: {
    Block b;
    if (tree_.hasFlag(c, "blocks all")) {
      b.all = true;
    } else {
      std::vector<std::string> what = listItems(c, "what");
      if (what.size() == 1 && find(events_, what[0]) != kNoId)
        b.event = find(events_, what[0]);
      else
        b.tags = tagSet(what, false);
    }
    b.unless = tagsOf(c, "unless", false);
    b.having = tagsOf(c, "having", false);
    if (tree_.slot(c, "var")) {
      std::string var = slotText(c, "var");
      const Effect &self = t_.effects[id];
      for (uint32_t v = 0; v < self.varCount; ++v)
        if (t_.names[t_.vars[self.varsBegin + v].name] == var)
          b.havingVar = v;
    }
    b.byHolder = tree_.hasFlag(c, "by holder");
    b.from = lowerWho(c, "from", scope);
    blocks.push_back(b);
    break;
  }
  case FormKind::EffectSuspends:
    t_.effects[id].suspendsAll = true;
    t_.effects[id].suspendsExcept = tagsOf(c, "except", false);
    break;
  case FormKind::EffectOrder:
    t_.effects[id].orderBody = formulaBody(file, tree_.slot(c, "key")->value, scope, line);
    break;
  case FormKind::EffectExclusive:
    t_.effects[id].exclusive = tagsOf(c, "tags", false);
    break;
  case FormKind::EffectLinkOverride: {
    LinkOverride o;
    o.link = find(links_, slotText(c, "stat"));
    o.actorBody = formulaBody(file, tree_.slot(c, "amount")->value, scope, line);
    overrides.push_back(o);
    break;
  }
  case FormKind::EffectModifier: {
    Modifier m;
    m.stat = valueId(slotText(c, "stat"));
    std::string op = slotText(c, "op");
    m.op = op == "+"          ? ModOp::Add
           : op == "-"        ? ModOp::Sub
           : op == "x"        ? ModOp::Mul
           : op == "="        ? ModOp::Set
           : op == "base"     ? ModOp::Base
           : op == "at least" ? ModOp::AtLeast
                              : ModOp::AtMost;
    const Slot *amount = tree_.slot(c, "amount");
    const Expr &ae = tree_.exprs[amount->value];
    // A percent, or a percent times a formula (+ 20% * stacks(...)); a formula
    // times a percent (+ F * 20%) adds a share of it.
    auto isPercent = [&](const Expr &x) {
      return x.kind == ExprKind::Number && tree_.token(file, x.begin).kind == TokenKind::Percent;
    };
    m.percent = isPercent(ae) || (ae.kind == ExprKind::Binary && ae.op == ExprOp::Mul &&
                                  isPercent(tree_.exprs[tree_.exprArgs[ae.firstArg]]));
    m.flat = tree_.hasFlag(c, "flat");
    m.live = tree_.hasFlag(c, "live");
    if (tree_.slot(c, "category"))
      m.category = find(categories_, slotText(c, "category"));
    m.amountBody = formulaBody(file, amount->value, scope, line);
    m.captured = !m.live && readsBeyondHolder(t_.bodies[m.amountBody].root);
    mods.push_back(m);
    modifierNodes_.push_back(c); // effects are lowered in turn: the table's order
    break;
  }
  case FormKind::EffectBefore:
    lowerRule(id, c, RuleKind::Before, rules);
    break;
  case FormKind::EffectAfter:
    lowerRule(id, c, RuleKind::After, rules);
    break;
  case FormKind::EffectEvery:
    lowerRule(id, c, RuleKind::Every, rules);
    break;
  case FormKind::EffectStart:
    lowerRule(id, c, RuleKind::Start, rules);
    break;
  case FormKind::EffectEnd:
    lowerRule(id, c, RuleKind::End, rules);
    break;
  case FormKind::EffectExpire:
    lowerRule(id, c, RuleKind::Expire, rules);
    break;
  default:
    notRunYet(c, std::string("`") + std::string(tree_.text(file, tree_.nodes[c].begin)) + "`");
    break;
  }
}

// Every effect's vars are declared before any body is lowered: a clause may
// read its own, and a step elsewhere may give another effect's (apply … with).
// They are laid out in the order their inits are worked out: a var after the
// vars its init reads (reading 154), so an instance going on works each out
// in turn whatever order its lines come in; the written order where it can.
void Lowerer::declareEffectVars(Id id, const Decl &decl) {
  std::vector<NodeId> written;
  for (NodeId part : decl.parts)
    eachChild(part, [&](NodeId c) {
      if (tree_.nodes[c].kind == FormKind::EffectVar)
        written.push_back(c);
    });
  auto indexOf = [&](std::string_view var) -> size_t {
    for (size_t k = 0; k < written.size(); ++k)
      if (slotText(written[k], "name") == var)
        return k;
    return written.size();
  };
  // What each init reads: `self.VAR` of another var of its effect.
  std::vector<std::vector<size_t>> reads(written.size());
  for (size_t k = 0; k < written.size(); ++k)
    if (const Slot *init = tree_.slot(written[k], "value")) {
      uint32_t file = tree_.nodes[written[k]].file;
      for (uint32_t t = init->begin; t + 2 < init->end; ++t)
        if (tree_.text(file, t) == "self" && tree_.text(file, t + 1) == ".")
          if (size_t r = indexOf(tree_.text(file, t + 2)); r < written.size())
            reads[k].push_back(r);
    }
  std::vector<uint8_t> state(written.size(), 0); // 1 being laid out, 2 laid out
  std::vector<NodeId> &order = effectVarLines_[id];
  std::vector<size_t> path;
  std::function<void(size_t)> layOut = [&](size_t k) {
    if (state[k] == 2)
      return;
    if (state[k] == 1) {
      std::string loop;
      for (auto it = std::find(path.begin(), path.end(), k); it != path.end(); ++it)
        loop += "self." + slotText(written[*it], "name") + " reads ";
      loop += "self." + slotText(written[k], "name");
      const Slot *name = tree_.slot(written[path.back()], "name");
      uint32_t file = tree_.nodes[written[path.back()]].file;
      diags_.report(DiagKind::VarInitReadsItself, tree_.loc(file, name->begin),
                    tree_.token(file, name->begin).end - tree_.token(file, name->begin).begin,
                    slotText(written[path.back()], "name"), loop);
      return;
    }
    state[k] = 1;
    path.push_back(k);
    for (size_t r : reads[k])
      layOut(r);
    path.pop_back();
    state[k] = 2;
    order.push_back(written[k]);
  };
  for (size_t k = 0; k < written.size(); ++k)
    layOut(k);
  t_.effects[id].varsBegin = uint32_t(t_.vars.size());
  for (NodeId c : order) {
    Var v;
    v.name = name(slotText(c, "name"));
    std::string k = slotText(c, "kind");
    v.kind = k == "ability"    ? VarKind::Ability
             : k == "tag"      ? VarKind::Tag
             : k == "actor"    ? VarKind::Actor
             : k == "instance" ? VarKind::Instance
                               : VarKind::Number;
    t_.vars.push_back(v);
  }
  t_.effects[id].varCount = uint32_t(t_.vars.size()) - t_.effects[id].varsBegin;
}

void Lowerer::lowerEffect(Id id, const Decl &decl) {
  const std::vector<NodeId> &varLines = effectVarLines_[id];
  for (uint32_t v = 0; v < varLines.size(); ++v)
    if (const Slot *init = tree_.slot(varLines[v], "value")) {
      BodyScope scope;
      scope.effect = id;
      Id body = formulaBody(tree_.nodes[varLines[v]].file, init->value, scope, lineOf(varLines[v]));
      t_.vars[t_.effects[id].varsBegin + v].initBody = body;
    }
  std::vector<Rule> rules;
  std::vector<Modifier> mods;
  std::vector<Block> blocks;
  std::vector<LinkOverride> overrides;
  std::vector<Id> grants;
  std::vector<pack::AutoGrant> autos;
  std::vector<Id> grantVars;
  for (NodeId part : decl.parts)
    eachChild(part, [&](NodeId c) {
      lowerEffectClause(id, c, rules, mods, blocks, overrides, grants, autos, grantVars);
    });
  Effect &e = t_.effects[id];
  e.line = lineOf(decl.node);
  e.rulesBegin = uint32_t(t_.rules.size());
  e.ruleCount = uint32_t(rules.size());
  t_.rules.insert(t_.rules.end(), rules.begin(), rules.end());
  e.modifiersBegin = uint32_t(t_.modifiers.size());
  e.modifierCount = uint32_t(mods.size());
  t_.modifiers.insert(t_.modifiers.end(), mods.begin(), mods.end());
  e.blocksBegin = uint32_t(t_.blocks.size());
  e.blockCount = uint32_t(blocks.size());
  t_.blocks.insert(t_.blocks.end(), blocks.begin(), blocks.end());
  e.overridesBegin = uint32_t(t_.linkOverrides.size());
  e.overrideCount = uint32_t(overrides.size());
  t_.linkOverrides.insert(t_.linkOverrides.end(), overrides.begin(), overrides.end());
  e.grantsBegin = uint32_t(t_.idLists.size());
  e.grantCount = uint32_t(grants.size());
  t_.idLists.insert(t_.idLists.end(), grants.begin(), grants.end());
  e.autosBegin = uint32_t(t_.autos.size());
  e.autoCount = uint32_t(autos.size());
  t_.autos.insert(t_.autos.end(), autos.begin(), autos.end());
  e.grantVarsBegin = uint32_t(t_.idLists.size());
  e.grantVarCount = uint32_t(grantVars.size());
  t_.idLists.insert(t_.idLists.end(), grantVars.begin(), grantVars.end());
  // Every effect that lasts a time carries Timed.
  if (e.lasts.kind == LastsKind::Time || e.lasts.timeBody != kNoId)
    e.tags = tagSetWith(e.tags, Id(BuiltinTag::Timed));
}

TagSet Lowerer::tagSetWith(TagSet set, Id tag) {
  std::vector<uint64_t> bits(t_.tagSet(set), t_.tagSet(set) + t_.tagWords);
  const uint64_t *c = t_.tagSet(t_.tags[tag].closure);
  for (uint32_t w = 0; w < t_.tagWords; ++w)
    bits[w] |= c[w];
  return internSet(bits);
}

// `grants ... auto [by KEYS]`: the abilities its holder uses by itself, and
// how it ranks their targets.
void Lowerer::autoGrants(NodeId c, std::vector<pack::AutoGrant> &autos) {
  if (!tree_.slot(c, "auto"))
    return;
  // An auto's keys read F in its holder's terms.
  uint32_t keysBegin = uint32_t(t_.sortKeys.size());
  if (const Slot *keys = tree_.slot(c, "keys"))
    sortKeys(keys->value, BodyScope{});
  for (const std::string &a : listItems(c, "abilities"))
    autos.push_back({find(abilities_, a), keysBegin, uint32_t(t_.sortKeys.size()) - keysBegin});
}

// ABILITY.cooldown: an effect of its own, declared with the abilities so
// any body may name it.
void Lowerer::declareCooldowns() {
  for (const auto &[n, decl] : decls_.byNamespace[size_t(Namespace::Ability)])
    for (NodeId part : decl.parts)
      eachChild(part, [&](NodeId c) {
        if (tree_.nodes[c].kind != FormKind::AbilityCooldown)
          return;
        std::string name_ = n + ".cooldown";
        if (effects_.count(name_))
          return;
        effects_.emplace(name_, Id(t_.effects.size()));
        Effect e;
        e.name = name(name_);
        e.isCooldown = true;
        e.tags = t_.tags[Id(BuiltinTag::Cooldown)].closure;
        e.stack.mode = StackMode::Replace;
        t_.effects.push_back(e);
      });
}

void Lowerer::lowerAbility(Id id, const Decl &decl) {
  Ability &a0 = t_.abilities[id];
  a0.line = lineOf(decl.node);
  std::vector<NodeId> steps;
  std::vector<Cost> costs;
  std::vector<Requirement> reqs;
  std::vector<Id> takes, listed;
  BodyScope scope;
  scope.ability = id;
  for (NodeId part : decl.parts)
    eachChild(part, [&](NodeId c) {
      uint32_t file = tree_.nodes[c].file;
      uint32_t line = lineOf(c);
      Ability &a = t_.abilities[id];
      FormKind k = tree_.nodes[c].kind;
      if (isStepForm(k)) {
        steps.push_back(c);
        return;
      }
      switch (k) {
      case FormKind::AbilityTags:
        a.tags = tagsOf(c, "tags", true);
        for (const std::string &tag : listItems(c, "tags"))
          listed.push_back(tagId(tag));
        break;
      case FormKind::AbilityTarget: {
        std::string which = slotText(c, "which");
        if (which == "self") {
          a.target = TargetKind::Self;
        } else if (which == "one") {
          a.target = TargetKind::One;
        } else if (which == "point" || which == "direction") {
          notRunYet(c, "a target that is a place");
          break;
        } else {
          a.target = TargetKind::Many;
          a.upTo = tree_.hasFlag(c, "up to");
          a.targetCount = uint32_t(tree_.token(file, tree_.slot(c, "count")->begin).value.raw /
                                   Fixed::kScale);
          a.distinct = tree_.hasFlag(c, "distinct");
        }
        std::string side = slotText(c, "side");
        a.side = side.starts_with("enem") ? Side::Enemy
                 : side.starts_with("all") ? Side::Ally
                                           : Side::Any;
        a.targetHaving = tagsOf(c, "having", false);
        a.targetUnless = tagsOf(c, "unless", false);
        if (tree_.slot(c, "within"))
          notRunYet(c, "a target's reach (the space's distance)");
        break;
      }
      case FormKind::AbilityTakes:
        for (const Slot *p : tree_.slotsNamed(c, "prop"))
          takes.push_back(find(props_, spanText(file, p->begin, p->end)));
        break;
      case FormKind::AbilityRequires: {
        Requirement r;
        r.body = formulaBody(file, tree_.slot(c, "cond")->value, scope, line);
        // A comparison's two sides, for the numbers its refusal gives.
        const pack::Expr &cmp = t_.exprs[t_.bodies[r.body].root];
        if (cmp.op >= pack::ExprOp::Eq && cmp.op <= pack::ExprOp::Ge) {
          Body side = t_.bodies[r.body];
          side.root = cmp.a;
          t_.bodies.push_back(side);
          r.leftBody = Id(t_.bodies.size() - 1);
          side.root = t_.exprs[t_.bodies[r.body].root].b;
          t_.bodies.push_back(side);
          r.rightBody = Id(t_.bodies.size() - 1);
        }
        if (const Slot *text = tree_.slot(c, "text")) {
          std::string quoted = spanText(file, text->begin, text->end);
          r.text = name(quoted.size() >= 2 ? quoted.substr(1, quoted.size() - 2) : quoted);
        }
        reqs.push_back(r);
        break;
      }
      case FormKind::AbilityCost: {
        Cost cost;
        cost.pool = valueId(slotText(c, "pool"));
        cost.amountBody = formulaBody(file, tree_.slot(c, "amount")->value, scope, line);
        if (tree_.slot(c, "link"))
          cost.link = find(links_, slotText(c, "link"));
        cost.upfront = tree_.hasFlag(c, "upfront");
        costs.push_back(cost);
        break;
      }
      case FormKind::AbilityCooldown: {
        Id cd = find(effects_, t_.names[a.name] + ".cooldown");
        a.cooldownEffect = cd;
        Effect &e = t_.effects[cd];
        if (const Slot *time = tree_.slot(c, "time")) {
          e.lasts.kind = LastsKind::Time;
          e.lasts.timeBody = formulaBody(file, time->value, scope, line);
          e.tags = tagSetWith(e.tags, Id(BuiltinTag::Timed));
          if (tree_.hasFlag(c, "clock world"))
            e.clock = ClockKind::World;
          else if (tree_.slot(c, "clock")) {
            e.clock = ClockKind::Stat;
            e.clockStat = valueId(slotText(c, "clock"));
          }
        } else {
          e.lasts.kind = LastsKind::Turns;
          e.lasts.countBody = formulaBody(file, tree_.slot(c, "count")->value, scope, line);
        }
        break;
      }
      default:
        notRunYet(c, std::string("`") + std::string(tree_.text(file, tree_.nodes[c].begin)) +
                         "` in an ability");
        break;
      }
    });
  Ability &a = t_.abilities[id];
  a.takesBegin = uint32_t(t_.idLists.size());
  a.takeCount = uint32_t(takes.size());
  t_.idLists.insert(t_.idLists.end(), takes.begin(), takes.end());
  a.listedBegin = uint32_t(t_.idLists.size());
  a.listedCount = uint32_t(listed.size());
  t_.idLists.insert(t_.idLists.end(), listed.begin(), listed.end());
  a.requiresBegin = uint32_t(t_.requirements.size());
  a.requireCount = uint32_t(reqs.size());
  t_.requirements.insert(t_.requirements.end(), reqs.begin(), reqs.end());
  a.costsBegin = uint32_t(t_.costs.size());
  a.costCount = uint32_t(costs.size());
  t_.costs.insert(t_.costs.end(), costs.begin(), costs.end());
  Id body = stepsBody(steps, scope, decl.node);
  t_.abilities[id].steps = body;
}

void Lowerer::lowerArchetype(Id id, const Decl &decl) {
  std::vector<ArchetypeValue> bases, withs, has;
  std::vector<NodeId> baseLines;
  std::vector<Id> pools, full, grants, gives;
  std::vector<pack::AutoGrant> autos;
  TagSet tags = 0;
  BodyScope scope;
  for (NodeId part : decl.parts)
    eachChild(part, [&](NodeId c) {
      uint32_t file = tree_.nodes[c].file;
      uint32_t line = lineOf(c);
      switch (tree_.nodes[c].kind) {
      case FormKind::ArchetypeTags: {
        TagSet more = tagsOf(c, "tags", true);
        std::vector<uint64_t> bits(t_.tagSet(tags), t_.tagSet(tags) + t_.tagWords);
        for (uint32_t w = 0; w < t_.tagWords; ++w)
          bits[w] |= t_.tagSet(more)[w];
        tags = internSet(bits);
        break;
      }
      case FormKind::ArchetypeBase: {
        ArchetypeValue v;
        v.value = valueId(slotText(c, "stat"));
        v.body = formulaBody(file, tree_.slot(c, "value")->value, scope, line);
        bases.push_back(v);
        baseLines.push_back(c);
        break;
      }
      case FormKind::ArchetypeWith:
        for (const Slot *s : tree_.slotsNamed(c, "assign")) {
          ArchetypeValue v;
          std::string target = slotText(s->value, "name");
          v.value = valueId(target);
          if (v.value == kNoId)
            v.link = find(links_, target);
          v.body = formulaBody(file, tree_.slot(s->value, "value")->value, scope, line);
          withs.push_back(v);
        }
        break;
      case FormKind::ArchetypeFull:
        for (const std::string &p : listItems(c, "pools"))
          full.push_back(valueId(p));
        break;
      case FormKind::ArchetypePools:
        for (const std::string &p : listItems(c, "pools"))
          pools.push_back(valueId(p));
        break;
      case FormKind::ArchetypeHas: {
        ArchetypeValue v;
        v.value = find(effects_, slotText(c, "effect"));
        v.body = tree_.slot(c, "stacks")
                     ? formulaBody(file, tree_.slot(c, "stacks")->value, scope, line)
                     : constBody(Fixed::kScale);
        has.push_back(v);
        break;
      }
      case FormKind::ArchetypeGrants:
        for (const std::string &a : listItems(c, "abilities"))
          grants.push_back(find(abilities_, a));
        autoGrants(c, autos);
        break;
      case FormKind::ArchetypeGives:
        // What an item gives through a granting pile; with no piles run yet,
        // nothing holds an item in one, so nothing is given.
        for (const std::string &e : listItems(c, "effects"))
          gives.push_back(find(effects_, e));
        break;
      default:
        break;
      }
    });
  Archetype &a = t_.archetypes[id];
  a.tags = tags;
  auto put = [&](std::vector<ArchetypeValue> &list, uint32_t &begin, uint32_t &count) {
    begin = uint32_t(t_.archetypeValues.size());
    count = uint32_t(list.size());
    t_.archetypeValues.insert(t_.archetypeValues.end(), list.begin(), list.end());
  };
  put(bases, a.basesBegin, a.baseCount);
  baseNodes_.resize(t_.archetypeValues.size(), kNone);
  std::copy(baseLines.begin(), baseLines.end(), baseNodes_.begin() + a.basesBegin);
  put(withs, a.withBegin, a.withCount);
  put(has, a.hasBegin, a.hasCount);
  // A full pool is a pool it has too.
  for (Id p : full)
    if (std::find(pools.begin(), pools.end(), p) == pools.end())
      pools.push_back(p);
  for (const ArchetypeValue &w : withs)
    if (w.value != kNoId && std::find(pools.begin(), pools.end(), w.value) == pools.end())
      pools.push_back(w.value);
  auto list = [&](std::vector<Id> &ids, uint32_t &begin, uint32_t &count) {
    begin = uint32_t(t_.idLists.size());
    count = uint32_t(ids.size());
    t_.idLists.insert(t_.idLists.end(), ids.begin(), ids.end());
  };
  list(pools, a.poolsBegin, a.poolCount);
  list(full, a.fullBegin, a.fullCount);
  list(grants, a.grantsBegin, a.grantCount);
  list(gives, a.givesBegin, a.giveCount);
  a.autosBegin = uint32_t(t_.autos.size());
  a.autoCount = uint32_t(autos.size());
  t_.autos.insert(t_.autos.end(), autos.begin(), autos.end());
}

void Lowerer::lowerProps() {
  for (Id id = 0; id < t_.props.size(); ++id) {
    const Decl *decl = decls_.find(Namespace::Shared, t_.names[t_.props[id].name]);
    NodeId n = decl->node;
    Prop &p = t_.props[id];
    if (tree_.slot(n, "under")) {
      p.kind = PropKind::Tag;
      p.under = tagId(slotText(n, "under"));
    } else if (tree_.slot(n, "among")) {
      p.kind = PropKind::Tag;
      p.among = tagsOf(n, "among", false);
    }
    if (tree_.slot(n, "default"))
      p.defaultValue = p.kind == PropKind::Tag ? int64_t(tagId(slotText(n, "default"))) + 1
                                               : literal(n, "default");
    if (tree_.slot(n, "min")) {
      p.hasMin = true;
      p.min = literal(n, "min");
    }
    if (tree_.slot(n, "max")) {
      p.hasMax = true;
      p.max = literal(n, "max");
    }
    p.whole = tree_.hasFlag(n, "whole");
  }
}

void Lowerer::lowerCurves() {
  for (Id id = 0; id < t_.curves.size(); ++id) {
    const Decl *decl = decls_.find(Namespace::Shared, t_.names[t_.curves[id].name]);
    Curve &c = t_.curves[id];
    c.pointsBegin = uint32_t(t_.curvePoints.size());
    eachChild(decl->node, [&](NodeId p) {
      t_.curvePoints.push_back({literal(p, "x"), literal(p, "y")});
    });
    t_.curves[id].pointCount = uint32_t(t_.curvePoints.size()) - t_.curves[id].pointsBegin;
  }
}

pack::Tables Lowerer::run() {
  // The catalog's files, where its bodies' faults point.
  for (uint32_t f = 0; f < tree_.files.size(); ++f)
    if (tree_.roles[f] == FileRole::Catalog) {
      fileIndex_[tree_.files[f].file] = uint32_t(t_.files.size());
      t_.files.push_back(tree_.sources->file(tree_.files[f].file).path);
    }
  declareTags();
  declareNames();
  declareCooldowns();
  lowerValues();
  lowerProps();
  lowerCurves();
  effectVarLines_.resize(t_.effects.size());
  for (const auto &[n, decl] : decls_.byNamespace[size_t(Namespace::Effect)])
    declareEffectVars(find(effects_, n), decl);
  for (const auto &[n, decl] : decls_.byNamespace[size_t(Namespace::Effect)])
    lowerEffect(find(effects_, n), decl);
  for (const auto &[n, decl] : decls_.byNamespace[size_t(Namespace::Ability)])
    lowerAbility(find(abilities_, n), decl);
  for (const auto &[n, decl] : decls_.byNamespace[size_t(Namespace::Archetype)])
    lowerArchetype(find(archetypes_, n), decl);
  refuseValuesReadingThemselves();
  return std::move(t_);
}

// The values of its holder's a body reads.
void Lowerer::holderValuesRead(Id body, std::vector<Id> &out) const {
  if (body == kNoId || t_.bodies[body].kind != BodyKind::Formula)
    return;
  std::vector<Id> stack{t_.bodies[body].root};
  while (!stack.empty()) {
    const pack::Expr &e = t_.exprs[stack.back()];
    stack.pop_back();
    if (e.op == pack::ExprOp::Read && e.argCount > 0 &&
        (t_.reads[e.imm].op == ReadOp::Value || t_.reads[e.imm].op == ReadOp::ValueExcept)) {
      const pack::Expr &actor = t_.exprs[t_.exprArgs[e.argsBegin]];
      if (actor.op == pack::ExprOp::Local && actor.imm == LEDGER_SLOT_HOLDER)
        out.push_back(t_.reads[e.imm].a);
    }
    for (Id k : {e.a, e.b, e.c})
      if (k != kNoId)
        stack.push_back(k);
    for (uint32_t i = 0; i < e.argCount; ++i)
      stack.push_back(t_.exprArgs[e.argsBegin + i]);
  }
}

// A value whose base or bounds read, through its holder's other values, the
// value itself has no reading that ends: refused at the line that closes the
// loop, each archetype's bases with the catalog's bounds. A loop closed only
// through an effect's terms is warned of (docs/readings.md 144): it runs
// round only on an actor holding those effects, and the world stops it 64
// values deep.
void Lowerer::refuseValuesReadingThemselves() {
  const Id n = Id(t_.values.size());
  // What each value reads by its bounds and drift, and the line saying so;
  // with them, what the terms on it read as it is read (a term kept as it
  // goes on reads nothing then), and the first such term's line.
  std::vector<std::vector<Id>> bounds(n), withTerms(n);
  std::vector<NodeId> declared(n), termLine(n, kNone);
  for (Id v = 0; v < n; ++v) {
    holderValuesRead(t_.values[v].minBody, bounds[v]);
    holderValuesRead(t_.values[v].maxBody, bounds[v]);
    holderValuesRead(t_.values[v].regenPeriodBody, bounds[v]);
    holderValuesRead(t_.values[v].refillPeriodBody, bounds[v]);
    if (t_.values[v].regenStat != kNoId)
      bounds[v].push_back(t_.values[v].regenStat);
    withTerms[v] = bounds[v];
    // A by-type member has no line of its own: its stat's stands for it.
    const Decl *d = decls_.find(Namespace::Value, t_.names[t_.values[v].name]);
    Id own = t_.values[v].member != kNoId ? t_.values[v].member : v;
    if (!d && own != v)
      d = decls_.find(Namespace::Value, t_.names[t_.values[own].name]);
    declared[v] = d ? d->node : kNone;
  }
  for (size_t m = 0; m < t_.modifiers.size(); ++m) {
    const Modifier &mod = t_.modifiers[m];
    if (mod.captured || mod.stat >= n)
      continue;
    size_t before = withTerms[mod.stat].size();
    holderValuesRead(mod.amountBody, withTerms[mod.stat]);
    if (withTerms[mod.stat].size() > before && termLine[mod.stat] == kNone)
      termLine[mod.stat] = modifierNodes_[m];
  }
  std::vector<uint8_t> reported(n, 0);
  // An archetype's bases over the bounds: the values it bases, what each
  // base reads and its line.
  std::vector<std::vector<Id>> baseReads(n);
  std::vector<NodeId> baseLine(n, kNone);
  bool termsToo = false;
  auto readsOf = [&](Id v) -> std::pair<const std::vector<Id> *, const std::vector<Id> *> {
    return {termsToo ? &withTerms[v] : &bounds[v], &baseReads[v]};
  };
  // Looking through terms, every loop left holds one: its line says where.
  auto lineOfValue = [&](Id v) {
    if (termsToo && termLine[v] != kNone)
      return termLine[v];
    return baseLine[v] != kNone ? baseLine[v] : declared[v];
  };
  std::vector<uint8_t> state(n, 0); // 0 unseen, 1 on the path, 2 done
  std::vector<Id> touched;
  struct Step {
    Id value;
    uint32_t next;
  };
  std::vector<Step> path;
  // Depth first from a root, by a stack: a value met again on the path
  // closes a loop, refused at the last line on it.
  auto search = [&](Id root) {
    if (state[root])
      return;
    state[root] = 1;
    touched.push_back(root);
    path.push_back({root, 0});
    while (!path.empty()) {
      Step &top = path.back();
      auto [first, second] = readsOf(top.value);
      if (top.next == first->size() + second->size()) {
        state[top.value] = 2;
        path.pop_back();
        continue;
      }
      Id w = top.next < first->size() ? (*first)[top.next] : (*second)[top.next - first->size()];
      ++top.next;
      if (w >= n || state[w] == 2)
        continue;
      if (state[w] == 0) {
        state[w] = 1;
        touched.push_back(w);
        path.push_back({w, 0});
        continue;
      }
      if (reported[w])
        continue;
      reported[w] = 1;
      std::string loop;
      auto from = std::find_if(path.begin(), path.end(), [&](const Step &s) { return s.value == w; });
      for (auto it = from; it != path.end(); ++it)
        loop += t_.names[t_.values[it->value].name] + " reads ";
      loop += t_.names[t_.values[w].name];
      NodeId closes = kNone;
      for (auto it = path.rbegin(); it != path.rend() && closes == kNone; ++it)
        closes = lineOfValue(it->value);
      if (closes == kNone)
        continue;
      const Node &at = tree_.nodes[closes];
      const Token &tok = tree_.token(at.file, at.begin);
      diags_.report(termsToo ? DiagKind::TermsReadThemselves : DiagKind::ValueReadsItself,
                    tree_.loc(at.file, at.begin), tok.end - tok.begin,
                    t_.names[t_.values[w].name], loop);
    }
  };
  auto restart = [&] {
    for (Id v : touched)
      state[v] = 0;
    touched.clear();
  };
  // The catalog's bounds alone, once; then each archetype's bases, from the
  // values it bases, since a loop they close passes through one. Then again
  // with the terms, for the loops only they close, where none was refused.
  for (bool terms : {false, true}) {
    if (terms && std::find(reported.begin(), reported.end(), 1) != reported.end())
      break;
    termsToo = terms;
    restart();
    for (Id v = 0; v < n; ++v)
      search(v);
    for (Id arch = 0; arch < t_.archetypes.size(); ++arch) {
      const Archetype &a = t_.archetypes[arch];
      restart();
      for (uint32_t k = 0; k < a.baseCount; ++k) {
        const ArchetypeValue &b = t_.archetypeValues[a.basesBegin + k];
        if (b.value == kNoId)
          continue;
        holderValuesRead(b.body, baseReads[b.value]);
        baseLine[b.value] = baseNodes_[a.basesBegin + k];
      }
      for (uint32_t k = 0; k < a.baseCount; ++k)
        if (Id v = t_.archetypeValues[a.basesBegin + k].value; v != kNoId)
          search(v);
      for (uint32_t k = 0; k < a.baseCount; ++k)
        if (Id v = t_.archetypeValues[a.basesBegin + k].value; v != kNoId) {
          baseReads[v].clear();
          baseLine[v] = kNone;
        }
    }
  }
}

pack::Tables lower(const SyntaxTree &tree, const Declarations &decls, DiagnosticEngine &diags) {
  return Lowerer(tree, decls, diags).run();
}

} // namespace ledger::ir

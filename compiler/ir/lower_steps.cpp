// Lowering, steps: a body's lines as step records, siblings contiguous so a
// step's body is one range; what changes the world becomes an action whose
// operands the body works out and the kernel carries out.
#include "ir/lowerer.h"

#include "pack_abi.h"
#include "refusals.h"

namespace ledger::ir {

Lowered Lowerer::formulaSlot(NodeId n, std::string_view label, BodyScope &scope) {
  const Slot *s = tree_.slot(n, label);
  return expr(tree_.nodes[n].file, s->value, scope);
}

Lowered Lowerer::actorOf(NodeId n, std::string_view label, BodyScope &scope) {
  const Slot *s = tree_.slot(n, label);
  uint32_t file = tree_.nodes[n].file;
  if (s->kind == SlotKind::Formula)
    return expr(file, s->value, scope);
  return path(file, s->begin, s->end, scope, kNone);
}

// TARGETS: one actor, the order's list, or a query by side and tags.
Id Lowerer::query(NodeId part, BodyScope &scope, std::vector<Id> &args) {
  Query q;
  const Node &node = tree_.nodes[part];
  uint32_t file = node.file;
  switch (node.kind) {
  case FormKind::TargetsActor:
    q.kind = QueryKind::Actor;
    args.push_back(actorOf(part, "actor", scope).expr);
    break;
  case FormKind::TargetsList:
    q.kind = slotText(part, "list") == "targets" ? QueryKind::Targets : QueryKind::EventTargets;
    break;
  case FormKind::TargetsQuery: {
    q.kind = QueryKind::Search;
    std::string quant = slotText(part, "quantifier");
    if (quant == "up to") {
      q.quantifier = Quantifier::UpTo;
      q.hasCount = true;
      args.push_back(formulaSlot(part, "count", scope).expr);
    } else if (quant != "all") {
      notRunYet(part, "a random pick (streams)");
    }
    std::string subject = slotText(part, "subject");
    q.subject = subject.starts_with("enem")        ? Subject::Enemies
                : subject.starts_with("other all") ? Subject::OtherAllies
                : subject.starts_with("all")       ? Subject::Allies
                : subject.starts_with("other")     ? Subject::Others
                                                   : Subject::Actors;
    if (tree_.slot(part, "pile") || tree_.slot(part, "within") || tree_.slot(part, "controlled") ||
        tree_.hasFlag(part, "nearest") || tree_.hasFlag(part, "at random") ||
        tree_.slot(part, "using") || tree_.slot(part, "except") ||
        tree_.hasFlag(part, "except allies"))
      notRunYet(part, "this query's piles, space or draws");
    if (tree_.slot(part, "of")) {
      q.hasOf = true;
      args.push_back(actorOf(part, "of", scope).expr);
    }
    q.having = tagsOf(part, "having", false);
    q.unless = tagsOf(part, "unless", false);
    BodyScope inner = scope;
    inner.bindIt(false);
    if (const Slot *w = tree_.slot(part, "when"))
      q.whenBody = formulaBody(file, w->value, inner, lineOf(part));
    // by KEYS: read in the rule's or ability's terms, each candidate as it.
    q.keysBegin = uint32_t(t_.sortKeys.size());
    if (const Slot *keys = tree_.slot(part, "keys"))
      sortKeys(keys->value, inner);
    q.keyCount = uint32_t(t_.sortKeys.size()) - q.keysBegin;
    break;
  }
  default:
    notRunYet(part, "this target");
  }
  t_.queries.push_back(q);
  return Id(t_.queries.size() - 1);
}

// KEYS, joined by then, onto the sort keys: a tag, highest or lowest F;
// nearest and furthest need the space.
void Lowerer::sortKeys(NodeId keys, const BodyScope &scope) {
  const Node &kn = tree_.nodes[keys];
  for (uint32_t s = kn.firstSlot; s < kn.firstSlot + kn.slotCount; ++s) {
    const Slot &slot = tree_.slots[s];
    std::string_view label = labelText(slot.label);
    pack::SortKey key;
    if (label == "tag") {
      key.kind = pack::SortKeyKind::Tag;
      key.tag = tagId(spanText(kn.file, slot.begin, slot.end));
    } else if (label == "highest" || label == "lowest") {
      key.kind = label == "highest" ? pack::SortKeyKind::Highest : pack::SortKeyKind::Lowest;
      // highest VALUE reads each candidate's; highest F, the scope's terms.
      BodyScope keyScope = scope;
      if (tree_.exprs[slot.value].kind == ExprKind::Path)
        keyScope.bareValueOf = LEDGER_SLOT_IT;
      key.body = formulaBody(kn.file, slot.value, keyScope, lineOf(keys));
    } else if (label == "nearest" || label == "furthest") {
      notRunYet(keys, "ranking by the space's distance");
      continue;
    } else {
      continue;
    }
    t_.sortKeys.push_back(key);
  }
}

Id Lowerer::heldQuery(NodeId held, BodyScope &scope, std::vector<Id> &args) {
  Query q;
  q.kind = QueryKind::Held;
  uint32_t file = tree_.nodes[held].file;
  args.push_back(actorOf(held, "actor", scope).expr);
  q.having = tagsOf(held, "having", false);
  q.unless = tagsOf(held, "unless", false);
  if (tree_.slot(held, "from")) {
    q.hasFrom = true;
    args.push_back(actorOf(held, "from", scope).expr);
  }
  if (const Slot *w = tree_.slot(held, "when")) {
    BodyScope inner = scope;
    inner.bindIt(true);
    q.whenBody = formulaBody(file, w->value, inner, lineOf(held));
  }
  // by ORDER: its keys in turn, each formula read of each instance as it.
  q.keysBegin = uint32_t(t_.sortKeys.size());
  if (const Slot *o = tree_.slot(held, "order")) {
    NodeId order = o->value;
    const Node &on = tree_.nodes[order];
    BodyScope inner = scope;
    inner.bindIt(true);
    inner.bareFieldsOfIt = true;
    for (uint32_t s = on.firstSlot; s < on.firstSlot + on.slotCount; ++s) {
      const Slot &slot = tree_.slots[s];
      std::string_view label = labelText(slot.label);
      pack::SortKey key;
      if (label == "highest" || label == "lowest") {
        key.kind = label == "highest" ? pack::SortKeyKind::Highest : pack::SortKeyKind::Lowest;
        key.body = formulaBody(file, slot.value, inner, lineOf(order));
      } else if (label == "newest" || label == "oldest") {
        key.kind = label == "newest" ? pack::SortKeyKind::Newest : pack::SortKeyKind::Oldest;
      } else {
        continue;
      }
      t_.sortKeys.push_back(key);
    }
  }
  q.keyCount = uint32_t(t_.sortKeys.size()) - q.keysBegin;
  t_.queries.push_back(q);
  return Id(t_.queries.size() - 1);
}

void Lowerer::targets(NodeId n, std::string_view label, Action &a, std::vector<Id> &args,
                      BodyScope &scope, bool holderIfUnsaid) {
  size_t before = args.size();
  if (const Slot *s = tree_.slot(n, label)) {
    a.query = query(s->value, scope, args);
  } else if (holderIfUnsaid) {
    Query q;
    q.kind = QueryKind::Actor;
    t_.queries.push_back(q);
    a.query = Id(t_.queries.size() - 1);
    args.push_back(local(LEDGER_SLOT_HOLDER));
  }
  a.queryArgCount = uint32_t(args.size() - before);
}

// `with NAME = F, ...`: props of the event, vars of an applied effect, links
// and pools of what is made; their values are the last operands.
void Lowerer::assigns(NodeId n, Action &a, std::vector<Id> &args, BodyScope &scope, Id effect) {
  a.withBegin = uint32_t(t_.idLists.size());
  for (const Slot *s : tree_.slotsNamed(n, "assign")) {
    NodeId as = s->value;
    std::string target = slotText(as, "name");
    Id id = kNoId;
    if (a.op == ActionOp::Apply && effect != kNoId) {
      const Effect &e = t_.effects[effect];
      for (uint32_t v = 0; v < e.varCount; ++v)
        if (t_.names[t_.vars[e.varsBegin + v].name] == target)
          id = v;
    } else if (a.op == ActionOp::Create) {
      id = valueId(target);
      if (id == kNoId && find(links_, target) != kNoId)
        id = find(links_, target) | pack::kWithLink;
    } else if (a.op == ActionOp::Cast && target == "X") {
      // "X and the grant are every order's own": a cast gives its X as an
      // order does, the property with no id.
      t_.idLists.push_back(kNoId);
      args.push_back(formulaSlot(as, "value", scope).expr);
      continue;
    } else {
      id = find(props_, target);
    }
    if (id == kNoId) {
      notRunYet(as, "setting `" + target + "` here");
      continue;
    }
    t_.idLists.push_back(id);
    args.push_back(formulaSlot(as, "value", scope).expr);
  }
  a.withCount = uint32_t(t_.idLists.size()) - a.withBegin;
}

// for D | for N turns | for N EVENT, and the duration changes' own.
void Lowerer::durationOperands(NodeId n, Action &a, std::vector<Id> &args, BodyScope &scope) {
  if (tree_.slot(n, "time")) {
    a.flags |= kForTime;
    args.push_back(formulaSlot(n, "time", scope).expr);
  } else if (tree_.slot(n, "turns")) {
    a.flags |= kForTurns;
    args.push_back(formulaSlot(n, "turns", scope).expr);
  } else if (tree_.slot(n, "count") && tree_.slot(n, "event")) {
    a.flags |= kForCount;
    std::string ev = slotText(n, "event");
    a.b = find(events_, ev);
    if (a.b == kNoId)
      a.tags = tagSet({ev}, false);
    args.push_back(formulaSlot(n, "count", scope).expr);
  }
}

uint32_t Lowerer::action(Action a, NodeId n) {
  a.line = lineOf(n);
  t_.actions.push_back(a);
  return uint32_t(t_.actions.size() - 1);
}

void Lowerer::lowerStep(NodeId n, Step &step, BodyScope &scope) {
  const Node &node = tree_.nodes[n];
  uint32_t file = node.file;
  step.line = lineOf(n);
  std::vector<Id> args;
  Action a;
  auto resultSlot = [&]() {
    if (const Slot *as = tree_.slot(n, "as")) {
      a.flags |= kHasAs;
      a.resultSlot = scope.add(spanText(file, as->begin, as->end), Kind::Result, rt::kResultSlots);
    }
  };
  auto from = [&]() {
    if (tree_.slot(n, "from")) {
      a.flags |= kHasFrom;
      args.push_back(actorOf(n, "from", scope).expr);
    } else if (tree_.hasFlag(n, "sourceless")) {
      a.flags |= kSourceless;
    }
  };
  auto finish = [&]() {
    step.op = StepOp::Action;
    step.info = action(a, n);
  };
  switch (node.kind) {
  case FormKind::StepIf:
    step.op = StepOp::If;
    args.push_back(formulaSlot(n, "cond", scope).expr);
    break;
  case FormKind::StepForEach: // its list and name are laid out with its body
    break;
  case FormKind::StepRepeat:
    step.op = StepOp::Repeat;
    args.push_back(formulaSlot(n, "count", scope).expr);
    break;
  case FormKind::StepLet: {
    step.op = StepOp::Let;
    Lowered v = formulaSlot(n, "value", scope);
    args.push_back(v.expr);
    step.slot = scope.add(slotText(n, "name"), v.kind);
    break;
  }
  case FormKind::StepSelf: {
    step.op = StepOp::SetVar;
    std::string var = slotText(n, "var");
    std::string op = slotText(n, "op");
    step.info = op == "=" ? 0 : op == "+=" ? 1 : 2;
    step.slot = kNoId;
    if (scope.effect == kNoId && scope.ability != kNoId) {
      // In an ability, the var of the instance whose grant this use is, by
      // name: each effect granting it declares its vars in its own order.
      a.op = ActionOp::SetInstanceVar;
      a.a = name(var);
      a.b = step.info;
      args.push_back(grantOf().expr);
      args.push_back(formulaSlot(n, "value", scope).expr);
      finish();
      break;
    }
    if (scope.effect != kNoId) {
      const Effect &e = t_.effects[scope.effect];
      for (uint32_t v = 0; v < e.varCount; ++v)
        if (t_.names[t_.vars[e.varsBegin + v].name] == var)
          step.slot = v;
    }
    if (step.slot == kNoId)
      notRunYet(n, "a var of an effect this rule isn't in");
    args.push_back(formulaSlot(n, "value", scope).expr);
    break;
  }
  case FormKind::StepDeal:
  case FormKind::StepHeal: {
    a.op = node.kind == FormKind::StepDeal ? ActionOp::Deal : ActionOp::Heal;
    targets(n, "to", a, args, scope, false);
    std::vector<const Slot *> amounts = tree_.slotsNamed(n, "amount");
    for (const Slot *m : tree_.slotsNamed(n, "more"))
      amounts.push_back(m);
    a.listBegin = uint32_t(t_.idLists.size());
    // The first amount's types, then each `+ F TAGS`'s.
    std::vector<std::vector<std::string>> types(amounts.size());
    uint32_t k = 0;
    for (uint32_t s = node.firstSlot; s < node.firstSlot + node.slotCount; ++s) {
      const Slot &slot = tree_.slots[s];
      std::string_view label = labelText(slot.label);
      if (label == "amount" || label == "more")
        k = label == "amount" ? 0 : k + 1;
      if (label == "types" || label == "moreTypes")
        tree_.eachItem(file, slot, true, [&](uint32_t b, uint32_t e) {
          if (k < types.size())
            types[k].push_back(spanText(file, b, e));
        });
    }
    for (uint32_t i = 0; i < amounts.size(); ++i) {
      args.push_back(expr(file, amounts[i]->value, scope).expr);
      t_.idLists.push_back(tagSet(types[i], true));
    }
    a.listCount = uint32_t(amounts.size());
    if (amounts.size() > pack::kMaxPortions)
      notRunYet(n, "a change in more than " + std::to_string(pack::kMaxPortions) + " portions");
    if (tree_.slot(n, "upTo")) {
      a.flags |= kHasUpTo;
      args.push_back(formulaSlot(n, "upTo", scope).expr);
    }
    from();
    assigns(n, a, args, scope, kNoId);
    finish();
    break;
  }
  case FormKind::StepGain:
  case FormKind::StepLose:
  case FormKind::StepSet: {
    a.op = node.kind == FormKind::StepGain   ? ActionOp::Gain
           : node.kind == FormKind::StepLose ? ActionOp::Lose
                                             : ActionOp::SetPool;
    a.a = valueId(slotText(n, "pool"));
    targets(n, "on", a, args, scope, true);
    a.tags = tagsOf(n, "types", true);
    args.push_back(formulaSlot(n, "amount", scope).expr);
    if (tree_.slot(n, "upTo")) {
      a.flags |= kHasUpTo;
      args.push_back(formulaSlot(n, "upTo", scope).expr);
    }
    assigns(n, a, args, scope, kNoId);
    finish();
    break;
  }
  case FormKind::StepApply: {
    a.op = ActionOp::Apply;
    std::string effect = slotText(n, "effect");
    a.a = find(effects_, effect);
    if (a.a == kNoId)
      notRunYet(n, "applying what a var holds");
    targets(n, "to", a, args, scope, true);
    if (tree_.slot(n, "stacks")) {
      a.flags |= kHasStacks;
      args.push_back(formulaSlot(n, "stacks", scope).expr);
    }
    durationOperands(n, a, args, scope);
    from();
    assigns(n, a, args, scope, a.a);
    resultSlot();
    finish();
    break;
  }
  case FormKind::StepRemove: {
    Id heldAbility = kNoId; // an ability a var or a name holds: an operand
    if (tree_.slot(n, "ability")) {
      a.op = ActionOp::RemoveCooldown;
      a.a = find(abilities_, slotText(n, "ability"));
      if (a.a == kNoId)
        heldAbility = actorOf(n, "ability", scope).expr;
    } else if (tree_.slot(n, "tag") || tree_.slot(n, "var")) {
      a.op = ActionOp::RemoveTag;
      if (tree_.slot(n, "var"))
        a.a = tagOrVar(n, "tag", a, scope);
      else
        a.tags = tagsOf(n, "tag", false);
      a.c = tagsOf(n, "unless", false);
    } else {
      const Slot *what = tree_.slot(n, "what");
      std::string text = spanText(file, what->begin, what->end);
      a.a = find(effects_, text);
      if (a.a != kNoId) {
        a.op = ActionOp::RemoveEffect;
      } else {
        a.op = ActionOp::RemoveHandle;
      }
    }
    targets(n, "from", a, args, scope, true);
    if (a.op == ActionOp::RemoveHandle)
      args.push_back(formulaSlot(n, "what", scope).expr);
    if (heldAbility != kNoId)
      args.push_back(heldAbility);
    if (tree_.slot(n, "count")) {
      a.flags |= kHasCount;
      args.push_back(formulaSlot(n, "count", scope).expr);
    }
    resultSlot();
    finish();
    break;
  }
  case FormKind::StepRaise:
    a.op = ActionOp::Raise;
    a.a = find(events_, slotText(n, "event"));
    targets(n, "of", a, args, scope, true);
    if (tree_.slot(n, "by")) {
      a.flags |= kHasBy;
      args.push_back(actorOf(n, "by", scope).expr);
    }
    a.tags = tagsOf(n, "tagged", true);
    finish();
    break;
  case FormKind::StepCreate: {
    a.op = ActionOp::Create;
    a.a = find(archetypes_, slotText(n, "archetype"));
    if (a.a == kNoId)
      notRunYet(n, "creating what a name holds");
    if (tree_.slot(n, "in") || tree_.slot(n, "at"))
      notRunYet(n, "creating in a pile or at a place");
    a.query = kNoId;
    if (tree_.slot(n, "count")) {
      a.flags |= kHasCount;
      args.push_back(formulaSlot(n, "count", scope).expr);
    }
    assigns(n, a, args, scope, kNoId);
    if (const Slot *as = tree_.slot(n, "as")) {
      a.flags |= kHasAs;
      a.resultSlot = scope.add(spanText(file, as->begin, as->end), Kind::Actor);
    }
    finish();
    break;
  }
  case FormKind::StepDestroy:
    a.op = ActionOp::Destroy;
    targets(n, "targets", a, args, scope, true);
    finish();
    break;
  case FormKind::StepRevive:
    a.op = ActionOp::Revive;
    targets(n, "targets", a, args, scope, true);
    if (tree_.slot(n, "at")) {
      a.flags |= kHasAmount;
      args.push_back(formulaSlot(n, "at", scope).expr);
    }
    finish();
    break;
  case FormKind::StepCast: {
    a.op = ActionOp::Cast;
    if (tree_.slot(n, "again")) {
      // The activation heard, once more: its ability, target and X.
      a.flags |= kAgain;
    } else if (tree_.slot(n, "granted")) {
      a.flags |= kGranted;
      a.a = scope.effect;
      a.c = tagsOf(n, "tags", false);
      targets(n, "at", a, args, scope, false);
    } else {
      Lowered ab = actorOf(n, "ability", scope);
      targets(n, "at", a, args, scope, false);
      args.push_back(ab.expr);
    }
    if (tree_.hasFlag(n, "free"))
      a.flags |= kFree;
    if (tree_.hasFlag(n, "nocooldown"))
      a.flags |= kNoCooldown;
    a.tags = tagsOf(n, "tagged", true);
    assigns(n, a, args, scope, kNoId);
    resultSlot();
    finish();
    break;
  }
  case FormKind::StepSetLink: {
    a.op = ActionOp::SetLink;
    a.a = find(links_, slotText(n, "link"));
    targets(n, "on", a, args, scope, true);
    if (slotText(n, "to") == "none")
      a.flags |= kToNone;
    else
      args.push_back(actorOf(n, "to", scope).expr);
    finish();
    break;
  }
  case FormKind::BeforeScaleDuration:
  case FormKind::BeforeAddDuration:
  case FormKind::BeforeAtMost: {
    if (node.kind == FormKind::BeforeAtMost && tree_.slot(n, "amount")) {
      a.op = ActionOp::AtMost;
      args.push_back(formulaSlot(n, "amount", scope).expr);
      finish();
      break;
    }
    a.op = node.kind == FormKind::BeforeScaleDuration ? ActionOp::ScaleDuration
           : node.kind == FormKind::BeforeAddDuration ? ActionOp::AddDuration
                                                      : ActionOp::AtMostDuration;
    if (node.kind == FormKind::BeforeScaleDuration) {
      args.push_back(formulaSlot(n, "factor", scope).expr);
      std::string r = slotText(n, "rounding");
      a.flags |= r == "floor" ? kRoundFloor : r == "round" ? kRoundRound : 0;
    } else {
      durationOperands(n, a, args, scope);
    }
    if (tree_.slot(n, "on")) {
      a.flags |= kHasOn;
      args.push_back(formulaSlot(n, "on", scope).expr);
    }
    finish();
    break;
  }
  case FormKind::BeforePrevent:
    a.op = ActionOp::Prevent;
    if (tree_.hasFlag(n, "chain"))
      a.flags |= kChain;
    if (const Slot *as = tree_.slot(n, "as"))
      a.resultSlot = scope.add(spanText(file, as->begin, as->end), Kind::Number);
    finish();
    break;
  case FormKind::BeforeConvert:
    a.op = ActionOp::Convert;
    a.a = tagId(slotText(n, "from"));
    a.b = tagOrVar(n, "to", a, scope);
    // Worked out once a portion: a stat by type read bare is its member.
    a.c = formulaBody(file, tree_.slot(n, "share")->value, scope, lineOf(n));
    finish();
    break;
  case FormKind::BeforeScale:
    a.op = ActionOp::Scale;
    a.c = formulaBody(file, tree_.slot(n, "factor")->value, scope, lineOf(n));
    finish();
    break;
  case FormKind::BeforeReduce:
  case FormKind::BeforeAtLeast: {
    a.op = node.kind == FormKind::BeforeReduce ? ActionOp::Reduce : ActionOp::AtLeast;
    args.push_back(formulaSlot(n, "amount", scope).expr);
    finish();
    break;
  }
  case FormKind::BeforeAdd:
    a.op = ActionOp::AddAmount;
    args.push_back(formulaSlot(n, "amount", scope).expr);
    if (tree_.slot(n, "as") || tree_.slot(n, "var"))
      a.a = tagOrVar(n, "as", a, scope);
    finish();
    break;
  case FormKind::BeforeEvent:
    a.op = ActionOp::SetProp;
    a.a = find(props_, slotText(n, "prop"));
    args.push_back(formulaSlot(n, "value", scope).expr);
    finish();
    break;
  case FormKind::BeforeAbsorb:
    a.op = ActionOp::Absorb;
    if (tree_.slot(n, "upTo")) {
      a.flags |= kHasUpTo;
      args.push_back(formulaSlot(n, "upTo", scope).expr);
    }
    if (tree_.slot(n, "var")) {
      a.flags |= kIntoVar;
      a.a = varIndex(slotText(n, "var"), scope);
    } else if (tree_.slot(n, "pool")) {
      a.flags |= kIntoPool;
      a.a = valueId(slotText(n, "pool"));
    }
    if (const Slot *as = tree_.slot(n, "as"))
      a.resultSlot = scope.add(spanText(file, as->begin, as->end), Kind::Number);
    finish();
    break;
  case FormKind::BeforeRedirect:
    a.op = ActionOp::Redirect;
    {
      std::string to = slotText(n, "to");
      if (Id p = valueId(to); p != kNoId && tree_.nodes[n].kind == FormKind::BeforeRedirect &&
                              t_.values[p].kind == ValueKind::Pool) {
        a.a = p;
      } else {
        a.flags |= kHasOn;
        args.push_back(actorOf(n, "to", scope).expr);
      }
    }
    finish();
    break;
  default:
    notRunYet(n, std::string("`") + std::string(tree_.text(file, node.begin)) + "`");
    step.op = StepOp::If; // does nothing: its condition is 0 and it has no body
    args.push_back(constant(0));
    break;
  }
  step.argsBegin = uint32_t(t_.exprArgs.size());
  step.argCount = uint32_t(args.size());
  t_.exprArgs.insert(t_.exprArgs.end(), args.begin(), args.end());
}

// Lays out a list of sibling lines as contiguous steps, then each one's
// body after them; returns the first index.
uint32_t Lowerer::layOut(const std::vector<NodeId> &lines, BodyScope &scope) {
  // An else belongs to the if before it.
  std::vector<std::pair<NodeId, NodeId>> steps; // line, its else
  for (NodeId n : lines) {
    if (tree_.nodes[n].kind == FormKind::StepElse && !steps.empty() &&
        tree_.nodes[steps.back().first].kind == FormKind::StepIf) {
      steps.back().second = n;
      continue;
    }
    steps.push_back({n, kNone});
  }
  uint32_t first = uint32_t(t_.steps.size());
  t_.steps.resize(t_.steps.size() + steps.size());
  auto children = [&](NodeId n) { return childrenOf(n); };
  for (uint32_t i = 0; i < steps.size(); ++i) {
    auto [n, elseNode] = steps[i];
    Step step;
    lowerStep(n, step, scope);
    BodyScope inner = scope;
    if (tree_.nodes[n].kind == FormKind::StepForEach) {
      step.op = StepOp::ForEach;
      std::vector<Id> args;
      uint32_t file = tree_.nodes[n].file;
      bool held = tree_.slot(n, "held") != nullptr;
      step.info = held ? heldQuery(tree_.slot(n, "held")->value, scope, args)
                       : query(tree_.slot(n, "targets")->value, scope, args);
      const Slot *as = tree_.slot(n, "name");
      std::string local = as ? spanText(file, as->begin, as->end) : std::string("it");
      step.slot = inner.add(local, held ? Kind::Instance : Kind::Actor);
      step.argsBegin = uint32_t(t_.exprArgs.size());
      step.argCount = uint32_t(args.size());
      t_.exprArgs.insert(t_.exprArgs.end(), args.begin(), args.end());
    }
    auto kids = children(n);
    step.bodyBegin = step.bodyEnd = uint32_t(t_.steps.size());
    if (!kids.empty() && tree_.nodes[n].kind != FormKind::StepElse) {
      step.bodyBegin = layOut(kids, inner);
      step.bodyEnd = step.bodyBegin + uint32_t(kids.size());
      // layOut may fold an else into an if, leaving fewer steps.
      step.bodyEnd = bodyEndOf(step.bodyBegin, kids);
    }
    step.elseBegin = step.elseEnd = uint32_t(t_.steps.size());
    if (elseNode != kNone) {
      BodyScope elseScope = scope;
      auto elseKids = children(elseNode);
      if (!elseKids.empty()) {
        step.elseBegin = layOut(elseKids, elseScope);
        step.elseEnd = bodyEndOf(step.elseBegin, elseKids);
      }
    }
    t_.steps[first + i] = step;
  }
  return first;
}

uint32_t Lowerer::bodyEndOf(uint32_t begin, const std::vector<NodeId> &lines) const {
  uint32_t count = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (!(tree_.nodes[lines[i]].kind == FormKind::StepElse && i > 0 &&
          tree_.nodes[lines[i - 1]].kind == FormKind::StepIf))
      ++count;
  return begin + count;
}

std::vector<NodeId> Lowerer::childrenOf(NodeId n) const {
  std::vector<NodeId> kids;
  eachChild(n, [&](NodeId c) { kids.push_back(c); });
  return kids;
}

Id Lowerer::stepsBody(const std::vector<NodeId> &lines, BodyScope scope, NodeId at) {
  uint32_t slots = scope.nextSlot;
  scope.maxSlot = &slots;
  Body b;
  b.kind = BodyKind::Steps;
  b.line = lineOf(at);
  b.file = fileIndex_[tree_.files[tree_.nodes[at].file].file];
  b.stepsBegin = layOut(lines, scope);
  b.stepsEnd = bodyEndOf(b.stepsBegin, lines);
  b.localCount = slots - LEDGER_SLOT_FIRST_LOCAL;
  t_.bodies.push_back(b);
  return Id(t_.bodies.size() - 1);
}

} // namespace ledger::ir

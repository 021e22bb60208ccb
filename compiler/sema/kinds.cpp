// The kinds of formulas: a number, an actor, a tag, an ability, a held
// instance, a list, where the checker can tell, checked where a form wants one.
#include "sema/checker.h"

#include "sema/words.h"

#include <algorithm>

namespace ledger::sema {

const char *Checker::valueKindWithArticle(ValueKind kind) {
  switch (kind) {
  case ValueKind::Number:
    return "a number";
  case ValueKind::Actor:
    return "an actor";
  case ValueKind::Tag:
    return "a tag";
  case ValueKind::Ability:
    return "an ability";
  case ValueKind::Instance:
    return "a held instance";
  case ValueKind::List:
    return "a list of actors";
  case ValueKind::Unknown:
    break;
  }
  return "something";
}

// Walks a dotted name's members from an actor: a link is another actor, a
// value or a pile a number.
Checker::ValueKind Checker::memberOfActor(uint32_t file, uint32_t tok, uint32_t end) const {
  ValueKind kind = ValueKind::Actor;
  for (; tok < end; tok += 2) {
    if (kind != ValueKind::Actor)
      return ValueKind::Unknown;
    std::string_view member = text(file, tok);
    const Decl *shared = decls_.find(Namespace::Shared, member);
    if (member == "next" || (shared && shared->kind == RefKind::Link))
      kind = ValueKind::Actor;
    else if (decls_.find(Namespace::Value, member) || (shared && shared->kind == RefKind::Pile))
      kind = ValueKind::Number;
    else
      return ValueKind::Unknown;
  }
  return kind;
}

Checker::ValueKind Checker::pathKind(uint32_t file, uint32_t begin, uint32_t end,
                                     const Scope &scope) const {
  std::string_view first = text(file, begin);
  uint32_t next = begin + 2; // the token after `first.`
  if (scope.has(first))
    return ValueKind::Unknown;
  if (first == "X" || first == "charged" || first == "radius" || first == "true" ||
      first == "false")
    return end == begin + 1 ? ValueKind::Number : ValueKind::Unknown;
  if (first == "holder" || first == "source" || first == "credit" || first == "target" ||
      first == "projectile" || first == "next" || (first == "it" && !scope.it))
    return memberOfActor(file, next, end);
  if (first == "targets")
    return end == begin + 1 ? ValueKind::List : ValueKind::Unknown;
  if (first == "event") {
    if (end == begin + 1)
      return ValueKind::Unknown;
    std::string_view field = text(file, next);
    if (field == "subject" || field == "source" || field == "credit" || field == "target")
      return memberOfActor(file, next + 2, end);
    if (end != next + 1)
      return ValueKind::Unknown;
    if (field == "sent" || field == "amount" || field == "landed" || field == "overflow" ||
        field == "before" || field == "after")
      return ValueKind::Number;
    if (field == "ability")
      return ValueKind::Ability;
    if (field == "targets")
      return ValueKind::List;
    return ValueKind::Unknown;
  }
  if (first == "self") {
    if (end != next + 1)
      return ValueKind::Unknown;
    std::string_view member = text(file, next);
    if (member == "stacks" || member == "remaining" || member == "elapsed" || member == "beats")
      return ValueKind::Number;
    for (size_t i = 0; i < scope.vars.size(); ++i)
      if (scope.vars[i] == member) {
        std::string_view k = scope.varKinds[i];
        return k.empty()        ? ValueKind::Number
               : k == "actor"   ? ValueKind::Actor
               : k == "tag"     ? ValueKind::Tag
               : k == "ability" ? ValueKind::Ability
                                : ValueKind::Instance;
      }
    return ValueKind::Unknown;
  }
  if (decls_.find(Namespace::Value, first))
    return ValueKind::Number; // a value, or a member of a stat by type
  if (const Decl *shared = decls_.find(Namespace::Shared, first)) {
    if (shared->kind == RefKind::Link)
      return memberOfActor(file, next, end);
    if (shared->kind == RefKind::Pile)
      return end == begin + 1 ? ValueKind::Number : ValueKind::Unknown;
  }
  if (decls_.find(Namespace::Archetype, first) && end == begin + 3)
    return ValueKind::Number; // ARCHETYPE.STAT
  if (end == begin + 1 && decls_.find(Namespace::Tag, first) &&
      !decls_.find(Namespace::Effect, first) && !decls_.find(Namespace::Ability, first))
    return ValueKind::Tag;
  if (end > begin + 1 && decls_.find(Namespace::Tag, tree_.span(file, begin, end)))
    return ValueKind::Tag; // a dotted tag: School.Fire
  if (end == begin + 1 && decls_.find(Namespace::Ability, first) &&
      !decls_.find(Namespace::Effect, first))
    return ValueKind::Ability;
  return ValueKind::Unknown;
}

Checker::ValueKind Checker::exprKind(ExprId id, const Scope &scope) const {
  const Expr &e = tree_.exprs[id];
  switch (e.kind) {
  case ExprKind::Number:
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Except:
    return ValueKind::Number;
  case ExprKind::Path:
    return tree_.token(e.file, e.begin).kind == TokenKind::Ellipsis
               ? ValueKind::Unknown
               : pathKind(e.file, e.begin, e.end, scope);
  case ExprKind::Call: {
    std::string name(tree_.span(e.file, e.begin, e.nameEnd));
    if (name == "if" && e.argCount == 3) {
      ValueKind a = exprKind(tree_.exprArgs[e.firstArg + 1], scope);
      ValueKind b = exprKind(tree_.exprArgs[e.firstArg + 2], scope);
      return a == b ? a : ValueKind::Unknown;
    }
    if (name == "tag")
      return ValueKind::Tag;
    for (const BuiltinFunction &f : kFunctions)
      if (f.name == name)
        return ValueKind::Number;
    const Decl *decl = decls_.find(Namespace::Shared, name);
    if (decl && (decl->kind == RefKind::Curve || decl->kind == RefKind::Table))
      return ValueKind::Number;
    return ValueKind::Unknown;
  }
  case ExprKind::Part:
    return tree_.nodes[e.part].kind == FormKind::Held ? ValueKind::Instance : ValueKind::List;
  case ExprKind::Member:
  case ExprKind::Duration:
    return ValueKind::Unknown;
  }
  return ValueKind::Unknown;
}

void Checker::wantKind(ExprId id, ValueKind wanted, const Scope &scope, const char *wantedText) {
  ValueKind got = exprKind(id, scope);
  if (got == ValueKind::Unknown || got == wanted)
    return;
  const Expr &e = tree_.exprs[id];
  std::string written(tree_.span(e.file, e.begin, e.end));
  diags_.report(DiagKind::KindMismatch, tree_.loc(e.file, e.begin),
                static_cast<uint32_t>(written.size()), written, valueKindWithArticle(got),
                wantedText ? wantedText : valueKindWithArticle(wanted));
}

// Arithmetic reads numbers: an actor plus one is no formula.
void Checker::checkArithmetic(ExprId id, const Scope &scope) {
  const Expr &e = tree_.exprs[id];
  bool arithmetic = (e.kind == ExprKind::Binary && (e.op == ExprOp::Add || e.op == ExprOp::Sub ||
                                                    e.op == ExprOp::Mul || e.op == ExprOp::Div)) ||
                    (e.kind == ExprKind::Unary && e.op == ExprOp::Neg);
  if (arithmetic)
    for (uint32_t i = 0; i < e.argCount; ++i)
      wantKind(tree_.exprArgs[e.firstArg + i], ValueKind::Number, scope);
  // has(HANDLE): whether the instance a handle names is still held.
  if (e.kind == ExprKind::Call && e.argCount == 1 && tree_.text(e.file, e.begin) == "has")
    wantKind(tree_.exprArgs[e.firstArg], ValueKind::Instance, scope);
  if (e.kind != ExprKind::Part)
    for (uint32_t i = 0; i < e.argCount; ++i)
      checkArithmetic(tree_.exprArgs[e.firstArg + i], scope);
}

// The slots whose formula is a number wherever they stand, and those that
// name an actor.
bool Checker::wantsNumber(std::string_view label) {
  constexpr std::string_view kNumbers[] = {
      "amount", "more",   "stacks", "count",    "cond", "upTo",      "factor", "share",
      "key",    "max",    "min",    "stronger", "line", "untilLine", "speed",  "radius",
      "within", "beyond", "across", "wide",     "by",   "value",     "outOf"};
  for (std::string_view n : kNumbers)
    if (n == label)
      return true;
  return false;
}

bool Checker::wantsActor(FormKind form, std::string_view label) {
  if (form == FormKind::TargetsActor || form == FormKind::Who)
    return label == "actor";
  switch (form) {
  case FormKind::StepDeal:
  case FormKind::StepHeal:
  case FormKind::StepApply:
  case FormKind::StepStop:
  case FormKind::StepBecome:
  case FormKind::StepRaise:
  case FormKind::StepRequest:
  case FormKind::EffectMirror:
    return label == "from" || label == "actor" || label == "by" || label == "toward" ||
           label == "of";
  default:
    return false;
  }
}

// A dotted name in a slot that names one kind of thing.
void Checker::wantPathKind(uint32_t file, const Slot &slot, ValueKind wanted, const Scope &scope) {
  ValueKind got = pathKind(file, slot.begin, slot.end, scope);
  if (got == ValueKind::Unknown && wanted == ValueKind::Actor) {
    // An effect, an archetype or an event is no actor either.
    std::string_view first = text(file, slot.begin);
    if (slot.end != slot.begin + 1 || scope.has(first))
      return;
    for (Namespace ns : {Namespace::Effect, Namespace::Archetype, Namespace::Shared})
      if (const Decl *other = decls_.find(ns, first); other && other->kind != RefKind::Link) {
        diags_.report(DiagKind::KindMismatch, tree_.loc(file, slot.begin),
                      static_cast<uint32_t>(first.size()), first, refKindWithArticle(other->kind),
                      valueKindWithArticle(wanted));
        return;
      }
    return;
  }
  if (got == ValueKind::Unknown || got == wanted)
    return;
  std::string written(tree_.span(file, slot.begin, slot.end));
  diags_.report(DiagKind::KindMismatch, tree_.loc(file, slot.begin),
                static_cast<uint32_t>(written.size()), written, valueKindWithArticle(got),
                valueKindWithArticle(wanted));
}

// A step's name that must be a declared effect, archetype or ability
// ("EFFECT: a declared effect"): another kind declared, or a root, is
// refused here. A local or a var holds what the run says; a name nothing
// declares is resolveHead's to refuse.
void Checker::wantDeclared(uint32_t file, const Slot &slot, RefKind wanted, const Scope &scope) {
  std::string written(tree_.span(file, slot.begin, slot.end));
  std::string_view first = text(file, slot.begin);
  if (scope.has(first) || first == "self" || first == "event" ||
      decls_.find(namespaceOf(wanted), written) ||
      (wanted == RefKind::Effect && isCooldown(written)))
    return;
  std::string got;
  for (Namespace ns : {Namespace::Value, Namespace::Effect, Namespace::Ability,
                       Namespace::Archetype, Namespace::Shared, Namespace::Tag})
    if (const Decl *other = got.empty() ? decls_.find(ns, written) : nullptr)
      got = refKindWithArticle(other->kind);
  if (ValueKind k = pathKind(file, slot.begin, slot.end, scope); got.empty() && k != ValueKind::Unknown)
    got = valueKindWithArticle(k);
  if (got.empty())
    return;
  diags_.report(DiagKind::WrongKind, tree_.loc(file, slot.begin),
                static_cast<uint32_t>(written.size()), written, got, refKindWithArticle(wanted));
}

// redirect to ACTOR | redirect to POOL: "a declared pool", or an actor.
void Checker::wantActorOrPool(uint32_t file, const Slot &slot, const Scope &scope) {
  std::string written(tree_.span(file, slot.begin, slot.end));
  std::string_view first = text(file, slot.begin);
  if (scope.has(first))
    return;
  const Decl *value = decls_.find(Namespace::Value, written);
  if (value && value->kind == RefKind::Pool)
    return;
  std::string got;
  if (value)
    got = refKindWithArticle(value->kind);
  for (Namespace ns : {Namespace::Effect, Namespace::Ability, Namespace::Archetype,
                       Namespace::Shared, Namespace::Tag})
    if (const Decl *other = got.empty() && slot.end == slot.begin + 1 ? decls_.find(ns, written)
                                                                     : nullptr;
        other && other->kind != RefKind::Link)
      got = refKindWithArticle(other->kind);
  if (ValueKind k = pathKind(file, slot.begin, slot.end, scope);
      got.empty() && k != ValueKind::Unknown && k != ValueKind::Actor)
    got = valueKindWithArticle(k);
  if (got.empty())
    return;
  diags_.report(DiagKind::WrongKind, tree_.loc(file, slot.begin),
                static_cast<uint32_t>(written.size()), written, got, "an actor or a pool");
}

// HANDLE: "one held instance: held(...), self (the instance running the
// rule), self.VAR … or a name let or for each holds one in": an effect's name
// is none, and `self` is an effect's lines' alone.
void Checker::wantHandle(ExprId id, const Scope &scope) {
  const Expr &e = tree_.exprs[id];
  if (e.kind != ExprKind::Path || e.end != e.begin + 1)
    return;
  std::string_view name = tree_.text(e.file, e.begin);
  if (scope.has(name))
    return;
  if (name == "self" && !scope.inEffect)
    diags_.report(DiagKind::RootOutOfPlace, tree_.loc(e.file, e.begin), 4, "self",
                  "in an effect's lines, the instance running the rule");
  else if (decls_.find(Namespace::Effect, name))
    diags_.report(DiagKind::KindMismatch, tree_.loc(e.file, e.begin),
                  static_cast<uint32_t>(name.size()), name, "an effect", "a held instance");
}

// The slots that name one held instance (a handle), and the abilities a step
// names.
bool Checker::wantsInstance(FormKind form, std::string_view label) {
  return (form == FormKind::StepRemove && label == "what") ||
         (form == FormKind::StepCopy && label == "handle") ||
         ((form == FormKind::BeforeScaleDuration || form == FormKind::BeforeAddDuration ||
           form == FormKind::BeforeAtMost) &&
          label == "on");
}
bool Checker::wantsAbility(FormKind form, std::string_view label) {
  return (form == FormKind::StepCast || form == FormKind::StepRemove) && label == "ability";
}

// `grants self.VAR` grants the ability a var holds; `blocks … having
// self.VAR` asks for the tag one holds, `convert … to self.VAR` and `add …
// as self.VAR` move into that tag's portion, and `remove all self.VAR`
// takes off what carries it.
void Checker::checkVarKind(NodeId n, std::string_view wanted, const Scope &scope) {
  const Slot *var = tree_.slot(n, "var");
  if (!var)
    return;
  uint32_t file = tree_.nodes[n].file;
  // A step's self.VAR names the var of the instance running it.
  if (!scope.inEffect) {
    diags_.report(DiagKind::RootOutOfPlace, tree_.loc(file, var->begin - 2), 4, "self",
                  "in an effect's lines, the instance running the rule");
    return;
  }
  std::string_view name = text(file, var->begin);
  auto phrase = [](std::string_view kind) {
    return kind.empty()        ? "a number"
           : kind == "actor"   ? "an actor"
           : kind == "tag"     ? "a tag"
           : kind == "ability" ? "an ability"
                               : "a held instance";
  };
  for (size_t i = 0; i < scope.vars.size(); ++i)
    if (scope.vars[i] == name) {
      if (scope.varKinds[i] != wanted)
        diags_.report(DiagKind::VarKindWanted, tree_.loc(file, var->begin),
                      length(file, var->begin), name, phrase(scope.varKinds[i]), phrase(wanted));
      return;
    }
  diags_.report(DiagKind::UnknownVar, tree_.loc(file, var->begin), length(file, var->begin), name);
}

// A tag written for a property: "one under a parent at any depth and never
// the parent (under), or one of a set of two or more (among)".
void Checker::checkTagHeld(NodeId prop, ExprId id, const Scope &scope) {
  const Expr &e = tree_.exprs[id];
  if (e.kind != ExprKind::Path || pathKind(e.file, e.begin, e.end, scope) != ValueKind::Tag)
    return;
  std::string_view tag = tree_.span(e.file, e.begin, e.end);
  if (!decls_.find(Namespace::Tag, tag))
    return; // a tag var: known as it runs
  Loc loc = tree_.loc(e.file, e.begin);
  auto len = static_cast<uint32_t>(tag.size());
  uint32_t file = tree_.nodes[prop].file;
  if (const Slot *under = tree_.slot(prop, "under")) {
    std::string parent(tree_.span(file, under->begin, under->end));
    if (tag.rfind(parent + ".", 0) != 0)
      diags_.report(DiagKind::PropDefaultNotUnder, loc, len, tag, parent);
  } else if (const Slot *among = tree_.slot(prop, "among")) {
    bool found = false;
    tree_.eachItem(file, *among, true, [&](uint32_t b, uint32_t end) {
      found = found || tree_.span(file, b, end) == tag;
    });
    if (!found)
      diags_.report(DiagKind::PropDefaultNotAmong, loc, len, tag);
  }
}

void Checker::checkKinds(NodeId n, const Scope &scope) {
  const Node &node = tree_.nodes[n];
  if (node.kind == FormKind::EffectGrants)
    checkVarKind(n, "ability", scope);
  if (node.kind == FormKind::EffectBlocks || node.kind == FormKind::BeforeConvert ||
      node.kind == FormKind::BeforeAdd || node.kind == FormKind::StepRemove)
    checkVarKind(n, "tag", scope);
  // absorb into self.VAR: "a var the effect declares", holding a number.
  if (node.kind == FormKind::BeforeAbsorb)
    checkVarKind(n, "", scope);
  if (node.kind == FormKind::BeforeRedirect)
    if (const Slot *to = tree_.slot(n, "to"))
      wantActorOrPool(node.file, *to, scope);
  // A let names what it is given, and a self var is set as its kind says.
  bool anyKind = node.kind == FormKind::StepLet || node.kind == FormKind::Assign ||
                 node.kind == FormKind::StepSelf || node.kind == FormKind::EffectVar;
  // event.PROP = F: a tag for a property among or under tags, else a number.
  if (node.kind == FormKind::BeforeEvent)
    if (const Slot *value = tree_.slot(n, "value")) {
      const Decl *prop = decls_.find(Namespace::Shared, slotText(n, "prop"));
      bool tagged = prop && prop->kind == RefKind::Prop && prop->node != kNone &&
                    (tree_.slot(prop->node, "under") || tree_.slot(prop->node, "among"));
      checkArithmetic(value->value, scope);
      wantKind(value->value, tagged ? ValueKind::Tag : ValueKind::Number, scope);
      if (tagged)
        checkTagHeld(prop->node, value->value, scope);
      return;
    }
  // A link override points its link at an actor.
  if (node.kind == FormKind::EffectLinkOverride)
    if (const Slot *amount = tree_.slot(n, "amount")) {
      wantKind(amount->value, ValueKind::Actor, scope);
      return;
    }
  if (node.kind == FormKind::EffectModifier) { // `LINK = ACTOR` points a link
    const Decl *link = decls_.find(Namespace::Shared, slotText(n, "stat"));
    anyKind = link && link->kind == RefKind::Link;
  }
  for (uint32_t i = 0; i < node.slotCount; ++i) {
    const Slot &slot = tree_.slots[node.firstSlot + i];
    std::string_view label = labelText(slot.label);
    if (slot.kind == SlotKind::Formula) {
      checkArithmetic(slot.value, scope);
      if (!anyKind && wantsNumber(label))
        wantKind(slot.value, ValueKind::Number, scope);
      // A handle; a remove may name an effect instead.
      if (wantsInstance(node.kind, label)) {
        wantKind(slot.value, ValueKind::Instance, scope,
                 node.kind == FormKind::StepRemove ? "a held instance or an effect" : nullptr);
        if (node.kind != FormKind::StepRemove)
          wantHandle(slot.value, scope);
      }
    } else if (slot.kind == SlotKind::Path && wantsAbility(node.kind, label)) {
      // What reads as another kind is wantPathKind's to refuse, once.
      if (pathKind(node.file, slot.begin, slot.end, scope) == ValueKind::Unknown)
        wantDeclared(node.file, slot, RefKind::Ability, scope);
      else
        wantPathKind(node.file, slot, ValueKind::Ability, scope);
    } else if (slot.kind == SlotKind::Path && node.kind == FormKind::StepApply && label == "effect") {
      wantDeclared(node.file, slot, RefKind::Effect, scope);
    } else if (slot.kind == SlotKind::Path && node.kind == FormKind::StepCreate &&
               label == "archetype") {
      wantDeclared(node.file, slot, RefKind::Archetype, scope);
    } else if (slot.kind == SlotKind::Path && wantsActor(node.kind, label)) {
      wantPathKind(node.file, slot, ValueKind::Actor, scope);
    } else if (slot.kind == SlotKind::Part) {
      // A block's from names a side alone, refused as such whatever it names.
      if (node.kind == FormKind::EffectBlocks && label == "from")
        continue;
      Scope partScope = scope;
      FormKind part = tree_.nodes[slot.value].kind;
      partScope.it = scope.it || part == FormKind::TargetsQuery || part == FormKind::Held ||
                     part == FormKind::Keys || part == FormKind::Order;
      checkKinds(slot.value, partScope);
    }
  }
}

} // namespace ledger::sema

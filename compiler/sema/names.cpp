// Names: what each line reads, resolved in the scope its place gives it, and
// the roots read only where they mean something.
#include "sema/checker.h"

#include "diag/nearest.h"

#include "sema/words.h"

#include <algorithm>

namespace ledger::sema {

std::string_view Checker::head(std::string_view dotted) {
  return dotted.substr(0, dotted.find('.'));
}

bool Checker::declaredAnywhere(std::string_view name) const {
  for (const auto &map : decls_.byNamespace)
    if (map.count(name))
      return true;
  return among(kBuiltinEvents, name);
}

// ABILITY.cooldown: "an effect the ability puts on its caster".
bool Checker::isCooldown(std::string_view name) const {
  constexpr std::string_view kSuffix = ".cooldown";
  return name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix &&
         decls_.find(Namespace::Ability, name.substr(0, name.size() - kSuffix.size()));
}

void Checker::resolveRef(const Slot &slot, uint32_t file, uint32_t begin, uint32_t end,
                         const Scope &scope) {
  std::string name(tree_.span(file, begin, end));
  // A parameter or a local (a pick's row) stands for what it is given.
  if (scope.has(head(name)))
    return;
  RefKind kind = slot.ref;
  Loc loc = tree_.loc(file, begin);
  auto len = static_cast<uint32_t>(name.size());
  if ((kind == RefKind::Event || kind == RefKind::EventOrTag) && among(kBuiltinEvents, name))
    return;
  if (kind == RefKind::EffectOrTag || kind == RefKind::Rule) {
    bool effect = decls_.find(Namespace::Effect, name) != nullptr || isCooldown(name);
    bool other = kind == RefKind::Rule ? decls_.find(Namespace::Ability, name) != nullptr
                                       : decls_.find(Namespace::Tag, name) != nullptr;
    if (!effect && !other)
      diags_.report(DiagKind::UndeclaredName, loc, len, name, refKindName(kind));
    return;
  }
  if (kind == RefKind::EventOrTag) {
    if (name == "any") // a filter's every event
      return;
    // A filter may name a pool: its changes.
    const Decl *value = decls_.find(Namespace::Value, name);
    if (value && value->kind == RefKind::Pool && labelText(slot.label) == "event")
      return;
    const Decl *event = decls_.find(Namespace::Shared, name);
    if ((event && event->kind == RefKind::Event) || decls_.find(Namespace::Tag, name))
      return;
    diags_.report(DiagKind::UndeclaredName, loc, len, name, refKindName(kind));
    return;
  }
  if (kind == RefKind::Prop && name == "charged") {
    diags_.report(DiagKind::ChargedIsSetByNothing, loc, len);
    return;
  }
  if (kind == RefKind::Effect && isCooldown(name))
    return;
  const Decl *decl = decls_.find(namespaceOf(kind), name);
  if (kind == RefKind::Stat || kind == RefKind::Pool) {
    // A member of a stat by type: Resist.Fire
    if (!decl && name.find('.') != std::string::npos)
      decl = decls_.find(Namespace::Value, head(name));
    if (decl && decl->kind != kind) {
      diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind),
                    refKindWithArticle(kind));
      return;
    }
    if (decl && name.find('.') != std::string::npos)
      checkStatMember(file, begin, end);
  } else if (decl && namespaceOf(kind) == Namespace::Shared && decl->kind != kind) {
    diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind),
                  refKindWithArticle(kind));
    return;
  }
  if (!decl)
    diags_.report(DiagKind::UndeclaredName, loc, len, name, refKindName(kind));
}

// The first name of a dotted name read in a formula or naming an actor: a
// root or a word of the language, a local, or anything the catalog declares.
void Checker::resolveHead(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
  std::string_view first = text(file, begin);
  if (scope.has(first))
    return;
  if (scope.inPlay) {
    char k = scope.playedKind(first);
    if (k == 'a')
      return;
    if (k) {
      diags_.report(DiagKind::PlayNameKind, tree_.loc(file, begin), length(file, begin), first,
                    k == 'k' ? "an activation the play kept" : "a save", "an actor it named");
      return;
    }
  }
  if (among(kRoots, first)) {
    checkRootPlace(file, begin, scope);
    return;
  }
  if (declaredAnywhere(first) || declaredAnywhere(tree_.span(file, begin, end)))
    return;
  if (!scope.inPlay) {
    std::vector<std::string_view> names;
    for (const auto &map : decls_.byNamespace)
      for (const auto &[name, decl] : map)
        names.push_back(name);
    if (std::string_view near = nearestWord(first, names); !near.empty()) {
      diags_.report(DiagKind::UnknownFormulaNameNear, tree_.loc(file, begin), length(file, begin),
                    first, near);
      return;
    }
  }
  diags_.report(scope.inPlay ? DiagKind::UnknownPlayName : DiagKind::UnknownFormulaName,
                tree_.loc(file, begin), length(file, begin), first);
}

// "roots allowed only where they mean something"
void Checker::checkRootPlace(uint32_t file, uint32_t tok, const Scope &scope) {
  if (scope.inPlay)
    return;
  std::string_view root = text(file, tok);
  const char *where = nullptr;
  if (root == "projectile" && !scope.flight)
    where = "in a flight's own steps and its hit's";
  else if (root == "event" && !scope.eventInHand)
    where = "where an event is in hand: a rule hearing one, or an ability's lines";
  else if (root == "it" && !scope.it)
    where = "where each candidate is read as it: a query's when and sort, held(...), "
            "sum, highest and lowest, a sort key, a table's rows";
  else if (root == "targets" && !scope.listTargets)
    where = "in an ability whose target clause takes a list";
  else if (root == "grant" && !scope.inAbility)
    where = "in an ability: the instance that granted its use";
  else if (root == "charged" && !scope.eventInHand)
    where = "where a chain may carry it: an ability's lines, or a rule hearing an event";
  if (where)
    diags_.report(DiagKind::RootOutOfPlace, tree_.loc(file, tok), length(file, tok), root, where);
}

// self.VAR in an effect reads one of its vars, or what every instance has;
// self.beats is a channel's own, in its every and its broken by. A step
// setting one (assigned) sets a var the effect declares, nothing else.
void Checker::resolveSelfMember(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope,
                                bool assigned) {
  if (end < begin + 3 || text(file, begin) != "self")
    return;
  std::string_view member = text(file, begin + 2);
  if (member == "beats" && scope.beat)
    return;
  if (!scope.inEffect) {
    if (scope.inPlay)
      return;
    if (member == "beats")
      diags_.report(DiagKind::RootOutOfPlace, tree_.loc(file, begin), 10, "self.beats",
                    "in a channel's every and its broken by");
    else if (scope.inAbility)
      diags_.report(DiagKind::RootOutOfPlace, tree_.loc(file, begin), 4, "self",
                    "in an effect's lines, the instance running the rule (and self.beats in a "
                    "channel's)");
    return;
  }
  for (const std::string &v : scope.vars)
    if (v == member)
      return;
  if (!assigned && (member == "stacks" || member == "remaining" || member == "elapsed" ||
                    scope.has(member)))
    return;
  diags_.report(DiagKind::UnknownVar, tree_.loc(file, begin + 2), length(file, begin + 2), member);
}

void Checker::resolveCall(const Expr &e, const Scope &scope) {
  std::string name(tree_.span(e.file, e.begin, e.nameEnd));
  // distance(PLACE, PLACE) and fact(FACT, ACTOR, PLACE) read places.
  for (uint32_t i = 0; i < e.argCount; ++i) {
    const Expr &arg = tree_.exprs[tree_.exprArgs[e.firstArg + i]];
    if (arg.kind == ExprKind::Path && (name == "distance" || (name == "fact" && i == 2)))
      checkPlace(arg.file, arg.begin, arg.end, scope);
  }
  Loc loc = tree_.loc(e.file, e.begin);
  auto len = static_cast<uint32_t>(name.size());
  for (const BuiltinFunction &f : kFunctions) {
    if (f.name != name)
      continue;
    if (e.argCount < f.least || e.argCount > f.most)
      diags_.report(DiagKind::FunctionArity, loc, len, name, f.written, e.argCount);
    else
      checkEffectArg(e, name, scope);
    return;
  }
  if (scope.has(name))
    return;
  const Decl *decl = decls_.find(Namespace::Shared, name);
  if (decl && decl->kind == RefKind::Curve) {
    if (e.argCount != 1)
      diags_.report(DiagKind::FunctionArity, loc, len, name, "CURVE(F)", e.argCount);
    return;
  }
  if (decl && decl->kind == RefKind::Table) {
    if (e.argCount != 2)
      diags_.report(DiagKind::FunctionArity, loc, len, name, "TABLE(a, b)", e.argCount);
    return;
  }
  diags_.report(DiagKind::UnknownFunction, loc, len, name);
}

// has(ACTOR, EFFECT | TAG) | has(HANDLE), count(TARGETS) | count(ACTOR, EFFECT
// [, ACTOR]) | count(ACTOR, TAG), stacks and highest stacks (ACTOR, EFFECT [,
// ACTOR]): "EFFECT: a declared effect", "TAG: a declared tag", and an actor,
// a handle or a query where those stand; a declared name of another kind is
// none of them.
void Checker::checkEffectArg(const Expr &call, std::string_view name, const Scope &scope) {
  bool tagToo = name == "has" || name == "count";
  if (!(tagToo || name == "stacks" || name == "highest stacks"))
    return;
  for (uint32_t i = 0; i < call.argCount; ++i) {
    const Expr &arg = tree_.exprs[tree_.exprArgs[call.firstArg + i]];
    if (arg.kind != ExprKind::Path || tree_.token(arg.file, arg.begin).kind != TokenKind::Name)
      continue;
    std::string written(tree_.span(arg.file, arg.begin, arg.end));
    std::string_view first = text(arg.file, arg.begin);
    // A local, a parameter or self.VAR stands for what it is given.
    if (scope.has(first) || among(kRoots, first))
      continue;
    bool effect = call.argCount > 1 && i == 1;
    if (effect && (decls_.find(Namespace::Effect, written) || isCooldown(written) ||
                   (tagToo && decls_.find(Namespace::Tag, written))))
      continue;
    const Decl *link = decls_.find(Namespace::Shared, first);
    if (!effect && link && link->kind == RefKind::Link)
      continue; // an actor through a link
    const Decl *other = nullptr;
    for (Namespace ns : {Namespace::Value, Namespace::Effect, Namespace::Ability,
                         Namespace::Archetype, Namespace::Shared, Namespace::Tag})
      if (!other && !(effect && ns == Namespace::Effect))
        other = decls_.find(ns, written);
    if (!other) // a member of a stat by type: Resist.Fire
      other = decls_.find(Namespace::Value, head(written));
    // No declared name is resolveHead's to say; a value as a handle, wantKind's.
    if (!other || (call.argCount == 1 && name == "has" &&
                   (other->kind == RefKind::Stat || other->kind == RefKind::Pool)))
      continue;
    Loc loc = tree_.loc(arg.file, arg.begin);
    auto len = static_cast<uint32_t>(written.size());
    if (effect)
      diags_.report(DiagKind::ReadsNoEffect, loc, len, written, refKindWithArticle(other->kind),
                    name, tagToo ? " or tag" : "");
    else
      diags_.report(DiagKind::WrongKind, loc, len, written, refKindWithArticle(other->kind),
                    call.argCount > 1 ? "an actor"
                    : name == "has"   ? "a held instance"
                                      : "an actor or a query");
  }
}

// ARCHETYPE.STAT: "the base an archetype gives a stat", "STAT: a declared stat".
void Checker::checkArchetypeRead(uint32_t file, uint32_t begin, uint32_t end) {
  std::string_view first = text(file, begin);
  if (end < begin + 3 || !decls_.find(Namespace::Archetype, first) ||
      decls_.find(Namespace::Value, first) || decls_.find(Namespace::Shared, first))
    return;
  std::string stat(tree_.span(file, begin + 2, end));
  const Decl *value = decls_.find(Namespace::Value, stat);
  if (!value) // a member of a stat by type: Knight.Resist.Fire
    if (const Decl *byType = decls_.find(Namespace::Value, head(stat));
        byType && byType->kind == RefKind::Stat && byType->node != kNone &&
        tree_.hasFlag(byType->node, "by type"))
      value = byType;
  if (value && value->kind == RefKind::Stat)
    return;
  diags_.report(DiagKind::ArchetypeReadsNoStat, tree_.loc(file, begin + 2),
                static_cast<uint32_t>(stat.size()), stat,
                value ? refKindWithArticle(value->kind) : "no declared name");
}

// NAME.done | NAME.made | NAME.merged | NAME.refused | NAME.REFUSAL: "a
// step's result, as NAME last on an apply, a copy, a remove or a cast names it".
void Checker::checkResultRead(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
  if (end < begin + 3 ||
      std::find(scope.results.begin(), scope.results.end(), text(file, begin)) ==
          scope.results.end())
    return;
  std::string_view field = text(file, begin + 2);
  constexpr std::string_view kCounts[] = {"done", "made", "merged", "refused"};
  if (end == begin + 3 && (among(kCounts, field) || among(kReasons, field)))
    return;
  diags_.report(DiagKind::ResultReadsNothing, tree_.loc(file, begin + 2), length(file, begin + 2),
                field);
}

void Checker::resolveExpr(ExprId id, const Scope &scope) {
  const Expr &e = tree_.exprs[id];
  switch (e.kind) {
  case ExprKind::Path:
    if (tree_.token(e.file, e.begin).kind == TokenKind::Ellipsis) {
      if (!scope.inTemplate)
        diags_.report(DiagKind::EllipsisOutsideTemplate, tree_.loc(e.file, e.begin), 3);
      return;
    }
    resolveHead(e.file, e.begin, e.end, scope);
    resolveSelfMember(e.file, e.begin, e.end, scope);
    checkStatByTypeBare(e.file, e.begin, e.end, scope);
    checkMembers(e.file, e.begin, e.end, scope);
    if (!scope.has(text(e.file, e.begin)))
      checkArchetypeRead(e.file, e.begin, e.end);
    else
      checkResultRead(e.file, e.begin, e.end, scope);
    return;
  case ExprKind::Call: {
    resolveCall(e, scope);
    // sum, highest and lowest read their formula of each one found as it.
    std::string_view name = text(e.file, e.begin);
    bool each =
        e.nameEnd == e.begin + 1 && (name == "sum" || name == "highest" || name == "lowest");
    for (uint32_t i = 0; i < e.argCount; ++i) {
      Scope argScope = scope;
      argScope.it = scope.it || (each && i > 0);
      resolveExpr(tree_.exprArgs[e.firstArg + i], argScope);
    }
    return;
  }
  case ExprKind::Part: { // held(...) or a query: each found is read as it
    // `targets` in a formula (count(targets)), where the clause takes a list
    if (tree_.nodes[e.part].kind == FormKind::TargetsList)
      if (const Slot *list = tree_.slot(e.part, "list"); list && list->end == list->begin + 1)
        checkRootPlace(tree_.nodes[e.part].file, list->begin, scope);
    Scope partScope = scope;
    partScope.it = true;
    resolveSlots(e.part, partScope);
    return;
  }
  case ExprKind::Except: {
    // STAT: a declared stat, read on its holder or through a member.
    const Expr &base = tree_.exprs[tree_.exprArgs[e.firstArg]];
    uint32_t nameAt = base.kind == ExprKind::Member ? base.nameEnd
                      : base.kind == ExprKind::Path ? base.end - 1
                                                    : kNone;
    if (nameAt != kNone && tree_.token(e.file, nameAt).kind == TokenKind::Name) {
      std::string name(tree_.text(e.file, nameAt));
      const Decl *decl = decls_.find(Namespace::Value, name);
      if (decl && decl->kind != RefKind::Stat)
        diags_.report(DiagKind::WrongKind, tree_.loc(e.file, nameAt), uint32_t(name.size()), name,
                      refKindWithArticle(decl->kind), "a stat");
    }
    const Slot tags{0, SlotKind::Refs, RefKind::Tag, e.nameEnd, e.end, kNone};
    eachListItem(tags, e.file, true,
                 [&](uint32_t b, uint32_t en) { resolveRef(tags, e.file, b, en, scope); });
    break;
  }
  default:
    break;
  }
  for (uint32_t i = 0; i < e.argCount; ++i)
    resolveExpr(tree_.exprArgs[e.firstArg + i], scope);
}

// Slots whose names aren't read as actors or formulas: what a census or a
// coverage line names, and what a with sets (a var, a property, a link).
bool Checker::namesNoActor(std::string_view label) {
  return label == "check" || label == "name" || label == "stat" || label == "target";
}

void Checker::resolveSlots(NodeId n, const Scope &scope) {
  const Node &node = tree_.nodes[n];
  bool assign = node.kind == FormKind::Assign;
  // self.VAR = F: "VAR: a var the effect declares", as a read's is.
  if (node.kind == FormKind::StepSelf && scope.inEffect)
    resolveSelfMember(node.file, node.begin, node.begin + 3, scope, true);
  for (uint32_t i = 0; i < node.slotCount; ++i) {
    const Slot &slot = tree_.slots[node.firstSlot + i];
    switch (slot.kind) {
    case SlotKind::Ref:
      resolveRef(slot, node.file, slot.begin, slot.end, scope);
      // A clock's or a regen's stat is read bare, as a formula's would be.
      if (readsStat(node.kind, labelText(slot.label)))
        checkStatByTypeBare(node.file, slot.begin, slot.end, scope);
      break;
    case SlotKind::Refs:
      eachListItem(slot, node.file, true,
                   [&](uint32_t b, uint32_t e) { resolveRef(slot, node.file, b, e, scope); });
      break;
    case SlotKind::Path:
      if (!(assign || namesNoActor(labelText(slot.label)) ||
            node.kind == FormKind::ExpectCoverage)) {
        resolveHead(node.file, slot.begin, slot.end, scope);
        resolveSelfMember(node.file, slot.begin, slot.end, scope);
        checkMembers(node.file, slot.begin, slot.end, scope);
        std::string_view label = labelText(slot.label);
        if ((node.kind == FormKind::StepCreate && label == "at") ||
            (node.kind == FormKind::TargetsQuery && label == "of"))
          checkPlace(node.file, slot.begin, slot.end, scope);
      }
      break;
    case SlotKind::Formula:
    case SlotKind::Duration:
      resolveExpr(slot.value, scope);
      break;
    case SlotKind::Part: {
      // A query, held(...) and a sort read each candidate as it.
      FormKind part = tree_.nodes[slot.value].kind;
      if (part == FormKind::TargetsList) // `targets`, where the clause takes a list
        if (const Slot *list = tree_.slot(slot.value, "list"); list && list->end == list->begin + 1)
          checkRootPlace(node.file, list->begin, scope);
      Scope partScope = scope;
      partScope.it = scope.it || part == FormKind::TargetsQuery || part == FormKind::Held ||
                     part == FormKind::Keys || part == FormKind::Order;
      // "stacks, remaining, elapsed and suspended alone are it's"
      if (part == FormKind::Order)
        for (const char *field : {"stacks", "remaining", "elapsed", "suspended"})
          partScope.locals.push_back(field);
      resolveSlots(slot.value, partScope);
      break;
    }
    default:
      break;
    }
  }
}

std::string Checker::slotText(NodeId n, std::string_view label) const {
  const Slot *s = tree_.slot(n, label);
  return s ? std::string(tree_.span(tree_.nodes[n].file, s->begin, s->end)) : std::string();
}

void Checker::addVars(NodeId definition, Scope &scope) const {
  for (NodeId c = tree_.nodes[definition].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
    if (tree_.nodes[c].kind == FormKind::EffectVar) {
      scope.vars.push_back(slotText(c, "name"));
      scope.varKinds.push_back(slotText(c, "kind"));
    }
}

// A definition's own scope: what its kind lets its lines read.
Checker::Scope Checker::definitionScope(NodeId n, Scope scope) {
  const Node &node = tree_.nodes[n];
  switch (node.kind) {
  case FormKind::Template:
  case FormKind::Replace:
    scope.inTemplate =
        scope.inTemplate || node.kind == FormKind::Template || slotText(n, "kind") == "template";
    for (const Slot *p : tree_.slotsNamed(n, "param"))
      if (const Slot *name = tree_.slot(p->value, "name"))
        scope.locals.emplace_back(text(node.file, name->begin));
    break;
  case FormKind::Extend:
    // An extend of a template adds lines read as the template's are.
    if (slotText(n, "kind") == "template") {
      scope.inTemplate = true;
      if (const Decl *decl = decls_.find(Namespace::Shared, slotText(n, "target")))
        for (const Slot *p : tree_.slotsNamed(decl->parts.front(), "param"))
          if (const Slot *name = tree_.slot(p->value, "name"))
            scope.locals.emplace_back(text(tree_.nodes[decl->parts.front()].file, name->begin));
    }
    break;
  default:
    break;
  }
  std::string kind = slotText(n, "kind");
  bool effect = node.kind == FormKind::Effect || kind == "effect";
  if (node.kind == FormKind::Template && kind.empty())
    effect = false;
  if (effect) {
    scope.inEffect = true;
    addVars(n, scope);
    // The vars of every part: a template's or a parent's lines, and extends.
    if (const Decl *decl = decls_.find(Namespace::Effect, slotText(n, "name")))
      for (NodeId part : decl->parts)
        if (part != n)
          addVars(part, scope);
    if (node.kind == FormKind::Extend || node.kind == FormKind::Replace) {
      if (const Decl *decl = decls_.find(Namespace::Effect, slotText(n, "target")))
        if (decl->node != kNone)
          addVars(decl->node, scope);
    }
  }
  bool ability = node.kind == FormKind::Ability || kind == "ability";
  if (ability) {
    scope.inAbility = true;
    scope.eventInHand = true;
    std::vector<NodeId> parts{n};
    if (const Decl *decl = decls_.find(
            Namespace::Ability, slotText(n, node.kind == FormKind::Ability ? "name" : "target")))
      parts.insert(parts.end(), decl->parts.begin(), decl->parts.end());
    for (NodeId part : parts)
      for (NodeId c = tree_.nodes[part].firstChild; c != kNone; c = tree_.nodes[c].nextSibling) {
        FormKind k = tree_.nodes[c].kind;
        scope.flight = scope.flight || k == FormKind::AbilityFlies;
        scope.listTargets =
            scope.listTargets || (k == FormKind::AbilityTarget && tree_.slot(c, "count"));
        if (k == FormKind::AbilityTarget)
          if (const Slot *which = tree_.slot(c, "which"))
            scope.aimIsDirection = text(tree_.nodes[c].file, which->begin) == "direction";
      }
  }
  bool table = node.kind == FormKind::Table || kind == "table";
  if (table) {
    // A row's columns and the draw's arguments by name, and `for`, the drawer.
    scope.locals.emplace_back("for");
    std::vector<NodeId> parts{n};
    if (node.kind != FormKind::Table)
      if (const Decl *decl = decls_.find(Namespace::Shared, slotText(n, "target")))
        parts = decl->parts;
    // The draw's arguments, as the table or its replacement says them.
    for (NodeId part : parts)
      if (const Slot *args = tree_.slot(part, "args")) {
        uint32_t file = tree_.nodes[part].file;
        eachListItem(*args, file, false,
                     [&](uint32_t b, uint32_t) { scope.locals.emplace_back(text(file, b)); });
      }
    for (NodeId part : parts)
      for (NodeId row = tree_.nodes[part].firstChild; row != kNone;
           row = tree_.nodes[row].nextSibling)
        for (const Slot *col : tree_.slotsNamed(row, "column"))
          scope.locals.emplace_back(tree_.span(tree_.nodes[row].file, col->begin, col->end));
  }
  if (node.kind == FormKind::Play)
    scope.inPlay = true;
  return scope;
}

// A name a line gives to the lines after it (let, as, make …), or to its
// own lines (for each, pick).
bool Checker::namesForItsBody(FormKind kind) {
  return kind == FormKind::StepForEach || kind == FormKind::StepPick;
}

// The names a play line gives back: an activation it kept where one is
// wanted (cancel, release, report, running, ended, a report's preview), a
// save where a rewind goes.
void Checker::checkPlayedNames(NodeId n, const Scope &scope) {
  const Node &node = tree_.nodes[n];
  const char *label = node.kind == FormKind::PlayRewind ? "name" : "kept";
  const Slot *s = tree_.slot(n, label);
  if (!s || s->kind != SlotKind::Name)
    return;
  char wanted = node.kind == FormKind::PlayRewind ? 's' : 'k';
  std::string_view name = text(node.file, s->begin);
  char k = scope.playedKind(name);
  if (k == wanted)
    return;
  const char *what = wanted == 's' ? "a save" : "an activation it kept";
  if (k == 0)
    diags_.report(DiagKind::PlayNameUnknown, tree_.loc(node.file, s->begin),
                  length(node.file, s->begin), name, what);
  else
    diags_.report(DiagKind::PlayNameKind, tree_.loc(node.file, s->begin),
                  length(node.file, s->begin), name,
                  k == 'a'   ? "an actor the play named"
                  : k == 'k' ? "an activation the play kept"
                             : "a save",
                  what);
}

// A play's names: each new, none a word of the language; a save may be
// taken again under its name.
void Checker::addPlayedName(NodeId n, const char *label, char kind, Scope &scope) {
  const Slot *s = tree_.slot(n, label);
  if (!s || s->kind != SlotKind::Name)
    return;
  uint32_t file = tree_.nodes[n].file;
  std::string name(tree_.span(file, s->begin, s->end));
  Loc loc = tree_.loc(file, s->begin);
  auto len = static_cast<uint32_t>(name.size());
  if (among(kReserved, name)) {
    diags_.report(DiagKind::ReservedName, loc, len, name, reservedWhat(name));
    // Named all the same, so the lines reading it say nothing more.
    scope.played.emplace_back(std::move(name), kind);
    return;
  }
  if (char was = scope.playedKind(name)) {
    if (!(was == 's' && kind == 's'))
      diags_.report(DiagKind::PlayNameTwice, loc, len, name);
    return;
  }
  scope.played.emplace_back(std::move(name), kind);
}

void Checker::addGivenNames(NodeId n, Scope &scope) {
  FormKind kind = tree_.nodes[n].kind;
  if (namesForItsBody(kind))
    return;
  if (scope.inPlay) {
    switch (kind) {
    case FormKind::PlayMake:
      addPlayedName(n, "name", 'a', scope);
      break;
    case FormKind::PlayFind:
      addPlayedName(n, "name", 'a', scope);
      addPlayedName(n, "flight", 'k', scope);
      break;
    case FormKind::PlayAct:
      addPlayedName(n, "as", 'k', scope);
      addPlayedName(n, "projectile", 'a', scope);
      break;
    case FormKind::PlaySave:
      addPlayedName(n, "name", 's', scope);
      break;
    default:
      break;
    }
    return;
  }
  for (const char *label : {"name", "as", "flight", "projectile"}) {
    const Slot *s = tree_.slot(n, label);
    if (!s || s->kind != SlotKind::Name)
      continue;
    std::string name(tree_.span(tree_.nodes[n].file, s->begin, s->end));
    // "a new name, declared here": not one a step gave before it, which it
    // would hide from the steps after it (reading 149).
    if ((kind == FormKind::StepLet || std::string_view(label) == "as") && scope.has(name))
      diags_.report(DiagKind::StepNameTwice, tree_.loc(tree_.nodes[n].file, s->begin),
                    static_cast<uint32_t>(name.size()), name);
    std::erase(scope.results, name);
    if (std::string_view(label) == "as" &&
        (kind == FormKind::StepApply || kind == FormKind::StepCopy ||
         kind == FormKind::StepRemove || kind == FormKind::StepCast))
      scope.results.push_back(name);
    scope.locals.push_back(std::move(name));
  }
}

bool Checker::isDefinition(FormKind kind) {
  switch (kind) {
  case FormKind::Effect:
  case FormKind::Ability:
  case FormKind::Archetype:
  case FormKind::Table:
  case FormKind::Template:
  case FormKind::Extend:
  case FormKind::Replace:
  case FormKind::Play:
    return true;
  default:
    return false;
  }
}

// What a line's place lets its roots read: an event in hand in a rule
// hearing one, none in a schedule; a channel's beats; a table row's it.
void Checker::placeRoots(NodeId n, Scope &scope) const {
  switch (tree_.nodes[n].kind) {
  case FormKind::EffectBefore:
  case FormKind::EffectAfter:
  case FormKind::EffectStart:
  case FormKind::EffectEnd:
  case FormKind::EffectExpire:
  case FormKind::EffectEndsOn:
  case FormKind::EffectEach:
  case FormKind::EffectVar:
  case FormKind::EffectStack:
  case FormKind::EffectLasts:
    scope.eventInHand = true;
    break;
  case FormKind::EffectEvery:
    scope.eventInHand = false;
    break;
  case FormKind::PhaseEvery:
  case FormKind::PhaseBrokenBy: {
    NodeId phase = tree_.nodes[n].parent;
    scope.beat = phase != kNone && tree_.nodes[phase].kind == FormKind::AbilityChannel;
    break;
  }
  case FormKind::BeforeScale:
  case FormKind::BeforeConvert:
    scope.byTypeBare = true;
    break;
  case FormKind::TableRow:
  case FormKind::TableWhen:
    scope.it = true;
    scope.eventInHand = true;
    break;
  default:
    break;
  }
}

// A duration change with no `on HANDLE` changes the Apply in flight: a
// "A direction is no place, and stands only after toward": in an ability
// aimed at a direction, `target` read where a place is.
void Checker::checkPlace(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
  if (!scope.aimIsDirection || end != begin + 1 || text(file, begin) != "target")
    return;
  diags_.report(DiagKind::DirectionIsNoPlace, tree_.loc(file, begin), length(file, begin));
}

// What an actor's dotted name reads past it: a link (another actor, read
// on), a value, a member of a stat by type, a pile, or `next`; and the fields
// an event carries. Checked where the name is surely an actor or an event.
bool Checker::isActorMember(std::string_view member) const {
  const Decl *shared = decls_.find(Namespace::Shared, member);
  return member == "next" || decls_.find(Namespace::Value, member) ||
         (shared && (shared->kind == RefKind::Link || shared->kind == RefKind::Pile));
}

void Checker::checkMembers(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
  if (scope.inPlay || end < begin + 3 || scope.has(text(file, begin)))
    return;
  std::string_view first = text(file, begin);
  uint32_t t = begin + 2;
  if (first == "event") {
    constexpr std::string_view kFields[] = {"sent",    "amount",  "landed", "overflow", "before",
                                            "after",   "subject", "source", "credit",   "target",
                                            "targets", "ability", "grant",  "charged"};
    std::string_view field = text(file, t);
    const Decl *prop = decls_.find(Namespace::Shared, field);
    if (!among(kFields, field) && !(prop && prop->kind == RefKind::Prop)) {
      diags_.report(DiagKind::UnknownEventField, tree_.loc(file, t), length(file, t), field);
      return;
    }
    if (field != "subject" && field != "source" && field != "credit" && field != "target")
      return; // the rest are numbers, lists, an ability or a grant's vars
    t += 2;
  } else {
    const Decl *shared = decls_.find(Namespace::Shared, first);
    bool actor = first == "holder" || first == "source" || first == "credit" || first == "target" ||
                 first == "projectile" || (shared && shared->kind == RefKind::Link);
    if (!actor) {
      checkStatMember(file, begin, end);
      return;
    }
  }
  // Walk the actor's members: links lead on, a value or a pile ends it (a
  // stat by type may name its member).
  for (; t < end; t += 2) {
    std::string_view member = text(file, t);
    if (!isActorMember(member)) {
      // The link, value or pile of the catalog nearest the one written.
      std::vector<std::string_view> members;
      for (const auto &[name, decl] : decls_.byNamespace[static_cast<size_t>(Namespace::Value)])
        members.push_back(name);
      for (const auto &[name, decl] : decls_.byNamespace[static_cast<size_t>(Namespace::Shared)])
        if (decl.kind == RefKind::Link || decl.kind == RefKind::Pile)
          members.push_back(name);
      if (std::string_view near = nearestWord(member, members); !near.empty())
        diags_.report(DiagKind::UnknownActorMemberNear, tree_.loc(file, t), length(file, t), member,
                      near);
      else
        diags_.report(DiagKind::UnknownActorMember, tree_.loc(file, t), length(file, t), member);
      return;
    }
    const Decl *shared = decls_.find(Namespace::Shared, member);
    if (member != "next" && !(shared && shared->kind == RefKind::Link)) {
      checkStatMember(file, t, end);
      return;
    }
  }
}

// "a stat for each type the portions line declares, NAME.TYPE (Resist.Fire)":
// what follows a value's name up to `end` is a member of it, a type the
// portions line declares or a parent of one, and only a stat by type has
// members.
void Checker::checkStatMember(uint32_t file, uint32_t value, uint32_t end) {
  if (value + 2 >= end)
    return;
  const Decl *stat = decls_.find(Namespace::Value, text(file, value));
  if (!stat)
    return;
  std::string_view type = tree_.span(file, value + 2, end);
  bool byType = stat->kind == RefKind::Stat && stat->node != kNone &&
                tree_.hasFlag(stat->node, "by type");
  bool isType = false;
  for (NodeId p = 0; byType && !isType && p < tree_.nodes.size(); ++p)
    if (tree_.nodes[p].kind == FormKind::Portions)
      for (const Slot *tags : tree_.slotsNamed(p, "tags"))
        tree_.eachItem(tree_.nodes[p].file, *tags, true, [&](uint32_t b, uint32_t e) {
          std::string_view portion = tree_.span(tree_.nodes[p].file, b, e);
          isType |= portion == type ||
                    (portion.size() > type.size() && portion.substr(0, type.size()) == type &&
                     portion[type.size()] == '.');
        });
  if (!isType)
    diags_.report(DiagKind::NoStatMember, tree_.loc(file, value + 2),
                  static_cast<uint32_t>(type.size()), type, text(file, value));
}

// The STAT slots a clause reads as a formula would: a time, a clock, a regen.
bool Checker::readsStat(FormKind form, std::string_view label) {
  switch (form) {
  case FormKind::Time:
  case FormKind::EffectClock:
    return label == "stat";
  case FormKind::AbilityCooldown:
  case FormKind::Phases:
    return label == "clock";
  default:
    return label == "regen";
  }
}

// "read bare in a scale or a convert, the member for the portion it acts on,
// and anywhere else refused": a path ending in a stat by type, no member.
void Checker::checkStatByTypeBare(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
  if (scope.byTypeBare || scope.has(text(file, begin)))
    return;
  uint32_t last = end - 1;
  const Decl *stat = decls_.find(Namespace::Value, text(file, last));
  if (!stat || stat->kind != RefKind::Stat || stat->node == kNone ||
      !tree_.hasFlag(stat->node, "by type"))
    return;
  // `Resist.Fire` names a member; `holder.Resist` and `Resist` read it bare.
  if (last >= begin + 2 && decls_.find(Namespace::Value, text(file, last - 2)) == stat)
    return;
  diags_.report(DiagKind::StatByTypeBare, tree_.loc(file, last), length(file, last),
                text(file, last));
}

// before rule's; with one it changes a held instance "anywhere".
void Checker::checkDurationChangePlace(NodeId n) {
  const Node &node = tree_.nodes[n];
  if ((node.kind != FormKind::BeforeScaleDuration && node.kind != FormKind::BeforeAddDuration &&
       node.kind != FormKind::BeforeAtMost) ||
      tree_.slot(n, "on"))
    return;
  for (NodeId p = node.parent; p != kNone; p = tree_.nodes[p].parent)
    if (tree_.nodes[p].kind == FormKind::EffectBefore)
      return;
  // `at most F` caps a change's amount: it has no `on HANDLE` form at all.
  if (tree_.slot(n, "amount")) {
    diags_.report(DiagKind::AmountChangeOutsideBefore, tree_.loc(node.file, node.begin),
                  length(node.file, node.begin) + 5);
    return;
  }
  diags_.report(DiagKind::DurationChangeOutsideBefore, tree_.loc(node.file, node.begin),
                length(node.file, node.begin) + 9);
}

void Checker::resolveTree(NodeId n, Scope scope) {
  const Node &node = tree_.nodes[n];
  if (node.kind == FormKind::From || node.kind == FormKind::FromRow)
    return; // a from's rows are its template's values
  // A template used is checked where it is written out, with its values.
  if (node.kind == FormKind::Template && std::find(usedTemplates_.begin(), usedTemplates_.end(),
                                                   slotText(n, "name")) != usedTemplates_.end())
    return;
  if (isDefinition(node.kind))
    scope = definitionScope(n, std::move(scope));
  placeRoots(n, scope);
  checkDurationChangePlace(n);
  if (node.kind == FormKind::EffectModifier)
    checkModifier(n, scope);
  checkAssigns(n, scope);
  if (tree_.roles[node.file] == FileRole::Play) {
    checkSource(n);
    checkPlayedNames(n, scope);
    checkPlayLine(n);
  } else {
    checkKinds(n, scope);
  }
  if (node.kind != FormKind::Tags) // a tags line declares what it names
    resolveSlots(n, scope);
  Scope body = scope;
  if (namesForItsBody(node.kind))
    body.locals.push_back(slotText(n, "name"));
  // for each with no name reads each actor found as it.
  if (node.kind == FormKind::StepForEach)
    body.it = true;
  for (NodeId c = node.firstChild; c != kNone; c = tree_.nodes[c].nextSibling) {
    resolveTree(c, body);
    addGivenNames(c, body);
    // A play's make "names it for the play": one under a repeat too.
    if (body.inPlay && tree_.nodes[c].kind == FormKind::PlayRepeat)
      addNamesWithin(c, body);
  }
}

void Checker::addNamesWithin(NodeId n, Scope &scope) {
  for (NodeId c = tree_.nodes[n].firstChild; c != kNone; c = tree_.nodes[c].nextSibling) {
    addGivenNames(c, scope);
    addNamesWithin(c, scope);
  }
}

} // namespace ledger::sema

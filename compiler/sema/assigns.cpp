// What a `with` sets: a property, a var, a link or a pool, a table's argument.
#include "sema/checker.h"

#include "sema/words.h"

#include <algorithm>

namespace ledger::sema {

std::vector<std::string> Checker::varsOf(std::string_view effect) const {
  std::vector<std::string> vars;
  if (const Decl *decl = decls_.find(Namespace::Effect, effect))
    for (NodeId part : decl->parts)
      for (NodeId c = tree_.nodes[part].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
        if (tree_.nodes[c].kind == FormKind::EffectVar)
          vars.push_back(slotText(c, "name"));
  return vars;
}

std::vector<std::string> Checker::tableArgs(std::string_view table) const {
  std::vector<std::string> args;
  if (const Decl *decl = decls_.find(Namespace::Shared, table))
    for (NodeId part : decl->parts)
      if (const Slot *with = tree_.slot(part, "args"))
        for (uint32_t t = with->begin; t < with->end; ++t)
          if (tree_.token(tree_.nodes[part].file, t).kind == TokenKind::Name)
            args.emplace_back(text(tree_.nodes[part].file, t));
  return args;
}

// Each `with NAME = …` names what its form sets: a property of the chain, a
// var of the effect applied, a link or a pool of what is made, an argument
// of the table drawn.
void Checker::checkAssigns(NodeId n, const Scope &scope) {
  const Node &node = tree_.nodes[n];
  std::vector<const Slot *> assigns = tree_.slotsNamed(n, "assign");
  if (assigns.empty())
    return;
  enum class Sets { Prop, Var, LinkOrPool, Pool, Link, Arg } sets = Sets::Prop;
  std::string owner;
  switch (node.kind) {
  case FormKind::StepApply:
  case FormKind::PlayApply:
    sets = Sets::Var;
    owner = slotText(n, "effect");
    break;
  case FormKind::StepCreate:
    sets = Sets::LinkOrPool;
    break;
  case FormKind::ArchetypeWith:
    sets = Sets::Pool;
    break;
  case FormKind::PlayMake:
    sets = Sets::Link;
    break;
  case FormKind::StepPick:
  case FormKind::PlayDraw:
    sets = Sets::Arg;
    owner = slotText(n, "table");
    break;
  default:
    sets = Sets::Prop;
    break;
  }
  if (scope.has(head(owner)) || (!owner.empty() && head(owner) != owner))
    return; // a pick's row, or a var holding one: known as it runs
  std::vector<std::string> names = sets == Sets::Var   ? varsOf(owner)
                                   : sets == Sets::Arg ? tableArgs(owner)
                                                       : std::vector<std::string>{};
  for (const Slot *assign : assigns) {
    const Slot *nameSlot = tree_.slot(assign->value, "name");
    uint32_t file = tree_.nodes[assign->value].file;
    std::string name(tree_.span(file, nameSlot->begin, nameSlot->end));
    Loc loc = tree_.loc(file, nameSlot->begin);
    auto len = static_cast<uint32_t>(name.size());
    if (scope.has(head(name)))
      continue;
    const Decl *shared = decls_.find(Namespace::Shared, name);
    const Decl *value = decls_.find(Namespace::Value, name);
    switch (sets) {
    case Sets::Prop:
      // X is every order's own property.
      if (name == "X" || (shared && shared->kind == RefKind::Prop))
        continue;
      if (name == "charged")
        diags_.report(DiagKind::ChargedIsSetByNothing, loc, len);
      else
        diags_.report(DiagKind::UndeclaredName, loc, len, name, "property");
      break;
    case Sets::Var:
      if (!decls_.find(Namespace::Effect, owner) ||
          std::find(names.begin(), names.end(), name) != names.end())
        continue;
      diags_.report(DiagKind::NoSuchVar, loc, len, name, owner);
      break;
    case Sets::Arg:
      if (!decls_.find(Namespace::Shared, owner) ||
          std::find(names.begin(), names.end(), name) != names.end())
        continue;
      diags_.report(DiagKind::NoSuchTableArgument, loc, len, name, owner);
      break;
    case Sets::LinkOrPool:
      if ((shared && shared->kind == RefKind::Link) || (value && value->kind == RefKind::Pool))
        continue;
      notSettable(loc, len, name, shared, value, "a link or a pool", "link or pool");
      break;
    case Sets::Pool:
      if (value && value->kind == RefKind::Pool)
        continue;
      notSettable(loc, len, name, shared, value, "a pool", "pool");
      break;
    case Sets::Link:
      if (shared && shared->kind == RefKind::Link)
        continue;
      notSettable(loc, len, name, shared, value, "a link", "link");
      break;
    }
  }
}

// A name a with can't set: one declared of another kind is said to be so
// (a stat where a pool is wanted), one undeclared is no declared one.
void Checker::notSettable(Loc loc, uint32_t len, const std::string &name, const Decl *shared,
                          const Decl *value, const char *wanted, const char *kindWord) {
  if (const Decl *other = value ? value : shared)
    diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(other->kind), wanted);
  else
    diags_.report(DiagKind::UndeclaredName, loc, len, name, kindWord);
}

// `STAT OP …` and `LINK = ACTOR` are written alike: the name tells them apart.
void Checker::checkModifier(NodeId n, const Scope &scope) {
  const Node &node = tree_.nodes[n];
  const Slot *stat = tree_.slot(n, "stat");
  const Slot *op = tree_.slot(n, "op");
  if (!stat || !op)
    return;
  std::string name(tree_.span(node.file, stat->begin, stat->end));
  if (scope.has(head(name)))
    return;
  Loc loc = tree_.loc(node.file, stat->begin);
  auto len = static_cast<uint32_t>(name.size());
  if (const Decl *link = decls_.find(Namespace::Shared, name);
      link && link->kind == RefKind::Link) {
    if (tree_.span(node.file, op->begin, op->end) != "=")
      diags_.report(DiagKind::LinkOverrideForm, loc, len, name, name);
    else
      tree_.nodes[n].kind = FormKind::EffectLinkOverride;
    return;
  }
  const Decl *decl = decls_.find(Namespace::Value, name);
  if (!decl)
    decl = decls_.find(Namespace::Value, head(name));
  if (!decl)
    diags_.report(DiagKind::UndeclaredName, loc, len, name, "stat or link");
  else if (decl->kind != RefKind::Stat)
    diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind), "a stat");
  else
    checkStatMember(node.file, stat->begin, stat->end);
}

} // namespace ledger::sema

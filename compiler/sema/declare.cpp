// Declarations: every declared name in its namespace, the catalog-wide forms
// said once or alike, and extend and replace applied in catalog order.
#include "sema/checker.h"

#include "sema/words.h"

#include <algorithm>

namespace ledger::sema {

void Checker::declareName(RefKind kind, uint32_t file, uint32_t tok, NodeId node) {
  std::string_view name = text(file, tok);
  Loc loc = tree_.loc(file, tok);
  if (among(kReserved, name)) {
    diags_.report(DiagKind::ReservedName, loc, length(file, tok), name, reservedWhat(name));
    return;
  }
  if (kind == RefKind::Event && among(kBuiltinEvents, name)) {
    diags_.report(DiagKind::BuiltinEventName, loc, length(file, tok), name);
    return;
  }
  auto &map = decls_.byNamespace[size_t(namespaceOf(kind))];
  auto [it, added] = map.emplace(std::string(name), Decl{kind, file, tok, node, {node}, kNone});
  if (added)
    return;
  const Decl &first = it->second;
  diags_.report(DiagKind::DuplicateName, loc, length(file, tok), name,
                refKindWithArticle(first.kind));
  if (first.file != kNone)
    diags_.note(DiagKind::DeclaredHere, tree_.loc(first.file, first.token),
                length(first.file, first.token), name);
}

// Tags nest as deep as formulas and blocks may: each parent's whole name is
// declared, so a deeper tag would cost the square of its length.
constexpr uint32_t kMaxTagDepth = 200;

// A dotted tag declares its parents; a tag may be said again.
void Checker::declareTag(uint32_t file, uint32_t begin, uint32_t end, NodeId node) {
  std::string name;
  uint32_t depth = 0;
  for (uint32_t t = begin; t < end; ++t) {
    if (tree_.token(file, t).kind == TokenKind::Dot) {
      name += '.';
      continue;
    }
    std::string_view part = text(file, t);
    if (among(kReserved, part)) {
      diags_.report(DiagKind::ReservedName, tree_.loc(file, t), length(file, t), part,
                    reservedWhat(part));
      return;
    }
    if (++depth > kMaxTagDepth) {
      diags_.report(DiagKind::TagTooDeep, tree_.loc(file, t), length(file, t), kMaxTagDepth);
      return;
    }
    name += part;
    auto &tags = decls_.byNamespace[size_t(Namespace::Tag)];
    bool added = tags.emplace(name, Decl{RefKind::Tag, file, begin, node, {}, kNone}).second;
    if (added && tags.size() > kMostTags && !refusedTagCount_) {
      refusedTagCount_ = true;
      diags_.report(DiagKind::TooManyTags, tree_.loc(file, begin),
                    tree_.token(file, t).end - tree_.token(file, begin).begin,
                    name, kMostTags, std::size(kBuiltinTags));
    }
  }
}

void Checker::eachListItem(const Slot &slot, uint32_t file, bool dotted,
                           const std::function<void(uint32_t, uint32_t)> &fn) {
  tree_.eachItem(file, slot, dotted, fn);
}

void Checker::onceAcrossCatalog(NodeId n, const char *form, NodeId &seen) {
  if (seen == kNone) {
    seen = n;
    return;
  }
  const Node &node = tree_.nodes[n];
  diags_.report(DiagKind::SaidTwice, tree_.loc(node.file, node.begin),
                length(node.file, node.begin), form);
  const Node &first = tree_.nodes[seen];
  diags_.note(DiagKind::SaidHere, tree_.loc(first.file, first.begin),
              length(first.file, first.begin), form);
}

// Whether two rate lines say one number of ticks a second: t1/s1 = t2/s2.
bool Checker::rateTimes(NodeId a, NodeId b) const {
  auto part = [&](NodeId n, const char *label) -> __int128 {
    const Slot *s = tree_.slot(n, label);
    return s ? tree_.token(tree_.nodes[n].file, s->begin).value.raw : Fixed::kScale;
  };
  return part(a, "ticks") * part(b, "seconds") == part(b, "ticks") * part(a, "seconds");
}

// rate, allegiance, damage and turn: several files may say one, only alike.
void Checker::alike(NodeId n, const char *form, NodeId &seen) {
  if (seen == kNone) {
    seen = n;
    return;
  }
  const Node &a = tree_.nodes[seen];
  const Node &b = tree_.nodes[n];
  std::string first(tree_.span(a.file, a.begin, a.end));
  std::string second(tree_.span(b.file, b.begin, b.end));
  // Compare token by token, so spacing doesn't matter.
  bool same = a.end - a.begin == b.end - b.begin;
  for (uint32_t i = 0; same && i < a.end - a.begin; ++i)
    same = text(a.file, a.begin + i) == text(b.file, b.begin + i);
  // A rate is its ticks a second, however written: rate 10 is rate 20/2.
  if (!same && a.kind == FormKind::Rate && b.kind == FormKind::Rate)
    same = rateTimes(seen, n);
  if (same)
    return;
  diags_.report(DiagKind::SaidDifferently, tree_.loc(b.file, b.begin), length(b.file, b.begin),
                form);
  diags_.note(DiagKind::SaidHere, tree_.loc(a.file, a.begin), length(a.file, a.begin), form);
}

void Checker::declare(NodeId n) {
  const Node node = tree_.nodes[n]; // writing a template out adds nodes
  uint32_t f = node.file;
  auto names = [&](RefKind kind) {
    if (const Slot *s = tree_.slot(n, "names"))
      eachListItem(*s, f, false, [&](uint32_t b, uint32_t) { declareName(kind, f, b, n); });
  };
  auto name = [&](RefKind kind) {
    if (const Slot *s = tree_.slot(n, "name"))
      declareName(kind, f, s->begin, n);
  };
  switch (node.kind) {
  case FormKind::Stat:
    name(RefKind::Stat);
    break;
  case FormKind::Pool:
    name(RefKind::Pool);
    break;
  case FormKind::Tags:
    if (const Slot *s = tree_.slot(n, "tags"))
      eachListItem(*s, f, true, [&](uint32_t b, uint32_t e) { declareTag(f, b, e, n); });
    break;
  case FormKind::Event:
    names(RefKind::Event);
    break;
  case FormKind::Link:
    names(RefKind::Link);
    break;
  case FormKind::Stages:
    names(RefKind::Stage);
    break;
  case FormKind::Categories:
    names(RefKind::Category);
    break;
  case FormKind::Fact:
    names(RefKind::Fact);
    break;
  case FormKind::Pile:
    names(RefKind::Pile);
    // "an item carries its pile's tag while it is there"
    if (const Slot *s = tree_.slot(n, "names"))
      eachListItem(*s, f, false, [&](uint32_t b, uint32_t e) { declareTag(f, b, e, n); });
    break;
  case FormKind::Command:
    names(RefKind::Command);
    break;
  case FormKind::Stream:
    names(RefKind::Stream);
    break;
  case FormKind::Prop:
    name(RefKind::Prop);
    break;
  case FormKind::Curve:
    name(RefKind::Curve);
    break;
  case FormKind::Table:
    name(RefKind::Table);
    break;
  case FormKind::Effect:
    name(RefKind::Effect);
    if (tree_.slot(n, "parent"))
      pendingParents_.push_back({n, RefKind::Effect});
    break;
  case FormKind::Ability:
    name(RefKind::Ability);
    if (tree_.slot(n, "parent"))
      pendingParents_.push_back({n, RefKind::Ability});
    break;
  case FormKind::Archetype:
    name(RefKind::Archetype);
    if (tree_.slot(n, "parent"))
      pendingParents_.push_back({n, RefKind::Archetype});
    break;
  case FormKind::From:
    writeFrom(n);
    break;
  case FormKind::Template:
    // A template is loaded as no definition itself; its name is a template's.
    name(RefKind::Template);
    break;
  case FormKind::Extend:
  case FormKind::Replace:
    amend(n);
    break;
  case FormKind::Time:
    onceAcrossCatalog(n, "time", time_);
    break;
  case FormKind::Phases:
    onceAcrossCatalog(n, "phases", phases_);
    break;
  case FormKind::Rate:
    alike(n, "rate", rate_);
    break;
  case FormKind::Allegiance:
    alike(n, "allegiance", allegiance_);
    break;
  case FormKind::Damage:
    alike(n, "damage", damage_);
    break;
  case FormKind::Turn:
    alike(n, "turn", turn_);
    break;
  default:
    break;
  }
}

// The definition an extend or a replace names, by its kind word.
Decl *Checker::amended(NodeId n, RefKind &kind, std::string &name) {
  const Node &node = tree_.nodes[n];
  const Slot *kindSlot = tree_.slot(n, "kind");
  const Slot *target = tree_.slot(n, "target");
  if (!kindSlot || !target)
    return nullptr;
  std::string_view k = text(node.file, kindSlot->begin);
  kind = k == "effect"      ? RefKind::Effect
         : k == "ability"   ? RefKind::Ability
         : k == "archetype" ? RefKind::Archetype
         : k == "table"     ? RefKind::Table
                            : RefKind::Template;
  name = std::string(tree_.span(node.file, target->begin, target->end));
  auto &map = decls_.byNamespace[size_t(namespaceOf(kind))];
  auto it = map.find(name);
  if (it == map.end() || it->second.kind != kind)
    return nullptr;
  return &it->second;
}

// Applied in catalog order, so each reads what the files before it wrote.
void Checker::amend(NodeId n) {
  RefKind kind;
  std::string name;
  Decl *decl = amended(n, kind, name);
  if (!decl) {
    unresolvedAmendments_.push_back(n);
    return;
  }
  const Node &node = tree_.nodes[n];
  const Slot *target = tree_.slot(n, "target");
  Loc loc = tree_.loc(node.file, target->begin);
  auto len = static_cast<uint32_t>(name.size());
  const char *form = node.kind == FormKind::Extend ? "extend" : "replace";
  if (decl->file == node.file) {
    diags_.report(DiagKind::AmendsItsOwnFile, loc, len, form, name);
    diags_.note(DiagKind::DeclaredHere, tree_.loc(decl->file, decl->token),
                length(decl->file, decl->token), name);
    return;
  }
  if (node.kind == FormKind::Extend) {
    decl->parts.push_back(n);
    return;
  }
  if (decl->replacedBy != kNone) {
    const Node &before = tree_.nodes[decl->replacedBy];
    if (tree_.packages[before.file] != tree_.packages[node.file]) {
      diags_.report(DiagKind::ReplacedByTwoPackages, loc, len, name);
      diags_.note(DiagKind::ReplacedHere, tree_.loc(before.file, before.begin),
                  length(before.file, before.begin), name);
    }
  }
  decl->replacedBy = n;
  decl->parts = {n};
}

void Checker::refuseAmendment(NodeId n) {
  RefKind kind;
  std::string name;
  const Node &node = tree_.nodes[n];
  const Slot *target = tree_.slot(n, "target");
  if (!target)
    return;
  Loc loc = tree_.loc(node.file, target->begin);
  const char *form = node.kind == FormKind::Extend ? "extend" : "replace";
  if (const Decl *decl = amended(n, kind, name)) {
    diags_.report(DiagKind::AmendsALaterFile, loc, static_cast<uint32_t>(name.size()), form, name);
    diags_.note(DiagKind::DeclaredHere, tree_.loc(decl->file, decl->token),
                length(decl->file, decl->token), name);
    return;
  }
  diags_.report(DiagKind::UndeclaredName, loc, static_cast<uint32_t>(name.size()), name,
                refKindName(kind));
}

// syntax.md: "every other kind of declared name (tags, events, links, …) is
// unique across the catalog"; a tag and another kind may share a name but
// where one line could read either: an event's (a filter names "a kind or
// tag", `after Attack`). See docs/readings.md.
void Checker::checkUniqueAcrossCatalog() {
  auto earlier = [&](const Decl &a, const Decl &b) {
    return std::pair(a.file, a.token) < std::pair(b.file, b.token);
  };
  auto clash = [&](const std::string &name, const Decl &a, const Decl &b) {
    const Decl &first = earlier(a, b) ? a : b;
    const Decl &second = earlier(a, b) ? b : a;
    diags_.report(DiagKind::DuplicateName, tree_.loc(second.file, second.token),
                  length(second.file, second.token), name, refKindWithArticle(first.kind));
    diags_.note(DiagKind::DeclaredHere, tree_.loc(first.file, first.token),
                length(first.file, first.token), name);
  };
  const auto &shared = decls_.byNamespace[size_t(Namespace::Shared)];
  for (const auto &[name, decl] : shared) {
    const Decl *tag = decls_.find(Namespace::Tag, name);
    if (decl.file != kNone && tag && tag->file != kNone && decl.kind == RefKind::Event)
      clash(name, decl, *tag);
  }
}

} // namespace ledger::sema

#include "sema/check.h"

#include "sema/refusals.h"

#include <functional>
#include <string_view>

namespace ledger {

namespace {

constexpr std::string_view kReserved[] = {
    // roots
    "holder", "source", "credit", "target", "targets", "it", "self", "grant", "event",
    "projectile", "next",
    // words
    "X", "charged", "radius", "true", "false", "and", "or", "not", "s", "ms", "t",
    // built-in functions
    "chance", "roll", "has", "held", "ordered", "stacks", "highest", "count", "sum", "lowest",
    "pow", "root", "min", "max", "floor", "ceil", "round", "trunc", "abs", "clamp", "if",
    "distance", "position", "active", "remaining", "elapsed", "fact", "portion", "draw", "tag"};

constexpr std::string_view kBuiltinEvents[] = {
    "Apply",   "Remove",   "Create",   "Destroy", "Make",     "Become",   "Move",
    "Activate", "Target",  "Commit",   "Resolved", "Stopped", "Pulse",    "Finished",
    "Contact", "Depleted", "Filled",   "Enter",   "Leave",    "Cross",    "Damage",
    "Heal",    "Gain",     "Loss",     "Set",     "Cost"};

constexpr std::string_view kBuiltinTags[] = {
    "Damage",         "Heal",        "Cost",         "Gain",        "Loss",
    "Set",            "Cooldown",    "Timed",        "Stop",        "Stop.Broken",
    "Stop.Blocked",   "Stop.Interrupted", "Stop.Unpaid", "Stop.Cancelled", "Stop.Gone",
    "Stop.Refused",   "End",         "End.Expired",  "End.Removed", "End.Broken",
    "End.Spent",      "End.Replaced", "End.Withdrawn", "End.Gone",  "End.Answered"};

template <size_t N>
bool among(const std::string_view (&list)[N], std::string_view word) {
  for (std::string_view w : list)
    if (w == word)
      return true;
  return false;
}

Namespace namespaceOf(RefKind kind) {
  switch (kind) {
  case RefKind::Effect: return Namespace::Effect;
  case RefKind::Ability: return Namespace::Ability;
  case RefKind::Archetype: return Namespace::Archetype;
  case RefKind::Stat:
  case RefKind::Pool: return Namespace::Value;
  case RefKind::Tag: return Namespace::Tag;
  default: return Namespace::Shared;
  }
}

class Checker {
public:
  Checker(const SyntaxTree &tree, DiagnosticEngine &diags) : tree_(tree), diags_(diags) {}

  Declarations run() {
    for (std::string_view tag : kBuiltinTags)
      decls_.byNamespace[size_t(Namespace::Tag)].emplace(
          std::string(tag), Decl{RefKind::Tag, kNone, 0, kNone, {}, kNone});
    for (uint32_t f = 0; f < tree_.files.size(); ++f)
      if (tree_.roles[f] == FileRole::Catalog)
        for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling)
          declare(n);
    for (NodeId n : unresolvedAmendments_)
      refuseAmendment(n);
    for (uint32_t f = 0; f < tree_.files.size(); ++f)
      for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling)
        resolveTree(n, {});
    return std::move(decls_);
  }

private:
  std::string_view text(uint32_t file, uint32_t tok) const { return tree_.text(file, tok); }
  uint32_t length(uint32_t file, uint32_t tok) const {
    const Token &t = tree_.token(file, tok);
    return t.end - t.begin;
  }

  // ---- declarations -----------------------------------------------------
  void declareName(RefKind kind, uint32_t file, uint32_t tok, NodeId node) {
    std::string_view name = text(file, tok);
    Loc loc = tree_.loc(file, tok);
    if (among(kReserved, name)) {
      diags_.report(DiagKind::ReservedName, loc, length(file, tok), name);
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

  // A dotted tag declares its parents; a tag may be said again.
  void declareTag(uint32_t file, uint32_t begin, uint32_t end, NodeId node) {
    std::string name;
    for (uint32_t t = begin; t < end; ++t) {
      if (tree_.token(file, t).kind == TokenKind::Dot) {
        name += '.';
        continue;
      }
      std::string_view part = text(file, t);
      if (among(kReserved, part)) {
        diags_.report(DiagKind::ReservedName, tree_.loc(file, t), length(file, t), part);
        return;
      }
      name += part;
      decls_.byNamespace[size_t(Namespace::Tag)].emplace(name,
                                                         Decl{RefKind::Tag, file, begin, node, {}, kNone});
    }
  }

  void eachListItem(const Slot &slot, uint32_t file, bool dotted,
                    const std::function<void(uint32_t, uint32_t)> &fn) {
    uint32_t t = slot.begin;
    while (t < slot.end) {
      if (tree_.token(file, t).kind == TokenKind::Comma) {
        ++t;
        continue;
      }
      uint32_t begin = t++;
      while (dotted && t + 1 < slot.end && tree_.token(file, t).kind == TokenKind::Dot)
        t += 2;
      fn(begin, t);
    }
  }

  void onceAcrossCatalog(NodeId n, const char *form, NodeId &seen) {
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

  // rate, allegiance, damage and turn: several files may say one, only alike.
  void alike(NodeId n, const char *form, NodeId &seen) {
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
    if (same)
      return;
    diags_.report(DiagKind::SaidDifferently, tree_.loc(b.file, b.begin), length(b.file, b.begin),
                  form);
    diags_.note(DiagKind::SaidHere, tree_.loc(a.file, a.begin), length(a.file, a.begin), form);
  }

  void declare(NodeId n) {
    const Node &node = tree_.nodes[n];
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
    case FormKind::Stat: name(RefKind::Stat); break;
    case FormKind::Pool: name(RefKind::Pool); break;
    case FormKind::Tags:
      if (const Slot *s = tree_.slot(n, "tags"))
        eachListItem(*s, f, true, [&](uint32_t b, uint32_t e) { declareTag(f, b, e, n); });
      break;
    case FormKind::Event: names(RefKind::Event); break;
    case FormKind::Link: names(RefKind::Link); break;
    case FormKind::Stages: names(RefKind::Stage); break;
    case FormKind::Categories: names(RefKind::Category); break;
    case FormKind::Fact: names(RefKind::Fact); break;
    case FormKind::Pile: names(RefKind::Pile); break;
    case FormKind::Command: names(RefKind::Command); break;
    case FormKind::Stream: names(RefKind::Stream); break;
    case FormKind::Prop: name(RefKind::Prop); break;
    case FormKind::Curve: name(RefKind::Curve); break;
    case FormKind::Table: name(RefKind::Table); break;
    case FormKind::Effect: name(RefKind::Effect); break;
    case FormKind::Ability: name(RefKind::Ability); break;
    case FormKind::Archetype: name(RefKind::Archetype); break;
    case FormKind::Template:
      // A template is loaded as no definition itself; its name is a template's.
      name(RefKind::Template);
      break;
    case FormKind::Extend:
    case FormKind::Replace: amend(n); break;
    case FormKind::Time: onceAcrossCatalog(n, "time", time_); break;
    case FormKind::Phases: onceAcrossCatalog(n, "phases", phases_); break;
    case FormKind::Rate: alike(n, "rate", rate_); break;
    case FormKind::Allegiance: alike(n, "allegiance", allegiance_); break;
    case FormKind::Damage: alike(n, "damage", damage_); break;
    case FormKind::Turn: alike(n, "turn", turn_); break;
    default: break;
    }
  }

  // ---- extend and replace ----------------------------------------------
  // The definition an extend or a replace names, by its kind word.
  Decl *amended(NodeId n, RefKind &kind, std::string &name) {
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
  void amend(NodeId n) {
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

  void refuseAmendment(NodeId n) {
    RefKind kind;
    std::string name;
    const Node &node = tree_.nodes[n];
    const Slot *target = tree_.slot(n, "target");
    if (!target)
      return;
    Loc loc = tree_.loc(node.file, target->begin);
    const char *form = node.kind == FormKind::Extend ? "extend" : "replace";
    if (const Decl *decl = amended(n, kind, name)) {
      diags_.report(DiagKind::AmendsALaterFile, loc, static_cast<uint32_t>(name.size()), form,
                    name);
      diags_.note(DiagKind::DeclaredHere, tree_.loc(decl->file, decl->token),
                  length(decl->file, decl->token), name);
      return;
    }
    diags_.report(DiagKind::UndeclaredName, loc, static_cast<uint32_t>(name.size()), name,
                  refKindName(kind));
  }

  // ---- resolution -------------------------------------------------------
  // Names a template's parameters stand for are the template's uses' to resolve.
  using Params = std::vector<std::string_view>;

  void resolveRef(const Slot &slot, uint32_t file, uint32_t begin, uint32_t end,
                  const Params &params) {
    std::string name(tree_.span(file, begin, end));
    for (std::string_view p : params)
      if (name == p || name.rfind(std::string(p) + ".", 0) == 0)
        return;
    RefKind kind = slot.ref;
    Loc loc = tree_.loc(file, begin);
    auto len = static_cast<uint32_t>(name.size());
    if ((kind == RefKind::Event || kind == RefKind::EventOrTag) && among(kBuiltinEvents, name))
      return;
    if (kind == RefKind::EventOrTag) {
      const Decl *event = decls_.find(Namespace::Shared, name);
      if ((event && event->kind == RefKind::Event) || decls_.find(Namespace::Tag, name))
        return;
      diags_.report(DiagKind::UndeclaredName, loc, len, name, refKindName(kind));
      return;
    }
    const Decl *decl = decls_.find(namespaceOf(kind), name);
    if (kind == RefKind::Stat || kind == RefKind::Pool) {
      // A member of a stat by type: Resist.Fire
      if (!decl && name.find('.') != std::string::npos) {
        std::string base = name.substr(0, name.find('.'));
        decl = decls_.find(Namespace::Value, base);
      }
      if (decl && decl->kind != kind) {
        diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind),
                      refKindWithArticle(kind));
        return;
      }
    } else if (decl && namespaceOf(kind) == Namespace::Shared && decl->kind != kind) {
      diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind),
                    refKindWithArticle(kind));
      return;
    }
    if (!decl)
      diags_.report(DiagKind::UndeclaredName, loc, len, name, refKindName(kind));
  }

  void resolveSlots(NodeId n, const Params &params) {
    const Node &node = tree_.nodes[n];
    for (uint32_t i = 0; i < node.slotCount; ++i) {
      const Slot &slot = tree_.slots[node.firstSlot + i];
      switch (slot.kind) {
      case SlotKind::Ref:
        resolveRef(slot, node.file, slot.begin, slot.end, params);
        break;
      case SlotKind::Refs:
        eachListItem(slot, node.file, true, [&](uint32_t b, uint32_t e) {
          resolveRef(slot, node.file, b, e, params);
        });
        break;
      case SlotKind::Part:
        resolveSlots(slot.value, params);
        break;
      default:
        break;
      }
    }
  }

  // `STAT OP …` and `LINK = ACTOR` are written alike: the name tells them apart.
  void checkModifier(NodeId n, const Params &params) {
    const Node &node = tree_.nodes[n];
    const Slot *stat = tree_.slot(n, "stat");
    const Slot *op = tree_.slot(n, "op");
    if (!stat || !op)
      return;
    std::string name(tree_.span(node.file, stat->begin, stat->end));
    for (std::string_view p : params)
      if (name == p || name.rfind(std::string(p) + ".", 0) == 0)
        return;
    Loc loc = tree_.loc(node.file, stat->begin);
    auto len = static_cast<uint32_t>(name.size());
    if (const Decl *link = decls_.find(Namespace::Shared, name); link && link->kind == RefKind::Link) {
      if (tree_.span(node.file, op->begin, op->end) != "=")
        diags_.report(DiagKind::LinkOverrideForm, loc, len, name, name);
      return;
    }
    std::string base = name.substr(0, name.find('.'));
    const Decl *decl = decls_.find(Namespace::Value, name);
    if (!decl)
      decl = decls_.find(Namespace::Value, base);
    if (!decl)
      diags_.report(DiagKind::UndeclaredName, loc, len, name, "stat or link");
    else if (decl->kind != RefKind::Stat)
      diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind),
                    "a stat");
  }

  void resolveTree(NodeId n, Params params) {
    const Node &node = tree_.nodes[n];
    if (node.kind == FormKind::Template || node.kind == FormKind::Replace) {
      for (const Slot *p : tree_.slotsNamed(n, "param")) {
        const Slot *name = tree_.slot(p->value, "name");
        if (name)
          params.push_back(text(node.file, name->begin));
      }
    }
    if (node.kind == FormKind::From || node.kind == FormKind::FromRow)
      return; // a from's rows are its template's values
    if (node.kind == FormKind::EffectModifier)
      checkModifier(n, params);
    if (node.kind != FormKind::Tags) // a tags line declares what it names
      resolveSlots(n, params);
    for (NodeId c = node.firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
      resolveTree(c, params);
  }

  const SyntaxTree &tree_;
  DiagnosticEngine &diags_;
  Declarations decls_;
  std::vector<NodeId> unresolvedAmendments_;
  NodeId time_ = kNone, phases_ = kNone, rate_ = kNone, allegiance_ = kNone, damage_ = kNone,
         turn_ = kNone;
};

} // namespace

Declarations check(const SyntaxTree &tree, DiagnosticEngine &diags) {
  Declarations decls = Checker(tree, diags).run();
  checkRefusals(tree, decls, diags);
  return decls;
}

} // namespace ledger

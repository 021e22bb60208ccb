#include "sema/check.h"

#include "sema/refusals.h"
#include "sema/templates.h"

#include <algorithm>
#include <cctype>
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

// What a formula reads with no declaration: the roots and the language's words.
constexpr std::string_view kRoots[] = {
    "holder", "source", "credit", "target", "targets", "it", "self", "grant", "event",
    "projectile", "next", "X", "charged", "radius", "true", "false"};

// The built-in functions and how the reference writes each.
struct BuiltinFunction {
  std::string_view name;
  uint32_t least, most;
  const char *written;
};
constexpr BuiltinFunction kFunctions[] = {
    {"chance", 1, 1, "chance(F)"},
    {"roll", 2, 2, "roll(F, F)"},
    {"has", 1, 2, "has(ACTOR, EFFECT | TAG) or has(HANDLE)"},
    {"ordered", 1, 2, "ordered(ACTOR [, PROP])"},
    {"stacks", 2, 3, "stacks(ACTOR, EFFECT [, ACTOR])"},
    {"highest stacks", 2, 3, "highest stacks(ACTOR, EFFECT [, ACTOR])"},
    {"count", 1, 3, "count(TARGETS), count(held(...)), count(ACTOR, EFFECT [, ACTOR]) or count(ACTOR, TAG)"},
    {"sum", 2, 2, "sum(TARGETS, F)"},
    {"highest", 2, 2, "highest(TARGETS, F)"},
    {"lowest", 2, 2, "lowest(TARGETS, F)"},
    {"pow", 2, 2, "pow(F, N)"},
    {"root", 1, 2, "root(F [, N])"},
    {"min", 2, 2, "min(F, F)"},
    {"max", 2, 2, "max(F, F)"},
    {"floor", 1, 1, "floor(F)"},
    {"ceil", 1, 1, "ceil(F)"},
    {"round", 1, 1, "round(F)"},
    {"trunc", 1, 1, "trunc(F)"},
    {"abs", 1, 1, "abs(F)"},
    {"clamp", 3, 3, "clamp(F, F, F)"},
    {"if", 3, 3, "if(F, F, F)"},
    {"distance", 2, 2, "distance(PLACE, PLACE)"},
    {"position", 1, 1, "position(ACTOR)"},
    {"active", 1, 1, "active(ACTOR)"},
    {"remaining", 1, 1, "remaining(ACTOR)"},
    {"elapsed", 1, 1, "elapsed(ACTOR)"},
    {"fact", 3, 3, "fact(FACT, ACTOR, PLACE)"},
    {"portion", 1, 1, "portion(TAG)"},
    {"draw", 1, 1, "draw(STREAM)"},
    {"tag", 2, 2, "tag(ABILITY, TAG)"},
};

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
  Checker(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags)
      : tree_(tree), sources_(sources), diags_(diags) {}

  Declarations run() {
    for (std::string_view tag : kBuiltinTags)
      decls_.byNamespace[size_t(Namespace::Tag)].emplace(
          std::string(tag), Decl{RefKind::Tag, kNone, 0, kNone, {}, kNone});
    // Templates are written out as their uses are declared; what they write
    // is declared there, so the files written aren't walked again here.
    size_t given = tree_.files.size();
    for (uint32_t f = 0; f < given; ++f)
      if (tree_.roles[f] == FileRole::Catalog)
        for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling)
          declare(n);
    for (NodeId n : unresolvedAmendments_)
      refuseAmendment(n);
    // Made from what the catalog holds once every file is read: a parent or
    // a template replaced later is the one a definition is made from.
    for (const auto &[n, kind] : pendingParents_)
      inherit(n, kind);
    for (uint32_t f = 0; f < tree_.files.size(); ++f)
      for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling)
        resolveTree(n, Scope{});
    for (const auto &map : {decls_.byNamespace[size_t(Namespace::Effect)],
                            decls_.byNamespace[size_t(Namespace::Ability)],
                            decls_.byNamespace[size_t(Namespace::Archetype)]})
      for (const auto &[name, decl] : map)
        checkClashes(name, decl);
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
    case FormKind::From: writeFrom(n); break;
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

  // ---- templates and parents -------------------------------------------
  static const char *kindWord(RefKind kind) {
    return kind == RefKind::Effect ? "effect" : kind == RefKind::Ability ? "ability" : "archetype";
  }

  // The kind of lines a template holds, as its own line says (a replacement
  // keeps it): an effect's, an ability's, an archetype's, or whole definitions.
  RefKind templateKind(const Decl &decl) const {
    const Slot *kind = tree_.slot(decl.node, "kind");
    if (!kind)
      return RefKind::Template;
    std::string_view k = text(tree_.nodes[decl.node].file, kind->begin);
    return k == "effect" ? RefKind::Effect : k == "ability" ? RefKind::Ability : RefKind::Archetype;
  }

  // A replacement naming parameters brings its own; one naming none keeps
  // the template's.
  NodeId templateParams(const Decl &decl) const {
    NodeId first = decl.parts.front();
    return tree_.slot(first, "param") ? first : decl.node;
  }

  // `from PARENT`: a definition of its kind, whose lines come first, or a
  // template written out with the values given. A parent made from another
  // is resolved first; one made from itself, through any chain, is refused.
  void inherit(NodeId n, RefKind kind) {
    if (std::find(inherited_.begin(), inherited_.end(), n) != inherited_.end())
      return;
    if (std::find(inheriting_.begin(), inheriting_.end(), n) != inheriting_.end()) {
      const Node &node = tree_.nodes[n];
      const Slot *name = tree_.slot(n, "name");
      diags_.report(DiagKind::MadeFromItself, tree_.loc(node.file, name->begin),
                    length(node.file, name->begin), slotText(n, "name"));
      inherited_.push_back(n);
      return;
    }
    inheriting_.push_back(n);
    inheritFrom(n, kind);
    inheriting_.pop_back();
    inherited_.push_back(n);
  }

  void inheritFrom(NodeId n, RefKind kind) {
    const Slot *parentSlot = tree_.slot(n, "parent");
    if (!parentSlot)
      return;
    NodeId parent = parentSlot->value;
    const Node node = tree_.nodes[n];
    const Slot *parentName = tree_.slot(parent, "name");
    std::string parentText(tree_.span(node.file, parentName->begin, parentName->end));
    std::string own(slotText(n, "name"));
    Loc at = tree_.loc(node.file, parentName->begin);
    auto len = static_cast<uint32_t>(parentText.size());
    auto &defs = decls_.byNamespace[size_t(namespaceOf(kind))];
    auto self = defs.find(own);
    if (self == defs.end() || self->second.node != n)
      return; // refused as declared twice
    if (self->second.replacedBy != kNone)
      return; // a replacement is swapped in whole, parent and all
    const Slot *args = tree_.slot(parent, "args");
    if (const Decl *tmpl = decls_.find(Namespace::Shared, parentText);
        tmpl && tmpl->kind == RefKind::Template) {
      RefKind tk = templateKind(*tmpl);
      if (tk != kind) {
        diags_.report(DiagKind::TemplateOfAnotherKind, at, len, parentText,
                      tk == RefKind::Template ? std::string("whole definitions")
                                              : std::string(kindWord(tk)) + " lines",
                      refKindWithArticle(kind));
        return;
      }
      TemplateUse use;
      use.templateName = parentText;
      use.parts = tmpl->parts;
      use.params = templateParams(*tmpl);
      use.header = std::string(kindWord(kind)) + " " + own;
      if (args)
        use.values = argumentValues(tree_, node.file, args->begin, args->end);
      use.origin = at;
      use.package = tree_.packages[node.file];
      usedTemplates_.push_back(parentText);
      NodeId written = writeOutTemplate(tree_, sources_, diags_, use);
      if (written != kNone)
        defs.find(own)->second.parts.insert(defs.find(own)->second.parts.begin(), written);
      return;
    }
    auto from = defs.find(parentText);
    if (from == defs.end()) {
      diags_.report(DiagKind::ParentOfAnotherKind, at, len, parentText, kindWord(kind));
      return;
    }
    if (args) {
      diags_.report(DiagKind::ParentWithArguments, at, len, parentText);
      return;
    }
    if (from->second.node != kNone && tree_.slot(from->second.node, "parent"))
      inherit(from->second.node, kind);
    std::vector<NodeId> parts = from->second.parts;
    auto &mine = defs.find(own)->second.parts;
    mine.insert(mine.begin(), parts.begin(), parts.end());
  }

  // `from TEMPLATE`: whole definitions, written once for each row under it,
  // as if written there.
  void writeFrom(NodeId n) {
    const Node node = tree_.nodes[n];
    const Slot *tmplSlot = tree_.slot(n, "template");
    std::string name(tree_.span(node.file, tmplSlot->begin, tmplSlot->end));
    const Decl *tmpl = decls_.find(Namespace::Shared, name);
    if (!tmpl || tmpl->kind != RefKind::Template)
      return; // refused when its name is resolved
    if (templateKind(*tmpl) != RefKind::Template) {
      diags_.report(DiagKind::FromNeedsDefinitions, tree_.loc(node.file, tmplSlot->begin),
                    static_cast<uint32_t>(name.size()), name, kindWord(templateKind(*tmpl)));
      return;
    }
    // A template whose lines write it out again would never end.
    if (std::find(writing_.begin(), writing_.end(), name) != writing_.end()) {
      diags_.report(DiagKind::TemplateWritesItself, tree_.loc(node.file, tmplSlot->begin),
                    static_cast<uint32_t>(name.size()), name);
      return;
    }
    usedTemplates_.push_back(name);
    writing_.push_back(name);
    std::vector<NodeId> parts = tmpl->parts;
    for (NodeId row = node.firstChild; row != kNone; row = tree_.nodes[row].nextSibling) {
      const Node rowNode = tree_.nodes[row];
      const Slot *values = tree_.slot(row, "values");
      TemplateUse use;
      use.templateName = name;
      use.parts = parts;
      use.params = templateParams(*tmpl);
      use.values = rowValues(tree_, rowNode.file, values->begin, values->end);
      for (NodeId c = rowNode.firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
        use.block.push_back(c);
      use.origin = tree_.loc(rowNode.file, rowNode.begin);
      use.package = tree_.packages[rowNode.file];
      NodeId written = writeOutTemplate(tree_, sources_, diags_, use);
      for (NodeId d = written; d != kNone; d = tree_.nodes[d].nextSibling)
        declare(d);
    }
    writing_.pop_back();
  }

  // A clause a definition says once: made from a template or a parent, or
  // extended, it adds and never replaces, so the same clause from two of its
  // parts clashes.
  std::string onceKey(NodeId n) const {
    const Node &node = tree_.nodes[n];
    switch (node.kind) {
    case FormKind::EffectStack: return "stack";
    case FormKind::EffectClock: return "clock";
    case FormKind::EffectDies: return "dies";
    case FormKind::EffectFalls: return "falls";
    case FormKind::EffectOrder: return "order";
    case FormKind::EffectVar: return "var " + slotText(n, "name");
    case FormKind::AbilityTarget: return "target";
    case FormKind::AbilityCooldown: return "cooldown";
    case FormKind::AbilityRadius: return "radius";
    case FormKind::AbilityWindup:
    case FormKind::AbilityChannel:
    case FormKind::AbilityCharge:
    case FormKind::AbilityFlies: return std::string(text(node.file, node.begin));
    case FormKind::ArchetypeBase: return "base " + slotText(n, "stat");
    default: return {};
    }
  }

  void checkClashes(const std::string &name, const Decl &decl) {
    std::map<std::string, std::pair<NodeId, NodeId>, std::less<>> said; // key: part, line
    for (NodeId part : decl.parts)
      for (NodeId c = tree_.nodes[part].firstChild; c != kNone; c = tree_.nodes[c].nextSibling) {
        std::string key = onceKey(c);
        if (key.empty())
          continue;
        auto [it, added] = said.emplace(key, std::make_pair(part, c));
        if (added || it->second.first == part)
          continue;
        const Node &node = tree_.nodes[c];
        const Node &first = tree_.nodes[it->second.second];
        diags_.report(DiagKind::Clash, tree_.loc(node.file, node.begin), length(node.file, node.begin),
                      key, name);
        diags_.note(DiagKind::ClashHere, tree_.loc(first.file, first.begin),
                    length(first.file, first.begin), key);
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
  // What a line may read besides the catalog's declarations: a template's
  // parameters, the names steps and plays give, a table's arguments and
  // columns, and the vars of the effect it stands in.
  struct Scope {
    std::vector<std::string> locals;
    std::vector<std::string> vars;
    std::vector<std::string> varKinds; // each var's kind word: "" (a number), actor, tag, …
    bool inEffect = false;
    bool inPlay = false;
    // Where the roots mean something.
    bool inAbility = false;
    bool eventInHand = false; // a rule hearing an event, an ability's lines
    bool it = false;          // a candidate read as it: a query, a sort, a table row
    bool flight = false;      // an ability that flies: projectile
    bool beat = false;        // a channel's every and broken by: self.beats
    bool listTargets = false; // an ability whose target clause takes a list: targets

    bool has(std::string_view name) const {
      for (const std::string &l : locals)
        if (l == name)
          return true;
      return false;
    }
  };

  static std::string_view head(std::string_view dotted) {
    return dotted.substr(0, dotted.find('.'));
  }

  bool declaredAnywhere(std::string_view name) const {
    for (const auto &map : decls_.byNamespace)
      if (map.count(name))
        return true;
    return among(kBuiltinEvents, name);
  }

  void resolveRef(const Slot &slot, uint32_t file, uint32_t begin, uint32_t end,
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
  void resolveHead(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
    std::string_view first = text(file, begin);
    if (scope.has(first))
      return;
    if (among(kRoots, first)) {
      checkRootPlace(file, begin, scope);
      return;
    }
    if (declaredAnywhere(first) ||
        declaredAnywhere(tree_.span(file, begin, end)))
      return;
    diags_.report(scope.inPlay ? DiagKind::UnknownPlayName : DiagKind::UnknownFormulaName,
                  tree_.loc(file, begin), length(file, begin), first);
  }

  // "roots allowed only where they mean something"
  void checkRootPlace(uint32_t file, uint32_t tok, const Scope &scope) {
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
  // self.beats is a channel's own, in its every and its broken by.
  void resolveSelfMember(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) {
    if (end < begin + 3 || text(file, begin) != "self")
      return;
    std::string_view member = text(file, begin + 2);
    if (member == "beats" && scope.beat)
      return;
    if (!scope.inEffect) {
      if (member == "beats" && !scope.inPlay)
        diags_.report(DiagKind::RootOutOfPlace, tree_.loc(file, begin), 10, "self.beats",
                      "in a channel's every and its broken by");
      return;
    }
    if (member == "stacks" || member == "remaining" || member == "elapsed")
      return;
    for (const std::string &v : scope.vars)
      if (v == member)
        return;
    if (scope.has(member))
      return;
    diags_.report(DiagKind::UnknownVar, tree_.loc(file, begin + 2), length(file, begin + 2),
                  member);
  }

  void resolveCall(const Expr &e, const Scope &scope) {
    std::string name(tree_.span(e.file, e.begin, e.nameEnd));
    Loc loc = tree_.loc(e.file, e.begin);
    auto len = static_cast<uint32_t>(name.size());
    for (const BuiltinFunction &f : kFunctions) {
      if (f.name != name)
        continue;
      if (e.argCount < f.least || e.argCount > f.most)
        diags_.report(DiagKind::FunctionArity, loc, len, name, f.written, e.argCount);
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

  void resolveExpr(ExprId id, const Scope &scope) {
    const Expr &e = tree_.exprs[id];
    switch (e.kind) {
    case ExprKind::Path:
      if (tree_.token(e.file, e.begin).kind == TokenKind::Ellipsis) {
        diags_.report(DiagKind::ListJoinUnsupported, tree_.loc(e.file, e.begin), 3);
        return;
      }
      resolveHead(e.file, e.begin, e.end, scope);
      resolveSelfMember(e.file, e.begin, e.end, scope);
      return;
    case ExprKind::Call: {
      resolveCall(e, scope);
      // sum, highest and lowest read their formula of each one found as it.
      std::string_view name = text(e.file, e.begin);
      bool each = e.nameEnd == e.begin + 1 && (name == "sum" || name == "highest" || name == "lowest");
      for (uint32_t i = 0; i < e.argCount; ++i) {
        Scope argScope = scope;
        argScope.it = scope.it || (each && i > 0);
        resolveExpr(tree_.exprArgs[e.firstArg + i], argScope);
      }
      return;
    }
    case ExprKind::Part: { // held(...) or a query: each found is read as it
      Scope partScope = scope;
      partScope.it = true;
      resolveSlots(e.part, partScope);
      return;
    }
    case ExprKind::Except: {
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
  static bool namesNoActor(std::string_view label) {
    return label == "check" || label == "name" || label == "stat" || label == "target";
  }

  void resolveSlots(NodeId n, const Scope &scope) {
    const Node &node = tree_.nodes[n];
    bool assign = node.kind == FormKind::Assign;
    for (uint32_t i = 0; i < node.slotCount; ++i) {
      const Slot &slot = tree_.slots[node.firstSlot + i];
      switch (slot.kind) {
      case SlotKind::Ref:
        resolveRef(slot, node.file, slot.begin, slot.end, scope);
        break;
      case SlotKind::Refs:
        eachListItem(slot, node.file, true, [&](uint32_t b, uint32_t e) {
          resolveRef(slot, node.file, b, e, scope);
        });
        break;
      case SlotKind::Path:
        if (!(assign || namesNoActor(labelText(slot.label)) ||
              node.kind == FormKind::ExpectCoverage)) {
          resolveHead(node.file, slot.begin, slot.end, scope);
          resolveSelfMember(node.file, slot.begin, slot.end, scope);
        }
        break;
      case SlotKind::Formula:
      case SlotKind::Duration:
        resolveExpr(slot.value, scope);
        break;
      case SlotKind::Part: {
        // A query, held(...) and a sort read each candidate as it.
        FormKind part = tree_.nodes[slot.value].kind;
        Scope partScope = scope;
        partScope.it = scope.it || part == FormKind::TargetsQuery || part == FormKind::Held ||
                       part == FormKind::Keys || part == FormKind::Order;
        resolveSlots(slot.value, partScope);
        break;
      }
      default:
        break;
      }
    }
  }

  // ---- the kinds of formulas ----------------------------------------------
  // What a formula gives, where the checker can tell: a number, an actor, a
  // tag, an ability, a held instance, a list of actors; Unknown where it reads
  // something only its run knows (a local, a property, a var of a grant).
  enum class ValueKind { Unknown, Number, Actor, Tag, Ability, Instance, List };

  static const char *valueKindWithArticle(ValueKind kind) {
    switch (kind) {
    case ValueKind::Number: return "a number";
    case ValueKind::Actor: return "an actor";
    case ValueKind::Tag: return "a tag";
    case ValueKind::Ability: return "an ability";
    case ValueKind::Instance: return "a held instance";
    case ValueKind::List: return "a list of actors";
    case ValueKind::Unknown: break;
    }
    return "something";
  }

  // Walks a dotted name's members from an actor: a link is another actor, a
  // value or a pile a number.
  ValueKind memberOfActor(uint32_t file, uint32_t tok, uint32_t end) const {
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

  ValueKind pathKind(uint32_t file, uint32_t begin, uint32_t end, const Scope &scope) const {
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
          return k.empty() ? ValueKind::Number
                 : k == "actor"    ? ValueKind::Actor
                 : k == "tag"      ? ValueKind::Tag
                 : k == "ability"  ? ValueKind::Ability
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
    if (end == begin + 1 && decls_.find(Namespace::Ability, first) &&
        !decls_.find(Namespace::Effect, first))
      return ValueKind::Ability;
    return ValueKind::Unknown;
  }

  ValueKind exprKind(ExprId id, const Scope &scope) const {
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

  void wantKind(ExprId id, ValueKind wanted, const Scope &scope) {
    ValueKind got = exprKind(id, scope);
    if (got == ValueKind::Unknown || got == wanted)
      return;
    const Expr &e = tree_.exprs[id];
    std::string written(tree_.span(e.file, e.begin, e.end));
    diags_.report(DiagKind::KindMismatch, tree_.loc(e.file, e.begin),
                  static_cast<uint32_t>(written.size()), written, valueKindWithArticle(got),
                  valueKindWithArticle(wanted));
  }

  // Arithmetic reads numbers: an actor plus one is no formula.
  void checkArithmetic(ExprId id, const Scope &scope) {
    const Expr &e = tree_.exprs[id];
    bool arithmetic = (e.kind == ExprKind::Binary &&
                       (e.op == ExprOp::Add || e.op == ExprOp::Sub || e.op == ExprOp::Mul ||
                        e.op == ExprOp::Div)) ||
                      (e.kind == ExprKind::Unary && e.op == ExprOp::Neg);
    if (arithmetic)
      for (uint32_t i = 0; i < e.argCount; ++i)
        wantKind(tree_.exprArgs[e.firstArg + i], ValueKind::Number, scope);
    if (e.kind != ExprKind::Part)
      for (uint32_t i = 0; i < e.argCount; ++i)
        checkArithmetic(tree_.exprArgs[e.firstArg + i], scope);
  }

  // The slots whose formula is a number wherever they stand, and those that
  // name an actor.
  static bool wantsNumber(std::string_view label) {
    constexpr std::string_view kNumbers[] = {
        "amount", "more",  "stacks", "count",  "cond",   "upTo",   "factor", "share", "key",
        "max",    "min",   "stronger", "line", "untilLine", "speed", "radius", "within",
        "beyond", "across", "wide",  "by",     "value",  "outOf"};
    for (std::string_view n : kNumbers)
      if (n == label)
        return true;
    return false;
  }
  static bool wantsActor(FormKind form, std::string_view label) {
    if (form == FormKind::TargetsActor)
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

  void checkKinds(NodeId n, const Scope &scope) {
    const Node &node = tree_.nodes[n];
    // A let names what it is given, and a self var is set as its kind says.
    bool anyKind = node.kind == FormKind::StepLet || node.kind == FormKind::Assign ||
                   node.kind == FormKind::StepSelf || node.kind == FormKind::EffectVar;
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
      } else if (slot.kind == SlotKind::Path && wantsActor(node.kind, label)) {
        ValueKind got = pathKind(node.file, slot.begin, slot.end, scope);
        if (got != ValueKind::Unknown && got != ValueKind::Actor) {
          std::string written(tree_.span(node.file, slot.begin, slot.end));
          diags_.report(DiagKind::KindMismatch, tree_.loc(node.file, slot.begin),
                        static_cast<uint32_t>(written.size()), written,
                        valueKindWithArticle(got), "an actor");
        }
      } else if (slot.kind == SlotKind::Part) {
        Scope partScope = scope;
        FormKind part = tree_.nodes[slot.value].kind;
        partScope.it = scope.it || part == FormKind::TargetsQuery || part == FormKind::Held ||
                       part == FormKind::Keys || part == FormKind::Order;
        checkKinds(slot.value, partScope);
      }
    }
  }

  // ---- a play's expectations ---------------------------------------------
  // "a line with a number ends with where it came from: from ROW:
  // ARITHMETIC …, from v2 PATH, from content: WHY or from a run: WHY"; in a
  // game's own plays one with none is a warning, the play running.
  void checkSource(NodeId n) {
    const Node &node = tree_.nodes[n];
    if (std::string_view(formName(node.kind)).rfind("Expect", 0) != 0)
      return;
    const Slot *source = tree_.slot(n, "source");
    if (source) {
      auto word = [&](uint32_t i) {
        return i < source->end ? text(node.file, i) : std::string_view();
      };
      auto raw = [&](uint32_t i) {
        return i + 1 == source->end && tree_.token(node.file, i).kind == TokenKind::RawText;
      };
      std::string_view first = word(source->begin);
      bool row = first.size() == 4 && (first[0] == 'A' || first[0] == 'B' || first[0] == 'G') &&
                 std::isdigit(static_cast<unsigned char>(first[1])) &&
                 std::isdigit(static_cast<unsigned char>(first[2])) &&
                 std::isdigit(static_cast<unsigned char>(first[3]));
      bool ok = first == "v2" || ((first == "content" || row) && raw(source->begin + 1)) ||
                (first == "a" && word(source->begin + 1) == "run" && raw(source->begin + 2));
      if (!ok)
        diags_.report(DiagKind::BadSource, tree_.loc(node.file, source->begin - 1),
                      length(node.file, source->begin - 1));
      return;
    }
    for (uint32_t i = 0; i < node.slotCount; ++i) {
      SlotKind kind = tree_.slots[node.firstSlot + i].kind;
      if (kind == SlotKind::Number || kind == SlotKind::Duration) {
        diags_.report(DiagKind::NumberWithoutSource, tree_.loc(node.file, node.begin),
                      length(node.file, node.begin));
        return;
      }
    }
  }

  // ---- what a with sets -------------------------------------------------
  std::vector<std::string> varsOf(std::string_view effect) const {
    std::vector<std::string> vars;
    if (const Decl *decl = decls_.find(Namespace::Effect, effect))
      for (NodeId part : decl->parts)
        for (NodeId c = tree_.nodes[part].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
          if (tree_.nodes[c].kind == FormKind::EffectVar)
            vars.push_back(slotText(c, "name"));
    return vars;
  }

  std::vector<std::string> tableArgs(std::string_view table) const {
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
  void checkAssigns(NodeId n, const Scope &scope) {
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
    case FormKind::StepCreate: sets = Sets::LinkOrPool; break;
    case FormKind::ArchetypeWith: sets = Sets::Pool; break;
    case FormKind::PlayMake: sets = Sets::Link; break;
    case FormKind::StepPick:
    case FormKind::PlayDraw:
      sets = Sets::Arg;
      owner = slotText(n, "table");
      break;
    default: sets = Sets::Prop; break;
    }
    if (scope.has(head(owner)) || (!owner.empty() && head(owner) != owner))
      return; // a pick's row, or a var holding one: known as it runs
    std::vector<std::string> names =
        sets == Sets::Var ? varsOf(owner) : sets == Sets::Arg ? tableArgs(owner)
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
        diags_.report(DiagKind::UndeclaredName, loc, len, name, "link or pool");
        break;
      case Sets::Pool:
        if (value && value->kind == RefKind::Pool)
          continue;
        diags_.report(DiagKind::UndeclaredName, loc, len, name, "pool");
        break;
      case Sets::Link:
        if (shared && shared->kind == RefKind::Link)
          continue;
        diags_.report(DiagKind::UndeclaredName, loc, len, name, "link");
        break;
      }
    }
  }

  // `STAT OP …` and `LINK = ACTOR` are written alike: the name tells them apart.
  void checkModifier(NodeId n, const Scope &scope) {
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
    if (const Decl *link = decls_.find(Namespace::Shared, name); link && link->kind == RefKind::Link) {
      if (tree_.span(node.file, op->begin, op->end) != "=")
        diags_.report(DiagKind::LinkOverrideForm, loc, len, name, name);
      return;
    }
    const Decl *decl = decls_.find(Namespace::Value, name);
    if (!decl)
      decl = decls_.find(Namespace::Value, head(name));
    if (!decl)
      diags_.report(DiagKind::UndeclaredName, loc, len, name, "stat or link");
    else if (decl->kind != RefKind::Stat)
      diags_.report(DiagKind::WrongKind, loc, len, name, refKindWithArticle(decl->kind),
                    "a stat");
  }

  // ---- scopes -------------------------------------------------------------
  std::string slotText(NodeId n, std::string_view label) const {
    const Slot *s = tree_.slot(n, label);
    return s ? std::string(tree_.span(tree_.nodes[n].file, s->begin, s->end)) : std::string();
  }

  void addVars(NodeId definition, Scope &scope) const {
    for (NodeId c = tree_.nodes[definition].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
      if (tree_.nodes[c].kind == FormKind::EffectVar) {
        scope.vars.push_back(slotText(c, "name"));
        scope.varKinds.push_back(slotText(c, "kind"));
      }
  }

  // A definition's own scope: what its kind lets its lines read.
  Scope definitionScope(NodeId n, Scope scope) {
    const Node &node = tree_.nodes[n];
    switch (node.kind) {
    case FormKind::Template:
    case FormKind::Replace:
      for (const Slot *p : tree_.slotsNamed(n, "param"))
        if (const Slot *name = tree_.slot(p->value, "name"))
          scope.locals.emplace_back(text(node.file, name->begin));
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
      if (const Decl *decl = decls_.find(Namespace::Ability,
                                         slotText(n, node.kind == FormKind::Ability ? "name" : "target")))
        parts.insert(parts.end(), decl->parts.begin(), decl->parts.end());
      for (NodeId part : parts)
        for (NodeId c = tree_.nodes[part].firstChild; c != kNone; c = tree_.nodes[c].nextSibling) {
          FormKind k = tree_.nodes[c].kind;
          scope.flight = scope.flight || k == FormKind::AbilityFlies;
          scope.listTargets =
              scope.listTargets || (k == FormKind::AbilityTarget && tree_.slot(c, "count"));
        }
    }
    bool table = node.kind == FormKind::Table || kind == "table";
    if (table) {
      // A row's columns and the draw's arguments by name, and `for`, the drawer.
      scope.locals.emplace_back("for");
      if (const Slot *args = tree_.slot(n, "args"))
        eachListItem(*args, node.file, false,
                     [&](uint32_t b, uint32_t) { scope.locals.emplace_back(text(node.file, b)); });
      std::vector<NodeId> parts{n};
      if (node.kind != FormKind::Table)
        if (const Decl *decl = decls_.find(Namespace::Shared, slotText(n, "target")))
          parts = decl->parts;
      for (NodeId part : parts)
        for (NodeId row = tree_.nodes[part].firstChild; row != kNone; row = tree_.nodes[row].nextSibling)
          for (const Slot *col : tree_.slotsNamed(row, "column"))
            scope.locals.emplace_back(tree_.span(tree_.nodes[row].file, col->begin, col->end));
    }
    if (node.kind == FormKind::Play)
      scope.inPlay = true;
    return scope;
  }

  // A name a line gives to the lines after it (let, as, make …), or to its
  // own lines (for each, pick).
  static bool namesForItsBody(FormKind kind) {
    return kind == FormKind::StepForEach || kind == FormKind::StepPick;
  }
  void addGivenNames(NodeId n, Scope &scope) const {
    FormKind kind = tree_.nodes[n].kind;
    if (namesForItsBody(kind))
      return;
    for (const char *label : {"name", "as", "flight", "projectile"}) {
      const Slot *s = tree_.slot(n, label);
      if (s && s->kind == SlotKind::Name)
        scope.locals.emplace_back(tree_.span(tree_.nodes[n].file, s->begin, s->end));
    }
  }

  static bool isDefinition(FormKind kind) {
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
  void placeRoots(NodeId n, Scope &scope) const {
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
    case FormKind::TableRow:
    case FormKind::TableWhen:
      scope.it = true;
      scope.eventInHand = true;
      break;
    default:
      break;
    }
  }

  void resolveTree(NodeId n, Scope scope) {
    const Node &node = tree_.nodes[n];
    if (node.kind == FormKind::From || node.kind == FormKind::FromRow)
      return; // a from's rows are its template's values
    // A template used is checked where it is written out, with its values.
    if (node.kind == FormKind::Template &&
        std::find(usedTemplates_.begin(), usedTemplates_.end(), slotText(n, "name")) !=
            usedTemplates_.end())
      return;
    if (isDefinition(node.kind))
      scope = definitionScope(n, std::move(scope));
    placeRoots(n, scope);
    if (node.kind == FormKind::EffectModifier)
      checkModifier(n, scope);
    checkAssigns(n, scope);
    if (scope.inPlay)
      checkSource(n);
    else
      checkKinds(n, scope);
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
    }
  }

  SyntaxTree &tree_;
  SourceManager &sources_;
  DiagnosticEngine &diags_;
  Declarations decls_;
  std::vector<NodeId> unresolvedAmendments_;
  std::vector<std::string> usedTemplates_;
  std::vector<std::string> writing_; // templates being written out, innermost last
  std::vector<std::pair<NodeId, RefKind>> pendingParents_;
  std::vector<NodeId> inheriting_, inherited_;
  NodeId time_ = kNone, phases_ = kNone, rate_ = kNone, allegiance_ = kNone, damage_ = kNone,
         turn_ = kNone;
};

} // namespace

Declarations check(SyntaxTree &tree, SourceManager &sources, DiagnosticEngine &diags) {
  Declarations decls = Checker(tree, sources, diags).run();
  checkRefusals(tree, decls, diags);
  return decls;
}

} // namespace ledger

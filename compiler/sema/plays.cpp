// A play's expectations: where each number came from.
#include "sema/checker.h"

#include "sema/words.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace ledger::sema {

// "a line with a number ends with where it came from: from ROW:
// ARITHMETIC …, from v2 PATH, from content: WHY or from a run: WHY"; in a
// game's own plays one with none is a warning, the play running.
void Checker::checkSource(NodeId n) {
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
    if (!ok) {
      diags_.report(DiagKind::BadSource, tree_.loc(node.file, source->begin - 1),
                    length(node.file, source->begin - 1));
    } else if (row && !holdsNumber(n)) {
      // "a line with no number may end with one of the last three … and
      // never with a row's, which has no number to work out"
      diags_.report(DiagKind::RowSourceWithoutNumber, tree_.loc(node.file, source->begin - 1),
                    length(node.file, source->begin - 1));
    }
    return;
  }
  if (holdsNumber(n))
    diags_.report(DiagKind::NumberWithoutSource, tree_.loc(node.file, node.begin),
                  length(node.file, node.begin));
}

bool Checker::holdsNumber(NodeId n) const {
  const Node &node = tree_.nodes[n];
  for (uint32_t i = 0; i < node.slotCount; ++i) {
    SlotKind kind = tree_.slots[node.firstSlot + i].kind;
    if (kind == SlotKind::Number || kind == SlotKind::Duration)
      return true;
  }
  return false;
}

// A census id: a letter A, B or G and three digits (A003).
static bool isCensusId(std::string_view id) {
  return id.size() == 4 && (id[0] == 'A' || id[0] == 'B' || id[0] == 'G') &&
         std::isdigit(static_cast<unsigned char>(id[1])) &&
         std::isdigit(static_cast<unsigned char>(id[2])) &&
         std::isdigit(static_cast<unsigned char>(id[3]));
}

// The member a play line reads of an actor it named: PLAYED.VALUE,
// PLAYED.PILE, PLAYED.LINK or PLAYED.POOL, as its form says; the actor may
// be read on through its links (cat.owner.Health), and a stat by type names
// its member (d.Resist.Magic.Fire).
void Checker::checkPlayedMember(NodeId n, const char *label, std::initializer_list<RefKind> kinds) {
  const Slot *slot = tree_.slot(n, label);
  if (!slot || slot->end < slot->begin + 3)
    return; // no member: the name checks say what is wrong
  uint32_t file = tree_.nodes[n].file;
  auto isLink = [&](std::string_view name) {
    const Decl *shared = decls_.find(Namespace::Shared, name);
    return shared && shared->kind == RefKind::Link;
  };
  auto wanted = [&](std::string_view name) {
    const Decl *value = decls_.find(Namespace::Value, name);
    const Decl *shared = decls_.find(Namespace::Shared, name);
    for (RefKind kind : kinds)
      if ((value && value->kind == kind) || (shared && shared->kind == kind))
        return true;
    return false;
  };
  uint32_t t = slot->begin + 2;
  // Links lead on to another actor; the last name is what the line reads.
  while (t + 2 < slot->end && isLink(text(file, t)))
    t += 2;
  std::string_view member = text(file, t);
  if (!wanted(member)) {
    std::string names;
    for (RefKind kind : kinds)
      names += std::string(names.empty() ? "" : " or ") + refKindName(kind);
    if (t + 2 < slot->end)
      names = "link"; // a name read on past is an actor's
    // One declared of another kind is said to be so: a stat is no pool.
    const Decl *other = decls_.find(Namespace::Value, member);
    if (!other)
      other = decls_.find(Namespace::Shared, member);
    if (other)
      diags_.report(DiagKind::WrongKind, tree_.loc(file, t), length(file, t), member,
                    refKindWithArticle(other->kind), "a " + names);
    else
      diags_.report(DiagKind::UndeclaredName, tree_.loc(file, t), length(file, t), member, names);
    return;
  }
  checkStatMember(file, t, slot->end);
}

NodeId Checker::playOf(NodeId n) const {
  while (n != kNone && tree_.nodes[n].kind != FormKind::Play)
    n = tree_.nodes[n].parent;
  return n;
}

// Whether a play names an actor so, anywhere in it (the order of its lines
// is the name checks').
bool Checker::playNamesActor(NodeId p, std::string_view name) const {
  FormKind k = tree_.nodes[p].kind;
  const Slot *given = tree_.slot(p, k == FormKind::PlayAct ? "projectile" : "name");
  if ((k == FormKind::PlayMake || k == FormKind::PlayFind || k == FormKind::PlayAct) && given &&
      tree_.span(tree_.nodes[p].file, given->begin, given->end) == name)
    return true;
  for (NodeId c = tree_.nodes[p].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
    if (playNamesActor(c, name))
      return true;
  return false;
}

// "using names the grant": an effect the caster holds, or an item the play
// named; a declared name of another kind is none.
void Checker::checkActUsing(NodeId n) {
  const Slot *s = tree_.slot(n, "using");
  if (!s || s->end != s->begin + 1)
    return;
  uint32_t file = tree_.nodes[n].file;
  std::string_view name = text(file, s->begin);
  NodeId play = playOf(n);
  if (decls_.find(Namespace::Effect, name) || (play != kNone && playNamesActor(play, name)))
    return;
  for (Namespace ns : {Namespace::Ability, Namespace::Archetype, Namespace::Value, Namespace::Tag,
                       Namespace::Shared})
    if (const Decl *other = decls_.find(ns, name)) {
      diags_.report(DiagKind::WrongKind, tree_.loc(file, s->begin), length(file, s->begin), name,
                    refKindWithArticle(other->kind), "an effect or an item the play named");
      return;
    }
}

// "PLAYED: an actor the play named with make", read on through its links
// (rat.owner): each name past it a declared link, as a value is no actor.
void Checker::checkPlayedActors(NodeId n, NodeId play) {
  const Node &node = tree_.nodes[n];
  constexpr std::string_view kActorLabels[] = {
      "actor",     "other", "of",     "by", "from", "to",     "targets", "item",    "met",
      "answering", "for",   "actors", "at", "as",   "seeing", "using",   "credited"};
  if (play == kNone)
    play = playOf(n);
  auto isLink = [&](std::string_view name) {
    const Decl *shared = decls_.find(Namespace::Shared, name);
    return shared && shared->kind == RefKind::Link;
  };
  for (uint32_t i = 0; i < node.slotCount; ++i) {
    const Slot &slot = tree_.slots[node.firstSlot + i];
    std::string_view label = labelText(slot.label);
    if (slot.kind == SlotKind::Part && slot.value != kNone) {
      checkPlayedActors(slot.value, play); // an event's spec, a place's actors
      continue;
    }
    if (slot.kind != SlotKind::Path || slot.end < slot.begin + 3 || !among(kActorLabels, label) ||
        (node.kind == FormKind::PlayMove && label == "to"))
      continue; // a move's to is a pile (checkPlayedMember)
    std::string_view head = text(node.file, slot.begin);
    if (!(isLink(head) || (play != kNone && playNamesActor(play, head))))
      continue; // no actor: the name checks say what it is
    for (uint32_t t = slot.begin + 2; t < slot.end; t += 2)
      if (!isLink(text(node.file, t))) {
        diags_.report(DiagKind::UndeclaredName, tree_.loc(node.file, t), length(node.file, t),
                      text(node.file, t), "link");
        break;
      }
  }
}

void Checker::checkPlayLine(NodeId n) {
  const Node &node = tree_.nodes[n];
  uint32_t file = node.file;
  checkPlayedActors(n);
  switch (node.kind) {
  case FormKind::ExpectRefused:
  case FormKind::ExpectFault:
  case FormKind::ExpectCannot:
    if (const Slot *reason = tree_.slot(n, "reason")) {
      std::string_view word = text(file, reason->begin);
      if (!among(kReasons, word))
        diags_.report(DiagKind::UnknownReason, tree_.loc(file, reason->begin),
                      length(file, reason->begin), word);
    }
    break;
  case FormKind::PlayRow:
  case FormKind::PlayDeclined:
  case FormKind::Play: {
    const Slot *ids = tree_.slot(n, node.kind == FormKind::PlayRow ? "id"
                                    : node.kind == FormKind::Play  ? "ids"
                                                                   : "row");
    if (ids)
      for (uint32_t t = ids->begin; t < ids->end; ++t)
        if (tree_.token(file, t).kind == TokenKind::Name && !isCensusId(text(file, t)))
          diags_.report(DiagKind::BadCensusId, tree_.loc(file, t), length(file, t), text(file, t));
    if (node.kind == FormKind::PlayRow) {
      checkRowDefinitions(n);
      // "in the file's head, before its plays"
      for (NodeId p = tree_.fileFirstNode[file]; p != n && p != kNone;
           p = tree_.nodes[p].nextSibling)
        if (tree_.nodes[p].kind == FormKind::Play) {
          diags_.report(DiagKind::RowAfterPlay, tree_.loc(file, node.begin), 3);
          break;
        }
    }
    break;
  }
  case FormKind::PlaySeed:
    // "the world's seed": the world the play's steps run in has it from
    // the start.
    if (NodeId play = node.parent; play != kNone && tree_.nodes[play].firstChild != n)
      diags_.report(DiagKind::SeedAfterStep, tree_.loc(file, node.begin), 4);
    break;
  case FormKind::PlayLink:
  case FormKind::PlayMake:
    checkPlayLinks(n);
    break;
  case FormKind::PlayCatalog:
    checkCatalogLine(n);
    break;
  case FormKind::ExpectValue:
    checkPlayedMember(n, "value", {RefKind::Stat, RefKind::Pool, RefKind::Pile});
    break;
  case FormKind::ExpectMax:
    checkPlayedMember(n, "value", {RefKind::Stat, RefKind::Pool});
    break;
  case FormKind::ExpectPreview:
  case FormKind::ExpectForecast:
    checkPlayedMember(n, "value", {RefKind::Stat, RefKind::Pool});
    checkPlayWithValues(n);
    break;
  case FormKind::ExpectLink:
    checkPlayedMember(n, "value", {RefKind::Link});
    break;
  case FormKind::PlaySet:
    checkPlayedMember(n, "target", {RefKind::Pool});
    break;
  case FormKind::ExpectIn:
    checkPlayedMember(n, "pile", {RefKind::Pile});
    break;
  case FormKind::PlayMove:
    checkPlayedMember(n, "to", {RefKind::Pile});
    break;
  case FormKind::PlayAct:
    checkActUsing(n);
    checkPlayWithValues(n);
    break;
  case FormKind::PlayApply:
  case FormKind::PlayReport:
    checkPlayWithValues(n);
    break;
  case FormKind::PlayRepeat:
    checkPlayRepeat(n);
    break;
  case FormKind::PlayRewind:
    checkRewindHasSave(n);
    break;
  case FormKind::ExpectCoverage:
    checkCoverageLine(n);
    break;
  default:
    break;
  }
}

// "expect coverage EFFECT [rule N] heard|fired|changed|applied | ABILITY
// used|refused | ARCHETYPE made": each count is of one kind of name, and a
// rule's only of what a rule did.
void Checker::checkCoverageLine(NodeId n) {
  const Slot *name = tree_.slot(n, "name"), *what = tree_.slot(n, "what");
  if (!name || !what)
    return;
  uint32_t file = tree_.nodes[n].file;
  std::string_view written = tree_.span(file, name->begin, name->end);
  std::string_view counted = tree_.span(file, what->begin, what->end);
  bool ofAbility = counted == "used" || counted == "refused", ofArchetype = counted == "made";
  Namespace ns = ofAbility ? Namespace::Ability : ofArchetype ? Namespace::Archetype : Namespace::Effect;
  const char *kind = ofAbility ? "ability" : ofArchetype ? "archetype" : "effect";
  const char *whose = ofAbility ? "an ability's orders and casts" : ofArchetype ? "an archetype's actors"
                                                                  : "an effect's rules and applies";
  if (!decls_.find(ns, written) && !(ns == Namespace::Effect && isCooldown(written)))
    diags_.report(DiagKind::CoverageName, tree_.loc(file, name->begin),
                  static_cast<uint32_t>(written.size()), written, kind, counted, whose);
  const Slot *rule = tree_.slot(n, "rule");
  if (rule && counted != "heard" && counted != "fired" && counted != "changed")
    diags_.report(DiagKind::CoverageRule, tree_.loc(file, rule->begin),
                  static_cast<uint32_t>(tree_.span(file, rule->begin, rule->end).size()), counted);
}

// "with PROP = N | PROP = TAG, ...": a number, or a tag by name ("a tag
// property is given a tag by name"); an apply's "with VAR = N". Whether the
// property takes that tag, or a number that big, is the order's to refuse
// (BadProperty) as the play runs.
void Checker::checkPlayWithValues(NodeId n) {
  for (const Slot *assign : tree_.slotsNamed(n, "assign")) {
    const Slot *value = tree_.slot(assign->value, "value");
    if (!value)
      continue;
    const Expr &e = tree_.exprs[value->value];
    if (e.kind == ExprKind::Number ||
        (e.kind == ExprKind::Unary && e.op == ExprOp::Neg &&
         tree_.exprs[tree_.exprArgs[e.firstArg]].kind == ExprKind::Number))
      continue;
    std::string_view written = tree_.span(e.file, e.begin, e.end);
    if (e.kind == ExprKind::Path && decls_.find(Namespace::Tag, written))
      continue;
    diags_.report(DiagKind::PlayWithValue, tree_.loc(e.file, e.begin),
                  static_cast<uint32_t>(written.size()), written);
  }
}

// "repeat N: the steps indented under it, that many times": a play runs
// them at most kMostPlayRepeats times, those in one another multiplied, so
// a slip of the keyboard can't hold the suite for hours (reading 162).
void Checker::checkPlayRepeat(NodeId n) {
  double runs = 1;
  for (NodeId at = n; at != kNone; at = tree_.nodes[at].parent)
    if (tree_.nodes[at].kind == FormKind::PlayRepeat) {
      const Slot *count = tree_.slot(at, "count");
      if (!count)
        return;
      int64_t times = tree_.token(tree_.nodes[at].file, count->begin).value.raw / Fixed::kScale;
      runs *= double(times > 0 ? times : 0);
    }
  if (runs <= double(kMostPlayRepeats))
    return;
  const Node &node = tree_.nodes[n];
  const Slot *count = tree_.slot(n, "count");
  diags_.report(DiagKind::PlayRepeatsTooMany, tree_.loc(node.file, count->begin),
                length(node.file, count->begin), kMostPlayRepeats);
}

// "rewind [to NAME]: puts the world back as it was at the save named, or the
// last save taken or rewound to": with none taken before it, there is no
// world to put back (readings 127). A save under a repeat above it counts.
void Checker::checkRewindHasSave(NodeId n) {
  std::function<bool(NodeId)> saves = [&](NodeId p) {
    if (tree_.nodes[p].kind == FormKind::PlaySave)
      return true;
    for (NodeId c = tree_.nodes[p].firstChild; c != kNone; c = tree_.nodes[c].nextSibling)
      if (saves(c))
        return true;
    return false;
  };
  for (NodeId at = n; tree_.nodes[at].kind != FormKind::Play; at = tree_.nodes[at].parent) {
    NodeId parent = tree_.nodes[at].parent;
    if (parent == kNone)
      break;
    for (NodeId c = tree_.nodes[parent].firstChild; c != at; c = tree_.nodes[c].nextSibling)
      if (saves(c))
        return;
  }
  const Node &node = tree_.nodes[n];
  diags_.report(DiagKind::RewindWithoutSave, tree_.loc(node.file, node.begin),
                length(node.file, node.begin));
}

// "link PLAYED LINK PLAYED | link LINK PLAYED": an actor's link, or a global
// link, which is one actor for the whole world and no actor's own; a make's
// with sets its actor's links.
void Checker::checkPlayLinks(NodeId n) {
  const Node &node = tree_.nodes[n];
  auto isGlobal = [&](std::string_view link) {
    const Decl *decl = decls_.find(Namespace::Shared, link);
    return decl && decl->kind == RefKind::Link && decl->node != kNone &&
           tree_.hasFlag(decl->node, "global");
  };
  if (node.kind == FormKind::PlayLink) {
    const Slot *link = tree_.slot(n, "link");
    if (!link)
      return;
    std::string_view name = text(node.file, link->begin);
    const Decl *decl = decls_.find(Namespace::Shared, name);
    if (!decl || decl->kind != RefKind::Link)
      return; // the name checks say it is no declared link
    bool global = isGlobal(name);
    bool ofActor = tree_.slot(n, "actor") != nullptr;
    if (global == ofActor)
      diags_.report(DiagKind::PlayLinkForm, tree_.loc(node.file, link->begin),
                    length(node.file, link->begin), name,
                    global ? "a global link: `link LINK PLAYED`"
                           : "an actor's link: `link PLAYED LINK PLAYED`");
    return;
  }
  for (const Slot *assign : tree_.slotsNamed(n, "assign")) {
    const Slot *name = tree_.slot(assign->value, "name");
    uint32_t file = tree_.nodes[assign->value].file;
    if (name && isGlobal(tree_.span(file, name->begin, name->end)))
      diags_.report(DiagKind::PlayLinkForm, tree_.loc(file, name->begin), length(file, name->begin),
                    text(file, name->begin), "a global link: `link LINK PLAYED`");
  }
}

// "catalog CATALOG: … a path from the play file's folder with no spaces in
// it … the file's first line": one path, said once.
void Checker::checkCatalogLine(NodeId n) {
  const Node &node = tree_.nodes[n];
  const Slot *path = tree_.slot(n, "path");
  if (path && tree_.span(node.file, path->begin, path->end).find(' ') != std::string_view::npos)
    diags_.report(DiagKind::CatalogPathSpaces, tree_.loc(node.file, path->begin),
                  length(node.file, path->begin));
  if (n != tree_.fileFirstNode[node.file])
    diags_.report(DiagKind::CatalogLineTwice, tree_.loc(node.file, node.begin),
                  length(node.file, node.begin));
}

// `row ID DEFS`: each an effect, an ability or an archetype of the catalog,
// with its kind before its name where the catalog gives that name to two.
void Checker::checkRowDefinitions(NodeId n) {
  const Slot *defs = tree_.slot(n, "defs");
  if (!defs)
    return;
  uint32_t file = tree_.nodes[n].file;
  std::string_view kindWord;
  for (uint32_t t = defs->begin; t < defs->end; ++t) {
    if (tree_.token(file, t).kind != TokenKind::Name)
      continue;
    std::string_view word = text(file, t);
    if (word == "effect" || word == "ability" || word == "archetype") {
      kindWord = word;
      continue;
    }
    bool effect = decls_.find(Namespace::Effect, word) != nullptr;
    bool ability = decls_.find(Namespace::Ability, word) != nullptr;
    bool archetype = decls_.find(Namespace::Archetype, word) != nullptr;
    bool found = kindWord.empty()        ? effect || ability || archetype
                 : kindWord == "effect"  ? effect
                 : kindWord == "ability" ? ability
                                         : archetype;
    if (!found)
      diags_.report(DiagKind::UndeclaredName, tree_.loc(file, t), length(file, t), word,
                    kindWord.empty() ? std::string("effect, ability or archetype")
                                     : std::string(kindWord));
    else if (kindWord.empty() && int(effect) + int(ability) + int(archetype) > 1)
      diags_.report(DiagKind::RowNameAmbiguous, tree_.loc(file, t), length(file, t), word);
    kindWord = {};
  }
}

} // namespace ledger::sema

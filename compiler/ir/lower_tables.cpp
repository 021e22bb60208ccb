// Lowering, the tables: every declared name a dense index, in catalog order
// after the language's built-ins, and each definition's clauses as records.
#include "ir/lowerer.h"

#include "number.h"
#include "pack_abi.h"
#include "sema/words.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace ledger::ir {

std::string Lowerer::slotText(NodeId n, std::string_view label) const {
  const Slot *s = tree_.slot(n, label);
  return s ? spanText(tree_.nodes[n].file, s->begin, s->end) : std::string();
}

uint32_t Lowerer::lineOf(NodeId n) const {
  const Node &node = tree_.nodes[n];
  Loc loc = tree_.loc(node.file, node.begin);
  return tree_.sources->lineCol(loc).line;
}

void Lowerer::notRunYet(NodeId n, const std::string &what) {
  const Node &node = tree_.nodes[n];
  const Token &tok = tree_.token(node.file, node.begin);
  diags_.report(DiagKind::NotRunYet, tree_.loc(node.file, node.begin), tok.end - tok.begin, what);
}

std::vector<std::string> Lowerer::listItems(NodeId n, std::string_view label) const {
  std::vector<std::string> items;
  const Node &node = tree_.nodes[n];
  for (const Slot *s : tree_.slotsNamed(n, label))
    tree_.eachItem(node.file, *s, true, [&](uint32_t b, uint32_t e) {
      items.push_back(spanText(node.file, b, e));
    });
  return items;
}

int64_t Lowerer::literal(NodeId n, std::string_view label) const {
  const Slot *s = tree_.slot(n, label);
  uint32_t file = tree_.nodes[n].file;
  const Token &first = tree_.token(file, s->begin);
  if (first.kind == TokenKind::Minus && s->end > s->begin + 1)
    return -tree_.token(file, s->begin + 1).value.raw;
  if (first.kind == TokenKind::Plus && s->end > s->begin + 1)
    return tree_.token(file, s->begin + 1).value.raw;
  return first.value.raw;
}

// A pool's period in world time: a number where its formula works out to
// one as it is lowered, else a body the drift reads as it goes.
void Lowerer::lowerPeriod(uint32_t file, const Slot &slot, uint32_t line, int64_t &period,
                          Id &body) {
  BodyScope scope;
  uint32_t slots = scope.nextSlot;
  scope.maxSlot = &slots;
  Lowered d = expr(file, slot.value, scope);
  if (t_.exprs[d.expr].op == pack::ExprOp::Const) {
    period = t_.exprs[d.expr].imm;
  } else {
    period = 0;
    body = formulaBodyOf(file, d.expr, slots, line);
  }
}

Id Lowerer::name(std::string_view text) {
  auto it = names_.find(text);
  if (it != names_.end())
    return it->second;
  Id id = Id(t_.names.size());
  t_.names.emplace_back(text);
  names_.emplace(std::string(text), id);
  return id;
}

Id Lowerer::tagId(std::string_view tag) { return find(tags_, tag); }

Id Lowerer::varIndex(std::string_view var, const BodyScope &scope) const {
  if (scope.effect == kNoId)
    return kNoId;
  const Effect &e = t_.effects[scope.effect];
  for (uint32_t v = 0; v < e.varCount; ++v)
    if (t_.names[t_.vars[e.varsBegin + v].name] == var)
      return v;
  return kNoId;
}

Id Lowerer::tagOrVar(NodeId n, std::string_view label, pack::Action &a, const BodyScope &scope) {
  if (!tree_.slot(n, "var"))
    return tagId(slotText(n, label));
  a.flags |= pack::kTagInVar;
  return varIndex(slotText(n, "var"), scope);
}

TagSet Lowerer::internSet(const std::vector<uint64_t> &bits) {
  auto [it, added] = sets_.emplace(bits, TagSet(sets_.size()));
  if (added)
    t_.tagBits.insert(t_.tagBits.end(), bits.begin(), bits.end());
  return it->second;
}

// closed: each tag with its ancestors, as an actor or an event carries it;
// open: the tags named alone, as a filter's having or unless asks for them.
TagSet Lowerer::tagSet(const std::vector<std::string> &list, bool closed) {
  std::vector<uint64_t> bits(t_.tagWords, 0);
  for (const std::string &n : list) {
    Id id = tagId(n);
    if (id == kNoId)
      continue;
    if (closed) {
      const uint64_t *c = t_.tagSet(t_.tags[id].closure);
      for (uint32_t w = 0; w < t_.tagWords; ++w)
        bits[w] |= c[w];
    } else {
      bits[id / 64] |= uint64_t(1) << (id % 64);
    }
  }
  return internSet(bits);
}

TagSet Lowerer::tagsOf(NodeId n, std::string_view label, bool closed) {
  return tagSet(listItems(n, label), closed);
}

static_assert(sema::kMostTags == LEDGER_EVENT_TAG_WORDS * 64);

void Lowerer::declareTags() {
  std::vector<std::string> order;
#define X(Name, Text) order.emplace_back(Text);
  LEDGER_BUILTIN_TAGS(X)
#undef X
  // Declared tags in the order the catalog declares them, parents first.
  std::vector<std::pair<std::pair<NodeId, uint32_t>, std::string>> declared;
  for (const auto &[n, decl] : decls_.byNamespace[size_t(Namespace::Tag)])
    declared.push_back({{decl.node, uint32_t(n.size())}, n});
  std::sort(declared.begin(), declared.end());
  // Declared names are told apart already: only a built-in one comes again.
  const std::unordered_set<std::string> builtIn(order.begin(), order.end());
  for (auto &[key, n] : declared)
    if (!builtIn.contains(n))
      order.push_back(n);
  t_.tagWords = uint32_t(std::max<size_t>((order.size() + 63) / 64, 1));
  internSet(std::vector<uint64_t>(t_.tagWords, 0)); // set 0: empty
  for (const std::string &n : order) {
    Tag tag;
    tag.name = name(n);
    size_t dot = n.rfind('.');
    if (dot != std::string::npos)
      tag.parent = tagId(n.substr(0, dot));
    Id id = Id(t_.tags.size());
    tags_.emplace(n, id);
    std::vector<uint64_t> bits(t_.tagWords, 0);
    bits[id / 64] |= uint64_t(1) << (id % 64);
    if (tag.parent != kNoId) {
      const uint64_t *p = t_.tagSet(t_.tags[tag.parent].closure);
      for (uint32_t w = 0; w < t_.tagWords; ++w)
        bits[w] |= p[w];
    }
    tag.closure = internSet(bits);
    t_.tags.push_back(tag);
  }
}

// Every other name, in the order the catalog declares them.
void Lowerer::declareNames() {
#define X(Name) events_.emplace(#Name, Id(t_.events.size())), t_.events.push_back({name(#Name), true});
  LEDGER_BUILTIN_EVENTS(X)
#undef X
  auto inOrder = [&](Namespace ns) {
    std::vector<std::pair<std::pair<NodeId, uint32_t>, std::pair<std::string, const Decl *>>> list;
    for (const auto &[n, decl] : decls_.byNamespace[size_t(ns)])
      list.push_back({{decl.node, decl.token}, {n, &decl}});
    std::sort(list.begin(), list.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    return list;
  };
  for (auto &[key, entry] : inOrder(Namespace::Shared)) {
    const auto &[n, decl] = entry;
    const Node &node = tree_.nodes[decl->node];
    switch (decl->kind) {
    case RefKind::Event:
      events_.emplace(n, Id(t_.events.size()));
      t_.events.push_back({name(n), false});
      break;
    case RefKind::Link:
      links_.emplace(n, Id(t_.links.size()));
      t_.links.push_back({name(n), tree_.hasFlag(decl->node, "global")});
      break;
    case RefKind::Stage:
      stages_.emplace(n, Id(t_.stages.size()));
      t_.stages.push_back(name(n));
      break;
    case RefKind::Category:
      categories_.emplace(n, Id(t_.categories.size()));
      t_.categories.push_back(name(n));
      break;
    case RefKind::Curve:
      curves_.emplace(n, Id(t_.curves.size()));
      t_.curves.push_back({name(n), tree_.hasFlag(decl->node, "steps"), 0, 0});
      break;
    case RefKind::Prop:
      props_.emplace(n, Id(t_.props.size()));
      t_.props.push_back({});
      t_.props.back().name = name(n);
      break;
    case RefKind::Table:
    case RefKind::Stream:
    case RefKind::Pile:
    case RefKind::Command:
    case RefKind::Fact:
      notRunYet(decl->node, std::string("`") + std::string(tree_.text(node.file, node.begin)) +
                                "` (" + refKindWithArticle(decl->kind) + ")");
      break;
    default:
      break;
    }
  }
  for (auto &[key, entry] : inOrder(Namespace::Value)) {
    const auto &[n, decl] = entry;
    values_.emplace(n, Id(t_.values.size()));
    Value v;
    v.name = name(n);
    v.kind = decl->kind == RefKind::Pool ? ValueKind::Pool : ValueKind::Stat;
    t_.values.push_back(v);
  }
  for (auto &[key, entry] : inOrder(Namespace::Effect)) {
    effects_.emplace(entry.first, Id(t_.effects.size()));
    t_.effects.push_back({});
    t_.effects.back().name = name(entry.first);
  }
  for (auto &[key, entry] : inOrder(Namespace::Ability)) {
    abilities_.emplace(entry.first, Id(t_.abilities.size()));
    t_.abilities.push_back({});
    t_.abilities.back().name = name(entry.first);
  }
  for (auto &[key, entry] : inOrder(Namespace::Archetype)) {
    archetypes_.emplace(entry.first, Id(t_.archetypes.size()));
    t_.archetypes.push_back({});
    t_.archetypes.back().name = name(entry.first);
  }
}

// The file-level lines: values' options, portions and the catalog's one-off
// lines (rate, time, allegiance, damage, turn).
void Lowerer::lowerValues() {
  for (uint32_t f = 0; f < tree_.files.size(); ++f) {
    if (tree_.roles[f] != FileRole::Catalog)
      continue;
    for (NodeId n = tree_.fileFirstNode[f]; n != kNone; n = tree_.nodes[n].nextSibling) {
      const Node &node = tree_.nodes[n];
      switch (node.kind) {
      case FormKind::Rate: {
        const Slot *ticks = tree_.slot(n, "ticks");
        const Slot *secs = tree_.slot(n, "seconds");
        // Whole ticks over whole seconds (the checker refuses others), in
        // lowest terms: a tick is M units, a second N.
        int64_t tk = tree_.token(node.file, ticks->begin).value.raw / Fixed::kScale;
        int64_t sc = secs ? tree_.token(node.file, secs->begin).value.raw / Fixed::kScale : 1;
        if (tk <= 0 || sc <= 0)
          break;
        int64_t common = std::gcd(tk, sc);
        t_.unitsPerTick = sc / common;
        t_.unitsPerSecond = tk / common * Fixed::kScale;
        break;
      }
      case FormKind::Time:
        t_.timeStat = valueId(slotText(n, "stat"));
        break;
      case FormKind::Allegiance:
        t_.allegiance = find(links_, slotText(n, "link"));
        break;
      case FormKind::Damage:
        t_.damagePool = valueId(slotText(n, "pool"));
        break;
      case FormKind::Turn:
        t_.turnEvent = find(events_, slotText(n, "event"));
        break;
      case FormKind::Portions:
        for (const std::string &p : listItems(n, "tags"))
          portions_.push_back(tagId(p));
        if (portions_.size() > pack::kMaxPortions)
          notRunYet(n, "more than " + std::to_string(pack::kMaxPortions) + " portion types");
        break;
      case FormKind::Tags:
        if (tree_.hasFlag(n, "carried"))
          for (const std::string &g : listItems(n, "tags"))
            if (Id id = tagId(g); id != kNoId)
              t_.tags[id].carried = true;
        break;
      case FormKind::Phases:
        notRunYet(n, "`phases`");
        break;
      default:
        break;
      }
    }
  }
  if (t_.damagePool == kNoId)
    t_.damagePool = valueId("Health");
  // A stat by type's members first (one for each portion's type, and one for
  // each parent of a type, Resist.Magic, whose terms move each child's): a
  // value written before the stat may name one in a bound or a regen.
  size_t declared = t_.values.size();
  for (Id id = 0; id < declared; ++id) {
    if (!tree_.hasFlag(decls_.find(Namespace::Value, t_.names[t_.values[id].name])->node, "by type"))
      continue;
    for (Id p : portions_)
      for (Id g = p; g != kNoId; g = t_.tags[g].parent) {
        std::string memberName = t_.names[t_.values[id].name] + "." + t_.names[t_.tags[g].name];
        if (values_.count(memberName))
          continue;
        Value m;
        m.kind = t_.values[id].kind;
        m.member = id;
        m.memberTag = g;
        m.name = name(memberName);
        values_.emplace(memberName, Id(t_.values.size()));
        t_.values.push_back(m);
      }
  }
  // Options, now that the rate turns durations into ticks.
  for (Id id = 0; id < declared; ++id) {
    const Decl *decl = decls_.find(Namespace::Value, t_.names[t_.values[id].name]);
    NodeId n = decl->node;
    Value &v = t_.values[id];
    BodyScope scope;
    uint32_t file = tree_.nodes[n].file;
    if (tree_.slot(n, "whole")) {
      std::string r = slotText(n, "rounding");
      v.whole = r == "floor" ? Rounding::Floor
                : r == "ceil" ? Rounding::Ceil
                : r == "trunc" ? Rounding::Trunc
                               : Rounding::Round;
    }
    if (const Slot *s = tree_.slot(n, "min"))
      t_.values[id].minBody = formulaBody(file, s->value, scope, lineOf(n));
    if (const Slot *s = tree_.slot(n, "max"))
      t_.values[id].maxBody = formulaBody(file, s->value, scope, lineOf(n));
    Value &w = t_.values[id];
    if (tree_.slot(n, "default"))
      w.defaultValue = literal(n, "default");
    else if (w.kind == ValueKind::Stat && Id(id) == t_.timeStat)
      w.defaultValue = Fixed::kScale; // a time's base is 1
    if (tree_.slot(n, "regen")) {
      w.regenStat = valueId(slotText(n, "regen"));
      w.regenPeriod = t_.unitsPerSecond;
      if (const Slot *per = tree_.slot(n, "per"))
        lowerPeriod(file, *per, lineOf(n), w.regenPeriod, w.regenPeriodBody);
    }
    if (tree_.slot(n, "refill")) {
      w.refillAmount = literal(n, "refill");
      lowerPeriod(file, *tree_.slot(n, "every"), lineOf(n), w.refillPeriod, w.refillPeriodBody);
    }
    std::string rise = slotText(n, "rise");
    w.rise = rise == "heal" ? Rise::Heal : Rise::Keep;
    w.kept = tree_.hasFlag(n, "kept");
    w.clockWorld = tree_.hasFlag(n, "clock world");
    w.byType = tree_.hasFlag(n, "by type");
  }
  // Each member reads as its stat does, options and all.
  for (Id m = Id(declared); m < t_.values.size(); ++m) {
    Value member = t_.values[t_.values[m].member];
    member.byType = false;
    member.member = t_.values[m].member;
    member.memberTag = t_.values[m].memberTag;
    member.name = t_.values[m].name;
    t_.values[m] = member;
  }
}

} // namespace ledger::ir

// The pack format as bytes: every table a count and its records, little
// endian as the machines we ship on are. Reading it back checks every index
// against the table it points into, so a damaged or foreign blob is refused
// whole, never half used.
#include "pack_format.h"
#include "pack_abi.h"
#include "pack_fields.h"

#include "bytes.h"

#include "random.h"

#include <cstring>
#include <tuple>
#include <type_traits>

namespace ledger::pack {


namespace {

constexpr char kMagic[8] = {'L', 'E', 'D', 'G', 'P', 'A', 'C', 'K'};
using bytes::Reader;
using bytes::Writer;

// Both directions walk the tables in one order.
template <typename IO, typename T> void walk(IO &io, T &t) {
  io.pod(t.version);
  io.pod(t.unitsPerTick);
  io.pod(t.unitsPerSecond);
  io.pod(t.timeStat);
  io.pod(t.allegiance);
  io.pod(t.damagePool);
  io.pod(t.turnEvent);
  io.strings(t.names);
  io.pod(t.tagWords);
  io.vec(t.tagBits);
  io.vec(t.tags);
  io.vec(t.events);
  io.vec(t.values);
  io.vec(t.links);
  io.vec(t.props);
  io.vec(t.stages);
  io.vec(t.categories);
  io.vec(t.curves);
  io.vec(t.curvePoints);
  io.vec(t.effects);
  io.vec(t.vars);
  io.vec(t.blocks);
  io.vec(t.linkOverrides);
  io.vec(t.modifiers);
  io.vec(t.rules);
  io.vec(t.abilities);
  io.vec(t.costs);
  io.vec(t.requirements);
  io.vec(t.archetypes);
  io.vec(t.archetypeValues);
  io.vec(t.idLists);
  io.vec(t.autos);
  io.vec(t.sortKeys);
  io.strings(t.files);
  io.vec(t.bodies);
  io.vec(t.exprs);
  io.vec(t.exprArgs);
  io.vec(t.folds);
  io.vec(t.reads);
  io.vec(t.queries);
  io.vec(t.steps);
  io.vec(t.actions);
}

// Index checks: each says which table an index failed, for the refusal.
struct Check {
  const Tables &t;
  std::string why;
  bool in(Id id, size_t size, const char *what, bool optional = true) {
    if ((optional && id == kNoId) || id < size)
      return true;
    if (why.empty())
      why = std::string("an index into ") + what + " points past its end";
    return false;
  }
  bool range(uint32_t begin, uint32_t count, size_t size, const char *what) {
    if (uint64_t(begin) + count <= size)
      return true;
    if (why.empty())
      why = std::string("a range of ") + what + " runs past its end";
    return false;
  }
  bool tagSet(TagSet set) { return in(set, t.tagBits.size() / std::max<uint32_t>(t.tagWords, 1), "tag sets", false); }
  bool body(Id id) { return in(id, t.bodies.size(), "bodies"); }
  void filter(const Filter &f) {
    in(f.event, t.events.size(), "events");
    in(f.tag, t.tags.size(), "tags");
    in(f.pool, t.values.size(), "values");
    tagSet(f.having);
    tagSet(f.unless);
    for (const WhoClause *w : {&f.of, &f.by, &f.credited, &f.targeting})
      body(w->body);
  }
  bool run() {
    if (t.tagWords == 0 || t.tagBits.size() % t.tagWords != 0 || t.tagBits.empty())
      why = "its tag sets are malformed";
    else if (t.tagWords > LEDGER_EVENT_TAG_WORDS || t.tags.size() > size_t(t.tagWords) * 64)
      why = "its tags are more than an event carries";
    for (const Tag &g : t.tags) {
      in(g.name, t.names.size(), "names", false);
      in(g.parent, t.tags.size(), "tags");
      tagSet(g.closure);
    }
    for (const Value &v : t.values) {
      in(v.member, t.values.size(), "values");
      in(v.memberTag, t.tags.size(), "tags");
      body(v.minBody);
      body(v.maxBody);
      in(v.regenStat, t.values.size(), "values");
      body(v.regenPeriodBody);
      body(v.refillPeriodBody);
    }
    for (const Prop &p : t.props) {
      in(p.under, t.tags.size(), "tags");
      tagSet(p.among);
    }
    for (const Curve &c : t.curves)
      range(c.pointsBegin, c.pointCount, t.curvePoints.size(), "curve points");
    for (const Effect &e : t.effects) {
      tagSet(e.tags);
      tagSet(e.exclusive);
      tagSet(e.suspendsExcept);
      range(e.varsBegin, e.varCount, t.vars.size(), "vars");
      range(e.grantsBegin, e.grantCount, t.idLists.size(), "lists");
      range(e.blocksBegin, e.blockCount, t.blocks.size(), "blocks");
      range(e.overridesBegin, e.overrideCount, t.linkOverrides.size(), "link overrides");
      range(e.modifiersBegin, e.modifierCount, t.modifiers.size(), "modifiers");
      range(e.rulesBegin, e.ruleCount, t.rules.size(), "rules");
      body(e.stack.maxBody);
      body(e.stack.strongerBody);
      body(e.lasts.timeBody);
      body(e.lasts.countBody);
      filter(e.lasts.countFilter);
      body(e.lasts.countMatchBody);
      in(e.clockStat, t.values.size(), "values");
      in(e.diesPool, t.values.size(), "values");
      in(e.diesEvent, t.events.size(), "events");
      in(e.fallsPool, t.values.size(), "values");
      in(e.fallsEvent, t.events.size(), "events");
      body(e.orderBody);
    }
    for (uint32_t i = 0; i < t.effects.size(); ++i)
      for (uint32_t g = 0; g < t.effects[i].grantCount; ++g)
        in(t.idLists[t.effects[i].grantsBegin + g], t.abilities.size(), "abilities", false);
    for (const AutoGrant &g : t.autos) {
      in(g.ability, t.abilities.size(), "abilities", false);
      range(g.keysBegin, g.keyCount, t.sortKeys.size(), "sort keys");
    }
    for (const SortKey &k : t.sortKeys) {
      in(k.tag, t.tags.size(), "tags");
      body(k.body);
    }
    for (const Effect &e : t.effects) {
      range(e.autosBegin, e.autoCount, t.autos.size(), "autos");
      range(e.grantVarsBegin, e.grantVarCount, t.idLists.size(), "lists");
      for (uint32_t g = 0; g < e.grantVarCount && e.grantVarsBegin + g < t.idLists.size(); ++g)
        in(t.idLists[e.grantVarsBegin + g], e.varCount, "an effect's vars", false);
    }
    for (const Archetype &a : t.archetypes)
      range(a.autosBegin, a.autoCount, t.autos.size(), "autos");
    for (const Var &v : t.vars)
      body(v.initBody);
    for (const Block &b : t.blocks) {
      in(b.event, t.events.size(), "events");
      tagSet(b.tags);
      tagSet(b.having);
      tagSet(b.unless);
      body(b.from.body);
    }
    for (const LinkOverride &o : t.linkOverrides) {
      in(o.link, t.links.size(), "links", false);
      body(o.actorBody);
    }
    for (const Modifier &m : t.modifiers) {
      in(m.stat, t.values.size(), "values", false);
      in(m.category, t.categories.size(), "categories");
      body(m.amountBody);
    }
    for (const Rule &r : t.rules) {
      in(r.owner, t.effects.size(), "effects");
      filter(r.filter);
      in(r.stage, t.stages.size(), "stages");
      body(r.whenBody);
      body(r.matchBody);
      body(r.steps);
      body(r.intervalBody);
      body(r.countBody);
      tagSet(r.having);
      tagSet(r.unless);
    }
    for (const Ability &a : t.abilities) {
      tagSet(a.tags);
      tagSet(a.targetHaving);
      tagSet(a.targetUnless);
      body(a.withinBody);
      range(a.takesBegin, a.takeCount, t.idLists.size(), "lists");
      range(a.listedBegin, a.listedCount, t.idLists.size(), "lists");
      for (uint32_t k = 0; k < a.listedCount && a.listedBegin + k < t.idLists.size(); ++k)
        in(t.idLists[a.listedBegin + k], t.tags.size(), "tags");
      range(a.requiresBegin, a.requireCount, t.requirements.size(), "requirements");
      range(a.costsBegin, a.costCount, t.costs.size(), "costs");
      in(a.cooldownEffect, t.effects.size(), "effects");
      body(a.steps);
    }
    for (const Cost &c : t.costs) {
      in(c.pool, t.values.size(), "values", false);
      body(c.amountBody);
      in(c.link, t.links.size(), "links");
    }
    for (const Requirement &r : t.requirements) {
      body(r.body);
      in(r.text, t.names.size(), "names");
    }
    for (const Archetype &a : t.archetypes) {
      tagSet(a.tags);
      range(a.basesBegin, a.baseCount, t.archetypeValues.size(), "archetype values");
      range(a.withBegin, a.withCount, t.archetypeValues.size(), "archetype values");
      range(a.hasBegin, a.hasCount, t.archetypeValues.size(), "archetype values");
      range(a.poolsBegin, a.poolCount, t.idLists.size(), "lists");
      range(a.fullBegin, a.fullCount, t.idLists.size(), "lists");
      range(a.grantsBegin, a.grantCount, t.idLists.size(), "lists");
      range(a.givesBegin, a.giveCount, t.idLists.size(), "lists");
    }
    for (const ArchetypeValue &v : t.archetypeValues) {
      body(v.body);
      in(v.link, t.links.size(), "links");
    }
    for (const Body &b : t.bodies) {
      if (b.kind == BodyKind::Formula)
        in(b.root, t.exprs.size(), "expressions", false);
      else if (b.stepsBegin > b.stepsEnd)
        why = "a body's steps are malformed";
      else
        range(b.stepsBegin, b.stepsEnd - b.stepsBegin, t.steps.size(), "steps");
    }
    for (const Expr &e : t.exprs) {
      in(e.a, t.exprs.size(), "expressions");
      in(e.b, t.exprs.size(), "expressions");
      in(e.c, t.exprs.size(), "expressions");
      range(e.argsBegin, e.argCount, t.exprArgs.size(), "arguments");
      if (e.op == ExprOp::Read)
        in(Id(e.imm), t.reads.size(), "reads", false);
      if (e.op == ExprOp::Fold)
        in(Id(e.imm), t.folds.size(), "folds", false);
    }
    for (uint32_t a : t.exprArgs)
      in(a, t.exprs.size(), "expressions", false);
    for (const Fold &f : t.folds) {
      in(f.query, t.queries.size(), "queries", false);
      in(f.item, t.exprs.size(), "expressions");
    }
    for (const Query &q : t.queries) {
      tagSet(q.having);
      tagSet(q.unless);
      body(q.whenBody);
      range(q.keysBegin, q.keyCount, t.sortKeys.size(), "sort keys");
      in(q.effect, t.effects.size(), "effects");
    }
    for (const Step &s : t.steps) {
      range(s.argsBegin, s.argCount, t.exprArgs.size(), "arguments");
      if (s.bodyBegin > s.bodyEnd || s.elseBegin > s.elseEnd)
        why = "a step's body is malformed";
      range(s.bodyBegin, s.bodyEnd - s.bodyBegin, t.steps.size(), "steps");
      range(s.elseBegin, s.elseEnd - s.elseBegin, t.steps.size(), "steps");
      if (s.op == StepOp::Action)
        in(s.info, t.actions.size(), "actions", false);
      if (s.op == StepOp::ForEach)
        in(s.info, t.queries.size(), "queries", false);
    }
    for (const Action &a : t.actions) {
      range(a.listBegin, a.listCount, t.idLists.size(), "lists");
      tagSet(a.tags);
      in(a.query, t.queries.size(), "queries");
    }
    return why.empty();
  }
};

} // namespace

std::string serialize(const Tables &tables) {
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  walk(w, const_cast<Tables &>(tables));
  return std::move(w.out);
}

bool deserialize(std::string_view blob, Tables &tables, std::string &why) {
  if (blob.size() < sizeof kMagic || std::memcmp(blob.data(), kMagic, sizeof kMagic) != 0) {
    why = "it is not a ledger pack's tables";
    return false;
  }
  Reader r{blob.substr(sizeof kMagic)};
  walk(r, tables);
  if (!r.ok || r.at != r.in.size()) {
    why = "its tables are cut short or run on";
    return false;
  }
  Check check{tables, {}};
  if (!check.run()) {
    why = check.why;
    return false;
  }
  return true;
}

uint64_t catalogHash(const Tables &tables) {
  Tables unnamed = tables;
  unnamed.files.clear();
  return hashBlob(serialize(unnamed));
}

// FNV-1a, 64 bits: the hash a stream's name is seeded by.
uint64_t hashBlob(std::string_view blob) { return rt::nameHash(blob); }

} // namespace ledger::pack

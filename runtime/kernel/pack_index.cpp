// What the kernel reads of a pack besides its tables, worked out once as
// the pack loads: every world of the pack shares it, and a save copies none
// of it.
#include "pack_index.h"

#include <algorithm>

namespace ledger::rt {

using pack::Id;
using pack::kNoId;

namespace {
// What a body reads: only its holder's own stats, its own instance's stacks
// and numbers (a stat reading these is cached by its holder's changes);
// besides those, counts of actors, which read only who is in play, their
// links and their tags (cached by those changing anywhere too); anything else
// of the world; or a var or a clock (never cached).
enum class Reads : uint8_t { Holder, Shape, World, Volatile };
Reads readsOf(const pack::Tables &t, Id expr) {
  const pack::Expr &e = t.exprs[expr];
  Reads r = Reads::Holder;
  auto worst = [](Reads a, Reads b) { return a > b ? a : b; };
  switch (e.op) {
  case pack::ExprOp::Var:
    return Reads::Volatile;
  case pack::ExprOp::Fold: {
    const pack::Fold &fold = t.folds[e.imm];
    const pack::Query &q = t.queries[fold.query];
    if (fold.item != kNoId || q.kind != pack::QueryKind::Search || q.whenBody != kNoId)
      return Reads::World;
    r = Reads::Shape; // and what its operands read
    break;
  }
  case pack::ExprOp::Read: {
    const pack::Read &rd = t.reads[e.imm];
    bool onHolder = e.argCount > 0 && t.exprs[t.exprArgs[e.argsBegin]].op == pack::ExprOp::Local &&
                    t.exprs[t.exprArgs[e.argsBegin]].imm == LEDGER_SLOT_HOLDER;
    if (rd.op == pack::ReadOp::Value || rd.op == pack::ReadOp::ValueExcept)
      r = onHolder && t.values[rd.a].kind == pack::ValueKind::Stat ? Reads::Holder : Reads::World;
    else if (rd.op == pack::ReadOp::Curve || rd.op == pack::ReadOp::ArchetypeStat)
      r = Reads::Holder;
    else if (rd.op == pack::ReadOp::InstanceField &&
             pack::InstanceField(rd.a) == pack::InstanceField::Stacks)
      r = Reads::Holder;
    else if (rd.op == pack::ReadOp::InstanceField)
      return Reads::Volatile; // remaining, elapsed: its clock runs
    else if (rd.op == pack::ReadOp::InstanceVar)
      return Reads::Volatile; // a var changes with no notice
    else
      r = Reads::World;
    break;
  }
  default:
    break;
  }
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId)
      r = worst(r, readsOf(t, k));
  for (uint32_t i = 0; i < e.argCount; ++i)
    r = worst(r, readsOf(t, t.exprArgs[e.argsBegin + i]));
  return r;
}

// Whether an expression is a number its content says, read with no actor:
// no local, var or fold, and no read but a curve's or an archetype's stat.
bool saysANumber(const pack::Tables &t, Id expr) {
  const pack::Expr &e = t.exprs[expr];
  switch (e.op) {
  case pack::ExprOp::Local:
  case pack::ExprOp::Var:
  case pack::ExprOp::Fold:
    return false;
  case pack::ExprOp::Read:
    if (t.reads[e.imm].op != pack::ReadOp::Curve && t.reads[e.imm].op != pack::ReadOp::ArchetypeStat)
      return false;
    break;
  default:
    break;
  }
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId && !saysANumber(t, k))
      return false;
  for (uint32_t i = 0; i < e.argCount; ++i)
    if (!saysANumber(t, t.exprArgs[e.argsBegin + i]))
      return false;
  return true;
}

// Whether an expression counts a query (or folds over one).
bool folds(const pack::Tables &t, Id expr) {
  const pack::Expr &e = t.exprs[expr];
  if (e.op == pack::ExprOp::Fold)
    return true;
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId && folds(t, k))
      return true;
  for (uint32_t i = 0; i < e.argCount; ++i)
    if (folds(t, t.exprArgs[e.argsBegin + i]))
      return true;
  return false;
}

// Whether an expression reads a frame's slot.
bool readsSlot(const pack::Tables &t, Id expr, int64_t slot) {
  const pack::Expr &e = t.exprs[expr];
  if (e.op == pack::ExprOp::Local && e.imm == slot)
    return true;
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId && readsSlot(t, k, slot))
      return true;
  for (uint32_t i = 0; i < e.argCount; ++i)
    if (readsSlot(t, t.exprArgs[e.argsBegin + i], slot))
      return true;
  return false;
}

// The values an expression reads.
void valuesRead(const pack::Tables &t, Id expr, std::vector<Id> &out) {
  const pack::Expr &e = t.exprs[expr];
  if (e.op == pack::ExprOp::Read && (t.reads[e.imm].op == pack::ReadOp::Value ||
                                     t.reads[e.imm].op == pack::ReadOp::ValueExcept))
    out.push_back(t.reads[e.imm].a);
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId)
      valuesRead(t, k, out);
  for (uint32_t i = 0; i < e.argCount; ++i)
    valuesRead(t, t.exprArgs[e.argsBegin + i], out);
}

// Whether a body reads any value at all.
bool readsValues(const pack::Tables &t, Id body) {
  if (body == kNoId || t.bodies[body].kind != pack::BodyKind::Formula)
    return false;
  std::vector<Id> stack{t.bodies[body].root};
  while (!stack.empty()) {
    const pack::Expr &e = t.exprs[stack.back()];
    stack.pop_back();
    if (e.op == pack::ExprOp::Read && t.reads[e.imm].op == pack::ReadOp::Value)
      return true;
    for (Id k : {e.a, e.b, e.c})
      if (k != kNoId)
        stack.push_back(k);
    for (uint32_t i = 0; i < e.argCount; ++i)
      stack.push_back(t.exprArgs[e.argsBegin + i]);
  }
  return false;
}

// Whether a pool's period formula reads more than its holder's stats kept
// by its holder's own changes: its drift is then read as moments end.
bool periodReadsWorld(const pack::Tables &t, const PackIndex &ix, Id body) {
  if (body == kNoId || t.bodies[body].kind != pack::BodyKind::Formula)
    return false;
  if (readsOf(t, t.bodies[body].root) != Reads::Holder)
    return true;
  std::vector<Id> read;
  valuesRead(t, t.bodies[body].root, read);
  for (Id v : read)
    if (v < ix.valueCount && ix.statCache[v] != PackIndex::StatCache::Holder)
      return true;
  return false;
}

// What a pool settling as moments end reads, walked through the stats of
// its holder's it reads (their bases, bounds and terms) to the end.
class ReachWalk {
public:
  ReachWalk(const pack::Tables &t, const PackIndex &ix, const std::vector<std::vector<Id>> &bodies)
      : t_(t), ix_(ix), bodies_(bodies), seen_(ix.valueCount, 0) {}

  PackIndex::Reach of(Id pool) {
    reach_ = {};
    std::fill(seen_.begin(), seen_.end(), 0);
    seen_[pool] = 1;
    walkBodies(pool);
    if (t_.values[pool].regenStat != kNoId)
      holderValue(t_.values[pool].regenStat);
    return reach_;
  }
  PackIndex::Reach ofValue(Id value) {
    reach_ = {};
    std::fill(seen_.begin(), seen_.end(), 0);
    holderValue(value);
    return reach_;
  }

private:
  void walkBodies(Id v) {
    for (Id b : bodies_[v])
      if (b != kNoId && t_.bodies[b].kind == pack::BodyKind::Formula)
        expr(t_.bodies[b].root);
  }
  // A pool moves only as a change lands on it, which touches its holder,
  // unless it drifts, or is kept through a rewind.
  bool movesUntouched(Id pool) const { return t_.values[pool].drifts() || t_.values[pool].kept; }
  // A stat of the holder's follows what it reads; a pool, its changes and
  // the bounds it is kept within.
  void holderValue(Id v) {
    if (t_.values[v].kind == pack::ValueKind::Pool && movesUntouched(v))
      reach_.everything = true;
    if (seen_[v])
      return;
    seen_[v] = 1;
    walkBodies(v);
  }
  // Another actor's value: one following only that actor's own values is
  // read again when that actor changes; one counting actors also when who
  // is in play does. What that one reads beyond itself isn't followed.
  void otherValue(Id v) {
    if (nested_) {
      reach_.everything = true;
      return;
    }
    ReachWalk inner(t_, ix_, bodies_);
    inner.nested_ = true;
    PackIndex::Reach r = inner.ofValue(v);
    reach_.everything |= r.everything || r.sources || !r.links.empty() || !r.globals.empty();
    reach_.counts |= r.counts;
  }
  bool isLocal(Id expr, int64_t slot) const {
    return t_.exprs[expr].op == pack::ExprOp::Local && t_.exprs[expr].imm == slot;
  }
  // An actor read: the holder, one through a holder's link or a global
  // link; kNoId for any other.
  enum class Who { Holder, Link, Global, Source, Other };
  Who whoIs(Id expr, Id &link) const {
    if (isLocal(expr, LEDGER_SLOT_HOLDER))
      return Who::Holder;
    // In a term, its instance's source; in a base or a bound, no one.
    if (isLocal(expr, LEDGER_SLOT_SOURCE))
      return Who::Source;
    const pack::Expr &e = t_.exprs[expr];
    if (e.op != pack::ExprOp::Read)
      return Who::Other;
    const pack::Read &rd = t_.reads[e.imm];
    link = rd.a;
    if (rd.op == pack::ReadOp::GlobalLink)
      return Who::Global;
    if (rd.op == pack::ReadOp::Link && e.argCount == 1 &&
        isLocal(t_.exprArgs[e.argsBegin], LEDGER_SLOT_HOLDER))
      return Who::Link;
    return Who::Other;
  }
  void addLink(Who who, Id link) {
    std::vector<Id> &list = who == Who::Global ? reach_.globals : reach_.links;
    if (std::find(list.begin(), list.end(), link) == list.end())
      list.push_back(link);
  }
  void expr(Id x) {
    const pack::Expr &e = t_.exprs[x];
    switch (e.op) {
    case pack::ExprOp::Var:
      reach_.everything = true;
      return;
    case pack::ExprOp::Local:
      // Its holder; in a term, its own instance (whose stacks move with a
      // change to the holder).
      if (e.imm != LEDGER_SLOT_HOLDER && e.imm != LEDGER_SLOT_SELF)
        reach_.everything = true;
      return;
    case pack::ExprOp::Fold: {
      const pack::Fold &fold = t_.folds[e.imm];
      const pack::Query &q = t_.queries[fold.query];
      if (fold.item != kNoId || q.kind != pack::QueryKind::Search || q.whenBody != kNoId) {
        reach_.everything = true;
        return;
      }
      reach_.counts = true;
      break;
    }
    case pack::ExprOp::Read: {
      const pack::Read &rd = t_.reads[e.imm];
      switch (rd.op) {
      case pack::ReadOp::Value:
      case pack::ReadOp::ValueExcept: {
        Id link = kNoId;
        Who who = e.argCount == 1 ? whoIs(t_.exprArgs[e.argsBegin], link) : Who::Other;
        if (who == Who::Holder) {
          holderValue(rd.a);
        } else if (who == Who::Other) {
          reach_.everything = true;
        } else {
          if (who == Who::Source)
            reach_.sources = true;
          else
            addLink(who, link);
          otherValue(rd.a);
        }
        return;
      }
      case pack::ReadOp::Link:
      case pack::ReadOp::GlobalLink: {
        Id link = kNoId;
        Who who = whoIs(x, link);
        if (who == Who::Other || who == Who::Source)
          reach_.everything = true;
        else
          addLink(who, link);
        return;
      }
      case pack::ReadOp::Curve:
      case pack::ReadOp::ArchetypeStat:
        break;
      case pack::ReadOp::InstanceField:
        if (pack::InstanceField(rd.a) == pack::InstanceField::Stacks)
          break;
        reach_.everything = true;
        return;
      default:
        reach_.everything = true;
        return;
      }
      break;
    }
    default:
      break;
    }
    for (Id k : {e.a, e.b, e.c})
      if (k != kNoId)
        expr(k);
    for (uint32_t i = 0; i < e.argCount; ++i)
      expr(t_.exprArgs[e.argsBegin + i]);
  }

  const pack::Tables &t_;
  const PackIndex &ix_;
  const std::vector<std::vector<Id>> &bodies_;
  std::vector<uint8_t> seen_;
  PackIndex::Reach reach_;
  bool nested_ = false; // walking another actor's stat: one step only
};

// The bodies each value reads through: its bounds, every archetype's base
// of it, and the terms of every effect moving it (a member's, its type's).
std::vector<std::vector<Id>> valueBodies(const pack::Tables &t, const PackIndex &ix) {
  std::vector<std::vector<Id>> bodies(ix.valueCount);
  for (Id v = 0; v < ix.valueCount; ++v)
    bodies[v] = {t.values[v].minBody, t.values[v].maxBody, t.values[v].regenPeriodBody,
                 t.values[v].refillPeriodBody};
  for (const pack::ArchetypeValue &av : t.archetypeValues)
    if (av.value != kNoId && av.value < ix.valueCount)
      bodies[av.value].push_back(av.body);
  for (const pack::Modifier &m : t.modifiers)
    if (!m.captured)
      for (Id v = 0; v < ix.valueCount; ++v)
        if (std::find(ix.covers[v].begin(), ix.covers[v].end(), m.stat) != ix.covers[v].end())
          bodies[v].push_back(m.amountBody);
  return bodies;
}

// Whether an expression reads what moves with time alone: a value marked
// so, or an instance's remaining or elapsed time.
bool readsTime(const pack::Tables &t, Id expr, const std::vector<uint8_t> &moves) {
  const pack::Expr &e = t.exprs[expr];
  if (e.op == pack::ExprOp::Read) {
    const pack::Read &rd = t.reads[e.imm];
    if ((rd.op == pack::ReadOp::Value || rd.op == pack::ReadOp::ValueExcept) && rd.a < moves.size() &&
        moves[rd.a])
      return true;
    if (rd.op == pack::ReadOp::InstanceField &&
        (pack::InstanceField(rd.a) == pack::InstanceField::Remaining ||
         pack::InstanceField(rd.a) == pack::InstanceField::Elapsed))
      return true;
  }
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId && readsTime(t, k, moves))
      return true;
  for (uint32_t i = 0; i < e.argCount; ++i)
    if (readsTime(t, t.exprArgs[e.argsBegin + i], moves))
      return true;
  return false;
}

// Whether a requirement reads only its caster's and its target's own values
// (a value kept by its holder's own changes), effects and tags, numbers and
// curves, or those of an actor a link of the caster's or a global link
// names (each such link into `links`): what only a change to one of those
// moves.
bool readsCasterAndTarget(const pack::Tables &t, const PackIndex &ix, Id expr,
                          std::vector<Id> &links) {
  const pack::Expr &e = t.exprs[expr];
  auto isRole = [&](Id x) {
    const pack::Expr &r = t.exprs[x];
    if (r.op == pack::ExprOp::Local)
      return r.imm == LEDGER_SLOT_HOLDER || r.imm == LEDGER_SLOT_TARGET;
    if (r.op != pack::ExprOp::Read)
      return false;
    const pack::Read &rd = t.reads[r.imm];
    bool caster = rd.op == pack::ReadOp::GlobalLink ||
                  (rd.op == pack::ReadOp::Link && r.argCount == 1 &&
                   t.exprs[t.exprArgs[r.argsBegin]].op == pack::ExprOp::Local &&
                   t.exprs[t.exprArgs[r.argsBegin]].imm == LEDGER_SLOT_HOLDER);
    if (caster)
      links.push_back(rd.a);
    return caster;
  };
  if (isRole(expr))
    return true;
  switch (e.op) {
  case pack::ExprOp::Var:
  case pack::ExprOp::Fold:
    return false;
  case pack::ExprOp::Local:
    return e.imm == LEDGER_SLOT_HOLDER || e.imm == LEDGER_SLOT_TARGET;
  case pack::ExprOp::Read: {
    const pack::Read &rd = t.reads[e.imm];
    switch (rd.op) {
    case pack::ReadOp::Value:
    case pack::ReadOp::ValueExcept:
      return e.argCount == 1 && isRole(t.exprArgs[e.argsBegin]) &&
             ix.statCache[rd.a] == PackIndex::StatCache::Holder && !ix.movesWithTime[rd.a];
    case pack::ReadOp::Has:
    case pack::ReadOp::Stacks:
    case pack::ReadOp::HighestStacks:
    case pack::ReadOp::CountEffect:
    case pack::ReadOp::CountTag:
      if (e.argCount < 1 || !isRole(t.exprArgs[e.argsBegin]))
        return false;
      break;
    case pack::ReadOp::Curve:
    case pack::ReadOp::ArchetypeStat:
      break;
    default:
      return false;
    }
    break;
  }
  default:
    break;
  }
  for (Id k : {e.a, e.b, e.c})
    if (k != kNoId && !readsCasterAndTarget(t, ix, k, links))
      return false;
  for (uint32_t i = 0; i < e.argCount; ++i)
    if (!readsCasterAndTarget(t, ix, t.exprArgs[e.argsBegin + i], links))
      return false;
  return true;
}

bool bodyReadsTime(const pack::Tables &t, Id body, const std::vector<uint8_t> &moves) {
  return body != kNoId && t.bodies[body].kind == pack::BodyKind::Formula &&
         readsTime(t, t.bodies[body].root, moves);
}

// What moves between moments, with time alone: a drifting pool, and a value
// whose bounds, base or terms read one (or an instance's time), followed to
// the end; then the abilities whose requirements or prices read such a
// thing, which an auto they refused tries again each tick, and those whose
// requirements wait on their caster, their target and the actors the
// caster's links name alone.
void findTimedChecks(const pack::Tables &t, PackIndex &ix,
                     const std::vector<std::vector<Id>> &bodies) {
  std::vector<uint8_t> &moves = ix.movesWithTime;
  moves.assign(ix.valueCount, 0);
  for (Id v = 0; v < ix.valueCount; ++v)
    moves[v] = t.values[v].drifts();
  for (bool grew = true; grew;) {
    grew = false;
    for (Id v = 0; v < ix.valueCount; ++v)
      if (!moves[v])
        for (Id b : bodies[v])
          if (bodyReadsTime(t, b, moves)) {
            moves[v] = grew = true;
            break;
          }
  }
  ix.checkReadsTime.assign(t.abilities.size(), 0);
  ix.requirementsWait.assign(t.abilities.size(), 0);
  ix.costsWait.assign(t.abilities.size(), 0);
  ix.waitLinksBegin.assign(t.abilities.size() + 1, 0);
  for (Id a = 0; a < t.abilities.size(); ++a) {
    const pack::Ability &ab = t.abilities[a];
    for (uint32_t r = 0; r < ab.requireCount; ++r)
      ix.checkReadsTime[a] |= bodyReadsTime(t, t.requirements[ab.requiresBegin + r].body, moves);
    for (uint32_t c = 0; c < ab.costCount; ++c)
      ix.checkReadsTime[a] |= bodyReadsTime(t, t.costs[ab.costsBegin + c].amountBody, moves);
    auto waitsOn = [&](Id body, std::vector<Id> &links) {
      return body != kNoId && t.bodies[body].kind == pack::BodyKind::Formula &&
             readsCasterAndTarget(t, ix, t.bodies[body].root, links);
    };
    std::vector<Id> links, costLinks;
    bool waits = !ix.checkReadsTime[a];
    for (uint32_t r = 0; r < ab.requireCount && waits; ++r)
      waits = waitsOn(t.requirements[ab.requiresBegin + r].body, links);
    bool costs = !ix.checkReadsTime[a];
    for (uint32_t c = 0; c < ab.costCount && costs; ++c) {
      const pack::Cost &cost = t.costs[ab.costsBegin + c];
      costs = waitsOn(cost.amountBody, costLinks);
      if (cost.link != kNoId)
        costLinks.push_back(cost.link);
    }
    ix.requirementsWait[a] = waits;
    ix.costsWait[a] = costs;
    if (!waits)
      links.clear();
    if (costs)
      links.insert(links.end(), costLinks.begin(), costLinks.end());
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    ix.waitLinks.insert(ix.waitLinks.end(), links.begin(), links.end());
    ix.waitLinksBegin[a + 1] = uint32_t(ix.waitLinks.size());
  }
}

// Each stat's cache, from what its base, bounds and terms read. Where any
// stat is cached by the world, a stat reading stats is too: a stat of its
// holder's may read one that reads the world.
void classifyStats(const pack::Tables &t, PackIndex &ix,
                   const std::vector<std::vector<Id>> &bodies) {
  std::vector<Reads> reads(ix.valueCount, Reads::Holder);
  Reads most = Reads::Holder;
  for (Id v = 0; v < ix.valueCount; ++v) {
    for (Id b : bodies[v])
      if (b != kNoId && t.bodies[b].kind == pack::BodyKind::Formula)
        reads[v] = std::max(reads[v], readsOf(t, t.bodies[b].root));
    most = std::max(most, reads[v]);
  }
  // A stat reading its holder's stats may read one that counts (Shape) or
  // reads the world: it is cached as the most any stat is.
  Reads readers = most == Reads::Shape ? Reads::Shape : Reads::World;
  if (most != Reads::Holder)
    for (Id v = 0; v < ix.valueCount; ++v)
      if (reads[v] < readers)
        for (Id b : bodies[v])
          if (readsValues(t, b))
            reads[v] = readers;
  ix.statCache.resize(ix.valueCount);
  for (Id v = 0; v < ix.valueCount; ++v)
    ix.statCache[v] = reads[v] == Reads::Holder  ? PackIndex::StatCache::Holder
                      : reads[v] == Reads::Shape ? PackIndex::StatCache::Shape
                      : reads[v] == Reads::World ? PackIndex::StatCache::World
                                                 : PackIndex::StatCache::Never;
  for (Id v = 0; v < ix.valueCount; ++v) {
    const pack::Value &value = t.values[v];
    if (value.kind != pack::ValueKind::Pool)
      continue;
    ix.poolsReadWorld |= ix.statCache[v] != PackIndex::StatCache::Holder;
    if (value.drifts())
      ix.driftingPools.push_back(v);
    if ((value.regenStat != kNoId &&
         ix.statCache[value.regenStat] != PackIndex::StatCache::Holder) ||
        periodReadsWorld(t, ix, value.regenPeriodBody) ||
        periodReadsWorld(t, ix, value.refillPeriodBody)) {
      ix.poolsReadWorld = true;
      ix.worldDrifts.push_back(v);
    }
  }
  ix.driftReadsWorld.assign(ix.valueCount, 0);
  for (Id v : ix.worldDrifts)
    ix.driftReadsWorld[v] = 1;
  // Which values count a query, in a body of their own (a pool's bounds; a
  // stat's base and terms) or of a value they read, followed until nothing
  // more is found.
  std::vector<uint8_t> counts(ix.valueCount, 0);
  std::vector<std::vector<Id>> readList(ix.valueCount);
  for (Id v = 0; v < ix.valueCount; ++v) {
    bool pool = t.values[v].kind == pack::ValueKind::Pool;
    for (Id b : pool ? std::vector<Id>{t.values[v].minBody, t.values[v].maxBody} : bodies[v])
      if (b != kNoId && t.bodies[b].kind == pack::BodyKind::Formula) {
        counts[v] |= folds(t, t.bodies[b].root);
        valuesRead(t, t.bodies[b].root, readList[v]);
      }
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (Id v = 0; v < ix.valueCount; ++v)
      for (Id u : readList[v])
        if (!counts[v] && u < ix.valueCount && counts[u])
          counts[v] = grew = true;
  }
  ix.boundsReadCount.assign(ix.valueCount, 0);
  for (Id v = 0; v < ix.valueCount; ++v)
    if (t.values[v].kind == pack::ValueKind::Pool && counts[v]) {
      ix.countBounds.push_back(v);
      ix.boundsReadCount[v] = 1;
    }
  // Pools whose bounds read another actor through a link, what they read
  // followed as the readers above follow theirs.
  ReachWalk walk(t, ix, bodies);
  ix.readerPools = ix.worldDrifts;
  for (Id p : ix.countBounds)
    if (!ix.driftReadsWorld[p])
      ix.readerPools.push_back(p);
  std::vector<PackIndex::Reach> reach(ix.valueCount);
  for (Id v = 0; v < ix.valueCount; ++v) {
    const pack::Value &value = t.values[v];
    bool listed = std::find(ix.readerPools.begin(), ix.readerPools.end(), v) != ix.readerPools.end();
    if (value.kind != pack::ValueKind::Pool || (!listed && value.minBody == kNoId && value.maxBody == kNoId))
      continue;
    reach[v] = walk.of(v);
    if (!listed && !reach[v].everything && !reach[v].counts &&
        (!reach[v].links.empty() || !reach[v].globals.empty() || reach[v].sources)) {
      ix.readerPools.push_back(v);
      ix.linkBounds.push_back(v);
    }
  }
  // The clocks' stats, read with their holder in hand.
  auto addLinks = [](const std::vector<Id> &from, std::vector<Id> &to) {
    for (Id l : from)
      if (std::find(to.begin(), to.end(), l) == to.end())
        to.push_back(l);
  };
  for (Id c : ix.clockStats)
    if (ix.statCache[c] != PackIndex::StatCache::Holder) {
      PackIndex::Reach r = walk.ofValue(c);
      ix.clockReach.everything |= r.everything;
      ix.clockReach.counts |= r.counts;
      ix.clockReach.sources |= r.sources;
      addLinks(r.links, ix.clockReach.links);
      addLinks(r.globals, ix.clockReach.globals);
    }
  addLinks(ix.clockReach.links, ix.readerLinks);
  if (ix.readerPools.empty())
    return;
  ix.reach.resize(ix.valueCount);
  ix.boundsReadLink.assign(ix.valueCount, 0);
  for (Id p : ix.linkBounds)
    ix.boundsReadLink[p] = 1;
  for (Id p : ix.readerPools) {
    PackIndex::Reach &r = ix.reach[p] = std::move(reach[p]);
    ix.readersEverything |= r.everything;
    ix.readersCount |= r.counts;
    ix.readersSources |= r.sources;
    addLinks(r.links, ix.readerLinks);
    addLinks(r.globals, ix.readerGlobals);
  }
}

void findPlainBodies(const pack::Tables &t, PackIndex &ix) {
  ix.plain.assign(t.bodies.size(), PackIndex::Plain{});
  for (Id b = 0; b < t.bodies.size(); ++b) {
    const pack::Body &body = t.bodies[b];
    if (body.kind != pack::BodyKind::Formula)
      continue;
    const pack::Expr &root = t.exprs[body.root];
    if (root.op == pack::ExprOp::Const) {
      ix.plain[b] = {PackIndex::Plain::Number, kNoId, root.imm};
      continue;
    }
    if (root.op != pack::ExprOp::Read || root.argCount != 1)
      continue;
    const pack::Read &read = t.reads[root.imm];
    const pack::Expr &who = t.exprs[t.exprArgs[root.argsBegin]];
    if (read.op == pack::ReadOp::Value && who.op == pack::ExprOp::Local &&
        who.imm == LEDGER_SLOT_HOLDER && t.values[read.a].kind == pack::ValueKind::Stat &&
        !t.values[read.a].byType)
      ix.plain[b] = {PackIndex::Plain::HolderStat, read.a, 0};
  }
}
} // namespace

PackIndex indexPack(const pack::Tables &t) {
  PackIndex ix;
  ix.valueCount = uint32_t(t.values.size());
  for (const pack::Effect &e : t.effects)
    ix.mostVars = std::max<size_t>(ix.mostVars, e.varCount);
  if (t.timeStat != kNoId)
    ix.clockStats.push_back(t.timeStat);
  for (const pack::Effect &e : t.effects)
    if (e.clock == pack::ClockKind::Stat && e.clockStat != kNoId &&
        std::find(ix.clockStats.begin(), ix.clockStats.end(), e.clockStat) == ix.clockStats.end())
      ix.clockStats.push_back(e.clockStat);
  ix.members.resize(ix.valueCount);
  for (Id v = 0; v < ix.valueCount; ++v)
    if (t.values[v].member != kNoId)
      ix.members[t.values[v].member].push_back(v);
  ix.archetypeBase.assign(t.archetypes.size() * ix.valueCount, kNoId);
  ix.archetypeBaseSaid.assign(t.archetypeValues.size(), 0);
  for (pack::Id a = 0; a < t.archetypes.size(); ++a) {
    const pack::Archetype &arch = t.archetypes[a];
    for (uint32_t b = 0; b < arch.baseCount; ++b) {
      const pack::ArchetypeValue &v = t.archetypeValues[arch.basesBegin + b];
      ix.archetypeBase[size_t(a) * ix.valueCount + v.value] = v.body;
      ix.archetypeBaseSaid[b + arch.basesBegin] = v.body != kNoId &&
                                                   t.bodies[v.body].kind == pack::BodyKind::Formula &&
                                                   saysANumber(t, t.bodies[v.body].root);
    }
  }
  // A member of a stat by type is moved by its own terms, its type's
  // parents' (Resist.Magic) and the stat's (Resist), nearest first.
  ix.covers.resize(ix.valueCount);
  for (Id v = 0; v < ix.valueCount; ++v) {
    ix.covers[v].push_back(v);
    const pack::Value &value = t.values[v];
    if (value.member == kNoId)
      continue;
    for (Id g = t.tags[value.memberTag].parent; g != kNoId; g = t.tags[g].parent)
      for (Id w = 0; w < ix.valueCount; ++w)
        if (t.values[w].member == value.member && t.values[w].memberTag == g)
          ix.covers[v].push_back(w);
    ix.covers[v].push_back(value.member);
  }
  std::vector<std::vector<Id>> bodies = valueBodies(t, ix);
  classifyStats(t, ix, bodies);
  findTimedChecks(t, ix, bodies);
  for (Id c : ix.clockStats)
    ix.clocksReadWorld |= ix.statCache[c] != PackIndex::StatCache::Holder;
  findPlainBodies(t, ix);
  ix.inert.resize(t.effects.size());
  for (Id e = 0; e < t.effects.size(); ++e) {
    const pack::Effect &ef = t.effects[e];
    ix.inert[e] = ef.modifierCount == 0 && !ef.suspendsAll && ef.overrideCount == 0;
  }
  ix.blocksByVar.assign(t.effects.size(), 0);
  for (Id e = 0; e < t.effects.size(); ++e)
    for (uint32_t b = 0; b < t.effects[e].blockCount; ++b)
      ix.blocksByVar[e] |= t.blocks[t.effects[e].blocksBegin + b].havingVar != kNoId;
  ix.termsReadSource.assign(t.effects.size(), 0);
  for (Id e = 0; e < t.effects.size(); ++e) {
    const pack::Effect &ef = t.effects[e];
    for (uint32_t m = 0; m < ef.modifierCount; ++m) {
      const pack::Modifier &mod = t.modifiers[ef.modifiersBegin + m];
      if (!mod.captured && mod.amountBody != kNoId &&
          t.bodies[mod.amountBody].kind == pack::BodyKind::Formula &&
          readsSlot(t, t.bodies[mod.amountBody].root, LEDGER_SLOT_SOURCE))
        ix.termsReadSource[e] = 1;
    }
  }
  ix.shapesCounts.resize(t.effects.size());
  for (Id e = 0; e < t.effects.size(); ++e) {
    const pack::Effect &ef = t.effects[e];
    ix.shapesCounts[e] = ef.tags != 0 || ef.suspendsAll || ef.overrideCount != 0;
  }
  // Effects with a rule hearing more than its holder's own events are
  // heard on every event; the rest only on their holder's.
  ix.wideEffect.assign(t.effects.size(), 0);
  ix.hears.assign(t.effects.size(), 0);
  ix.eventCount = uint32_t(t.events.size());
  ix.heardKinds.assign(t.effects.size() * 2 * ix.eventCount, 0);
  ix.kindHeard.assign(2 * ix.eventCount, 0);
  ix.tagWords = t.tagWords;
  ix.carriedTags.assign(t.tagWords, 0);
  for (Id g = 0; g < t.tags.size(); ++g)
    if (t.tags[g].carried) {
      ix.carriedTags[g / 64] |= uint64_t(1) << (g % 64);
      ix.anyCarried = true;
    }
  ix.heardTags.assign(t.effects.size() * 2 * t.tagWords, 0);
  ix.heardTagRoles.assign(t.effects.size() * 2, 0);
  ix.tagsHeard.assign(2 * t.tagWords, 0);
  for (pack::Id e = 0; e < t.effects.size(); ++e) {
    const pack::Effect &ef = t.effects[e];
    for (uint32_t r = 0; r < ef.ruleCount; ++r) {
      const pack::Filter &f = t.rules[ef.rulesBegin + r].filter;
      for (const pack::WhoClause *w : {&f.of, &f.by, &f.credited})
        if (w->who != pack::Who::Unsaid && w->who != pack::Who::Holder)
          ix.wideEffect[e] = 1;
      // Whom the activation named needn't stand in the event at all.
      if (f.targeting.who != pack::Who::Unsaid)
        ix.wideEffect[e] = 1;
    }
    for (uint32_t r = 0; r < ef.ruleCount; ++r) {
      const pack::Rule &rule = t.rules[ef.rulesBegin + r];
      const pack::Filter &f = rule.filter;
      if (rule.kind == pack::RuleKind::Before &&
          (f.any || f.event == Id(pack::BuiltinEvent::Change) ||
           f.tag == Id(pack::BuiltinTag::Cost)))
        ix.costHeard = true;
      pack::RuleKind k = rule.kind;
      bool before = k == pack::RuleKind::Before;
      bool after =
          k == pack::RuleKind::After || k == pack::RuleKind::EndsOn || k == pack::RuleKind::Each;
      ix.hears[e] |= before || after;
      if (!before && !after)
        continue;
      // Where its holder must stand in the event: `of holder` its subject,
      // `by holder` its source, `credited holder` its credit; else anywhere.
      uint8_t roles = f.of.who == pack::Who::Holder         ? PackIndex::kSubject
                      : f.by.who == pack::Who::Holder       ? PackIndex::kSource
                      : f.credited.who == pack::Who::Holder ? PackIndex::kCredit
                                                            : PackIndex::kAnyRole;
      size_t phase = before ? 0 : 1;
      if (!f.any && f.event == kNoId && f.tag != kNoId) {
        ix.heardTags[(size_t(e) * 2 + phase) * t.tagWords + f.tag / 64] |= uint64_t(1) << (f.tag % 64);
        ix.heardTagRoles[size_t(e) * 2 + phase] |= roles;
        ix.tagsHeard[phase * t.tagWords + f.tag / 64] |= uint64_t(1) << (f.tag % 64);
        continue;
      }
      uint8_t *kinds = &ix.heardKinds[(size_t(e) * 2 + phase) * ix.eventCount];
      uint8_t *anyKinds = &ix.kindHeard[phase * ix.eventCount];
      for (uint32_t kind = 0; kind < ix.eventCount; ++kind)
        if (kind == f.event || f.event == kNoId || f.any) {
          kinds[kind] |= roles;
          anyKinds[kind] = 1;
        }
    }
    const pack::Filter &cf = ef.lasts.countFilter;
    for (const pack::WhoClause *w : {&cf.of, &cf.by, &cf.credited})
      if (ef.lasts.kind == pack::LastsKind::Count && w->who != pack::Who::Unsaid &&
          w->who != pack::Who::Holder)
        ix.wideEffect[e] = 1;
    if (ef.lasts.kind == pack::LastsKind::Count && cf.targeting.who != pack::Who::Unsaid)
      ix.wideEffect[e] = 1;
  }
  return ix;
}

} // namespace ledger::rt

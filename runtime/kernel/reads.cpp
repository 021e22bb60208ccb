// The words a body reads of the world, and the lists its queries find.
#include "kernel.h"

#include "number.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;
using pack::ReadOp;

namespace {
// A curve at x: straight between its points and flat past the ends, or each
// value held until the next point.
int64_t curveAt(const pack::Tables &t, const pack::Curve &c, int64_t x) {
  const pack::Point *p = t.curvePoints.data() + c.pointsBegin;
  uint32_t n = c.pointCount;
  if (n == 0)
    return 0;
  if (x <= p[0].x)
    return p[0].y;
  if (x >= p[n - 1].x)
    return p[n - 1].y;
  for (uint32_t i = 0; i + 1 < n; ++i)
    if (x < p[i + 1].x) {
      if (c.steps)
        return p[i].y;
      // In unsigned 128 bits: two points may lie further apart than a
      // number holds, and their product of spans needs all 128.
      __int128 dy = __int128(p[i + 1].y) - p[i].y;
      using U = unsigned __int128;
      U num = U(dy < 0 ? -dy : dy) * U(__int128(x) - p[i].x);
      U den = U(__int128(p[i + 1].x) - p[i].x);
      U q = num / den, twice = (num % den) * 2;
      if (twice > den || (twice == den && q % 2 != 0))
        ++q;
      // At most the span of y: the reading lies between the two points.
      return int64_t(dy < 0 ? __int128(p[i].y) - __int128(q) : __int128(p[i].y) + __int128(q));
    }
  return p[n - 1].y;
}
} // namespace

// A value a rule's formula reads: a stat whose working out passed what a
// number holds journals its fault, as the formula's own arithmetic would
// (docs/readings.md 165).
int64_t Kernel::statRead(Handle a, Id v, const TagBits *except) {
  if (!actor(a))
    return 0;
  if (t_->values[v].kind == pack::ValueKind::Pool)
    return poolNow(a, v);
  NumberFault made = NumberFault::None;
  int64_t read = computeStat(a, v, except, &made);
  if (made != NumberFault::None)
    journalFault(made);
  return read;
}

int64_t Kernel::apiRead(Frame &f, uint32_t readId, const int64_t *args) {
  const pack::Read &r = t_->reads[readId];
  const Event *e = f.event >= 0 ? &events_[size_t(f.event)] : nullptr;
  switch (r.op) {
  case ReadOp::Value:
    // A stat by type read bare where a portion is in hand: its member.
    if (t_->values[r.a].byType && f.portion >= 0 && e && uint32_t(f.portion) < e->portionCount) {
      Id best = kNoId;
      uint32_t depth = 0;
      for (Id m : ix_->members[r.a]) {
        Id g = t_->values[m].memberTag;
        if (!((e->portions[f.portion].tags.w[g / 64] >> (g % 64)) & 1))
          continue;
        uint32_t d = 0;
        for (Id p = g; p != kNoId; p = t_->tags[p].parent)
          ++d;
        if (d > depth) {
          depth = d;
          best = m;
        }
      }
      if (best != kNoId)
        return statRead(args[0], best, nullptr);
    }
    return statRead(args[0], r.a, nullptr);
  case ReadOp::ValueExcept: {
    TagBits except;
    addTags(except, r.tags);
    if (t_->values[r.a].kind == pack::ValueKind::Pool)
      return poolNow(args[0], r.a);
    return statRead(args[0], r.a, &except);
  }
  case ReadOp::Link:
    return actor(args[0]) ? linkOf(args[0], r.a) : 0;
  case ReadOp::GlobalLink:
    return globals_[r.a];
  case ReadOp::Curve:
    return curveAt(*t_, t_->curves[r.a], args[0]);
  case ReadOp::Has:
    if (!alive(args[0]))
      return 0;
    if (r.a != kNoId)
      return holds(args[0], r.a) ? kOne : 0;
    if (r.b == pack::kTagOperand)
      return carriesTag(tagsOf(args[0]), args[1]) ? kOne : 0;
    return carriesAll(tagsOf(args[0]), r.tags) ? kOne : 0;
  case ReadOp::HasHandle:
    return instance(args[0]) ? kOne : 0;
  case ReadOp::Stacks:
    return stacksOf(args[0], r.a, r.b == 1 ? args[1] : 0);
  case ReadOp::HighestStacks: {
    // The most one instance holds, a signed count below zero too; 0 with none.
    int64_t best = INT64_MIN;
    if (alive(args[0]))
      for (uint32_t i : held_[indexOf(args[0])])
        if (insts_[i].effect == r.a && (r.b != 1 || insts_[i].source == args[1]))
          best = std::max(best, insts_[i].stacks);
    return best == INT64_MIN ? 0 : best;
  }
  case ReadOp::CountEffect:
  case ReadOp::CountTag: {
    int64_t n = 0;
    if (alive(args[0]))
      for (uint32_t i : held_[indexOf(args[0])]) {
        if (r.op == ReadOp::CountEffect) {
          n += insts_[i].effect == r.a && (r.b != 1 || insts_[i].source == args[1]);
        } else if (working(i)) {
          TagBits tb;
          addTags(tb, t_->effects[insts_[i].effect].tags);
          n += r.b == pack::kTagOperand ? carriesTag(tb, args[1]) : carriesAll(tb, r.tags);
        }
      }
    return n * kOne;
  }
  case ReadOp::EventField: {
    if (!e)
      return 0;
    switch (pack::EventField(r.a)) {
    case pack::EventField::Amount: {
      if (e->portionCount == 0 || f.portions == ~0u)
        return e->portionCount ? [&] {
          NumberFault fault = NumberFault::None;
          int64_t s = 0;
          for (uint32_t p = 0; p < e->portionCount; ++p)
            s = add(s, e->portions[p].amount, fault);
          return s;
        }()
                               : e->amount;
      int64_t s = 0;
      for (uint32_t p = 0; p < e->portionCount; ++p)
        if (f.portions >> p & 1)
          s += e->portions[p].amount;
      return s;
    }
    case pack::EventField::Sent:
      return e->sent;
    case pack::EventField::Landed:
      return e->landed;
    case pack::EventField::Overflow:
      return e->overflow;
    case pack::EventField::Before:
      // A change not landed yet (its before rules read it): the pool as it stands.
      if (!e->onPool && e->kind == Id(pack::BuiltinEvent::Change) && e->pool != kNoId)
        return poolNow(e->subject, e->pool);
      return e->before;
    case pack::EventField::After:
      return e->after;
    case pack::EventField::X:
      for (uint32_t p = 0; p < e->propCount; ++p)
        if (e->props[p].first == kNoId)
          return e->props[p].second;
      return 0;
    }
    return 0;
  }
  case ReadOp::EventProp:
    if (e) {
      for (uint32_t p = 0; p < e->propCount; ++p)
        if (e->props[p].first == r.a)
          return e->props[p].second;
    } else if (const Instance *in = f.instance ? instance(f.instance) : nullptr) {
      // A rule with no event in hand reads the chain that put its instance on.
      for (uint32_t p = 0; p < in->propCount; ++p)
        if (instProps_[in->storage.propsAt + p].first == r.a)
          return instProps_[in->storage.propsAt + p].second;
    }
    return t_->props[r.a].defaultValue;
  case ReadOp::EventActor:
    if (!e)
      return pack::EventRole(r.a) == pack::EventRole::Grant ? f.grant : 0;
    switch (pack::EventRole(r.a)) {
    case pack::EventRole::Subject:
      return e->subject;
    case pack::EventRole::Source:
      return e->source;
    case pack::EventRole::Credit:
      return e->credit;
    case pack::EventRole::Ability:
      return e->ability == kNoId ? 0 : int64_t(e->ability) + 1;
    case pack::EventRole::Instance:
      return e->instance;
    case pack::EventRole::Grant:
      return e->grant;
    case pack::EventRole::Target:
      return e->target ? e->target : e->subject;
    default:
      return e->subject;
    }
  case ReadOp::InstanceField: {
    const Instance *in = instance(args[0]);
    if (!in)
      return args[0] == 0 && newcomerStacks_ != kNoNewcomer &&
                     pack::InstanceField(r.a) == pack::InstanceField::Stacks
                 ? newcomerStacks_
                 : 0;
    switch (pack::InstanceField(r.a)) {
    case pack::InstanceField::Stacks:
      return in->stacks;
    case pack::InstanceField::Remaining:
      // Ticks of its clock, as remaining(ACTOR) reads an activation's: the
      // clock counts units, a tick's worth each at a whole rate (reading 135).
      return in->expiresAt < 0
                 ? 0
                 : inTicks(std::max<int64_t>(0, in->expiresAt - clockNow(in->holder, in->clock)));
    case pack::InstanceField::Elapsed:
      return inTicks(clockNow(in->holder, in->clock) - in->appliedAt);
    case pack::InstanceField::Source:
      return in->source;
    case pack::InstanceField::Credit:
      return in->credit;
    case pack::InstanceField::Holder:
      return in->holder;
    case pack::InstanceField::Suspended:
      return working(indexOf(args[0])) ? 0 : kOne;
    }
    return 0;
  }
  case ReadOp::InstanceVar: {
    const Instance *in = instance(args[0]);
    if (!in)
      return 0;
    const pack::Effect &ef = t_->effects[in->effect];
    for (uint32_t v = 0; v < ef.varCount; ++v)
      if (t_->vars[ef.varsBegin + v].name == r.a)
        return vars_[in->varsAt + v];
    return 0;
  }
  case ReadOp::ArchetypeStat: {
    if (r.b == kNoId)
      return 0;
    const pack::Archetype &a = t_->archetypes[r.a];
    // The nearest base, as an actor's is read: a member's own, its type's
    // parents', the stat's (Kernel::base).
    for (Id c : ix_->covers[r.b])
      for (uint32_t b = 0; b < a.baseCount; ++b) {
        const pack::ArchetypeValue &v = t_->archetypeValues[a.basesBegin + b];
        if (v.value != c)
          continue;
        // "read with no actor: a number its content says, or the stat's default"
        if (!ix_->archetypeBaseSaid[a.basesBegin + b])
          return t_->values[r.b].defaultValue;
        // A base reading itself through its archetype is a value read
        // inside itself, ended as every such read is.
        Nesting nest(valueNesting_);
        if (nestedTooDeep())
          return 0;
        Frame g{};
        return runBody(v.body, g);
      }
    return t_->values[r.b].defaultValue;
  }
  case ReadOp::TagOf: {
    if (args[0] <= 0 || size_t(args[0]) > t_->abilities.size())
      return 0;
    // "the first tag the ability's tags line lists under that parent tag"
    const pack::Ability &ab = t_->abilities[size_t(args[0]) - 1];
    for (uint32_t k = 0; k < ab.listedCount; ++k) {
      Id g = t_->idLists[ab.listedBegin + k];
      for (Id up = t_->tags[g].parent; up != kNoId; up = t_->tags[up].parent)
        if (up == r.a)
          return int64_t(g) + 1;
    }
    return 0;
  }
  case ReadOp::Portion: {
    Id type = r.b == pack::kTagOperand ? tagOfValue(args[0]) : r.a;
    if (!e || type == kNoId)
      return 0;
    int64_t s = 0;
    for (uint32_t p = 0; p < e->portionCount; ++p)
      if ((e->portions[p].tags.w[type / 64] >> (type % 64)) & 1)
        s += e->portions[p].amount;
    if (e->portionCount == 0 && ((e->tags.w[type / 64] >> (type % 64)) & 1))
      s = e->amount;
    return s;
  }
  case ReadOp::EventKind:
    return e ? int64_t(e->kind) + 1 : 0;
  case ReadOp::EventPool:
    return e && e->pool != kNoId ? int64_t(e->pool) + 1 : 0;
  case ReadOp::EventTags:
    if (!e)
      return 0;
    return (r.a == 0 ? carriesAll(e->tags, r.tags) : carriesAny(e->tags, r.tags)) ? kOne : 0;
  case ReadOp::EventPrevented:
    return e && e->prevented ? kOne : 0;
  case ReadOp::EventTargeting: {
    if (!e)
      return 0;
    pack::Who who = pack::Who(r.a);
    if (who == pack::Who::Holder || who == pack::Who::Actor)
      return targeted(*e, args[0]) ? kOne : 0;
    for (uint32_t k = 0; k < e->targetedCount; ++k)
      if (related(who, eventTargets_[e->targetedAt + k], args[1]))
        return kOne;
    return 0;
  }
  case ReadOp::Relation:
    return related(pack::Who(r.a), args[0], args[1]) ? kOne : 0;
  case ReadOp::FirstOf: {
    std::vector<int64_t> found;
    query(f, t_->queries[r.a], args, found);
    return found.empty() ? 0 : found.front();
  }
  }
  return 0;
}

bool Kernel::related(pack::Who relation, Handle who, Handle holder) const {
  switch (relation) {
  case pack::Who::Anyone:
    return who != 0;
  case pack::Who::Enemies:
    return who != 0 && enemies(who, holder);
  case pack::Who::Allies:
    return who != 0 && allies(who, holder);
  case pack::Who::OtherAllies:
    return who != 0 && who != holder && allies(who, holder);
  case pack::Who::Others:
    return who != 0 && who != holder;
  default:
    return false;
  }
}

bool Kernel::targeted(const Event &e, Handle actor) const {
  for (uint32_t k = 0; k < e.targetedCount; ++k)
    if (eventTargets_[e.targetedAt + k] == actor)
      return true;
  return false;
}

// A search's operands: how many it keeps at most (up to N), and whom it
// searches from (its `of`, else the body's holder).
std::pair<int64_t, Handle> Kernel::searchOperands(Frame &f, const pack::Query &q,
                                                 const int64_t *args) const {
  uint32_t k = 0;
  int64_t most = q.hasCount ? args[k++] / kOne : INT64_MAX;
  Handle from = q.hasOf ? args[k++] : f.roots[LEDGER_SLOT_HOLDER];
  if (!q.hasOf && f.c.locals)
    from = f.c.locals[LEDGER_SLOT_HOLDER];
  return {most, from};
}

bool Kernel::asksFallen(const pack::Query &q) const {
  return (t_->tagSet(q.having)[Id(pack::BuiltinTag::Fallen) / 64] >>
          (Id(pack::BuiltinTag::Fallen) % 64)) & 1;
}

// Whether a search's tags and presence let an actor in play through: the
// fallen only where it asks for them.
bool Kernel::searchFinds(const pack::Query &q, bool fallenAsked, uint32_t i) {
  const Actor &ac = actors_[i];
  if (!ac.live || (ac.fallen && !fallenAsked))
    return false;
  if (q.having || q.unless) {
    TagBits tb = tagsOf(handle(i, ac.gen));
    if (q.having && !carriesAll(tb, q.having))
      return false;
    if (q.unless && carriesAny(tb, q.unless))
      return false;
  }
  return true;
}

// How many a search by side and tags finds of each side, worked out again
// only once what it reads has moved.
const Kernel::SideTally &Kernel::tallyOf(uint32_t queryId) {
  if (tallies_.size() <= queryId)
    tallies_.resize(t_->queries.size());
  SideTally &tally = tallies_[queryId];
  if (tally.shape == shapeEpoch_)
    return tally;
  const pack::Query &q = t_->queries[queryId];
  tally.shape = shapeEpoch_;
  tally.bySide.clear();
  tally.all = tally.sided = 0;
  bool fallenAsked = asksFallen(q);
  for (uint32_t i = 0; i < actors_.size(); ++i) {
    if (!searchFinds(q, fallenAsked, i))
      continue;
    ++tally.all;
    Handle side = t_->allegiance != kNoId ? linkOf(handle(i, actors_[i].gen), t_->allegiance) : 0;
    if (side != 0) {
      ++tally.sided;
      tally.bySide.push_back({side, 1});
    }
  }
  // Each side once, with how many it holds.
  std::sort(tally.bySide.begin(), tally.bySide.end());
  size_t kept = 0;
  for (size_t k = 0; k < tally.bySide.size(); ++k)
    if (kept > 0 && tally.bySide[kept - 1].first == tally.bySide[k].first)
      ++tally.bySide[kept - 1].second;
    else
      tally.bySide[kept++] = tally.bySide[k];
  tally.bySide.resize(kept);
  return tally;
}

// What query() would find of a search by side and tags, counted from the
// tallies: the actors of the searcher's side, the others with a side, or
// all, with the searcher itself counted as the search would count it.
int64_t Kernel::countBySide(Frame &f, uint32_t queryId, const int64_t *args) {
  const pack::Query &q = t_->queries[queryId];
  auto [most, from] = searchOperands(f, q, args);
  const SideTally &tally = tallyOf(queryId);
  int64_t self = actor(from) && searchFinds(q, asksFallen(q), indexOf(from)) ? 1 : 0;
  Handle fromSide = t_->allegiance != kNoId ? linkOf(from, t_->allegiance) : 0;
  int64_t ofSide = 0;
  if (fromSide != 0) {
    auto it = std::lower_bound(tally.bySide.begin(), tally.bySide.end(),
                               std::pair<Handle, int64_t>{fromSide, INT64_MIN});
    if (it != tally.bySide.end() && it->first == fromSide)
      ofSide = it->second;
  }
  int64_t found = 0;
  switch (q.subject) {
  case pack::Subject::Actors:
    found = tally.all;
    break;
  case pack::Subject::Others:
    found = tally.all - self;
    break;
  case pack::Subject::Allies:
    found = fromSide != 0 ? ofSide : self;
    break;
  case pack::Subject::OtherAllies:
    found = fromSide != 0 ? ofSide - self : 0;
    break;
  case pack::Subject::Enemies:
    found = fromSide != 0 ? tally.sided - ofSide : 0;
    break;
  }
  return std::min(found, std::max<int64_t>(most, 0));
}

// A query's actors (in slot order) or a held(...)'s instances.
void Kernel::query(Frame &f, const pack::Query &q, const int64_t *args, std::vector<int64_t> &out) {
  out.clear();
  switch (q.kind) {
  case pack::QueryKind::Actor:
    if (actor(args[0]))
      out.push_back(args[0]);
    return;
  case pack::QueryKind::Targets:
    if (f.targets)
      for (Handle h : *f.targets)
        if (alive(h))
          out.push_back(h);
    return;
  case pack::QueryKind::EventTargets: {
    // The actors the event names: an Activate's, those its order named, in
    // its order; any other's, its subject.
    if (f.event < 0)
      return;
    const Event &e = events_[size_t(f.event)];
    if (e.kind == Id(pack::BuiltinEvent::Activate)) {
      for (uint32_t k = 0; k < e.targetCount; ++k)
        if (actor(eventTargets_[e.targetsAt + k]))
          out.push_back(eventTargets_[e.targetsAt + k]);
    } else if (e.subject) {
      out.push_back(e.subject);
    }
    return;
  }
  case pack::QueryKind::Search: {
    auto [count, from] = searchOperands(f, q, args);
    int64_t saved = f.c.locals ? f.c.locals[LEDGER_SLOT_IT] : 0;
    bool fallenAsked = asksFallen(q);
    auto offer = [&](uint32_t i) {
      if (!searchFinds(q, fallenAsked, i))
        return;
      Handle h = handle(i, actors_[i].gen);
      if (q.whenBody != kNoId) {
        prepare(f);
        f.c.locals[LEDGER_SLOT_IT] = h;
        bool keep = pack_->formula(q.whenBody, &f.c) != 0;
        f.c.locals[LEDGER_SLOT_IT] = saved;
        if (!keep)
          return;
      }
      out.push_back(h);
    };
    // Ranked, the first count of every actor it keeps; else the first found.
    auto wanted = [&] { return q.keyCount || int64_t(out.size()) < count; };
    if (!fallenAsked) {
      SideWalk walk(*this, q.subject, from);
      for (uint32_t i = walk.next(); i != SideWalk::kEnd && wanted(); i = walk.next())
        offer(i);
    } else {
      // The fallen are in no side's file: every actor made, parted by side
      // here as allies() and enemies() part them, the searcher's side read once.
      bool bySide = q.subject == pack::Subject::Enemies || q.subject == pack::Subject::Allies ||
                    q.subject == pack::Subject::OtherAllies;
      Handle fromSide = bySide && t_->allegiance != kNoId ? linkOf(from, t_->allegiance) : 0;
      for (uint32_t i = 0; i < actors_.size() && wanted(); ++i) {
        if (!actors_[i].live)
          continue;
        Handle h = handle(i, actors_[i].gen);
        Handle side = bySide && h != from && fromSide != 0 ? linkOf(h, t_->allegiance) : 0;
        bool takes = true;
        switch (q.subject) {
        case pack::Subject::Enemies:
          takes = h != from && side != 0 && side != fromSide;
          break;
        case pack::Subject::Allies:
          takes = h == from || (side != 0 && side == fromSide);
          break;
        case pack::Subject::OtherAllies:
          takes = h != from && side != 0 && side == fromSide;
          break;
        case pack::Subject::Others:
          takes = h != from;
          break;
        case pack::Subject::Actors:
          break;
        }
        if (takes)
          offer(i);
      }
    }
    rank(f, q.keysBegin, q.keyCount, out);
    if (count < int64_t(out.size()))
      out.resize(size_t(std::max<int64_t>(count, 0)));
    return;
  }
  case pack::QueryKind::Held: {
    Handle a = args[0];
    if (!alive(a))
      return;
    Handle from = q.hasFrom ? args[1] : 0;
    Scratch<int64_t> list(scratchHandles_); // oldest first, then by its keys
    for (uint32_t i : held_[indexOf(a)])
      list->push_back(instanceHandle(i));
    rank(f, q.keysBegin, q.keyCount, *list);
    int64_t saved = f.c.locals ? f.c.locals[LEDGER_SLOT_IT] : 0;
    for (Handle h : *list) {
      const Instance &in = insts_[indexOf(h)];
      if (!in.live)
        continue;
      TagBits tb;
      addTags(tb, t_->effects[in.effect].tags);
      if (q.having && !carriesAll(tb, q.having))
        continue;
      if (q.unless && carriesAny(tb, q.unless))
        continue;
      if (q.hasFrom && in.source != from)
        continue;
      if (q.whenBody != kNoId) {
        prepare(f);
        f.c.locals[LEDGER_SLOT_IT] = h;
        bool keep = pack_->formula(q.whenBody, &f.c) != 0;
        f.c.locals[LEDGER_SLOT_IT] = saved;
        if (!keep)
          continue;
      }
      out.push_back(h);
    }
    return;
  }
  }
}

void Kernel::rank(Frame &f, uint32_t keysBegin, uint32_t keyCount, std::vector<int64_t> &found) {
  if (keyCount == 0)
    return;
  // A row a candidate: its key values, then itself; sorted by row number,
  // so nothing is moved but the numbers.
  size_t width = size_t(keyCount) + 1;
  Scratch<int64_t> rows(scratchHandles_);
  Scratch<uint32_t> order(scratchIds_);
  prepare(f);
  int64_t saved = f.c.locals[LEDGER_SLOT_IT];
  for (size_t i = 0; i < found.size(); ++i) {
    Handle h = found[i];
    for (uint32_t k = 0; k < keyCount; ++k) {
      const pack::SortKey &key = t_->sortKeys[keysBegin + k];
      switch (key.kind) {
      case pack::SortKeyKind::Tag:
        rows->push_back(carries(h, key.tag) ? 0 : 1);
        break;
      case pack::SortKeyKind::Newest:
      case pack::SortKeyKind::Oldest: {
        int64_t seq = int64_t(insts_[indexOf(h)].seq);
        rows->push_back(key.kind == pack::SortKeyKind::Newest ? -seq : seq);
        break;
      }
      case pack::SortKeyKind::Highest:
      case pack::SortKeyKind::Lowest: {
        f.c.locals[LEDGER_SLOT_IT] = h;
        int64_t v = pack_->formula(key.body, &f.c);
        // Highest first as ~v, which reverses the order of every number,
        // the least one too (whose negation is itself).
        rows->push_back(key.kind == pack::SortKeyKind::Highest ? ~v : v);
        break;
      }
      }
    }
    rows->push_back(h);
    order->push_back(uint32_t(i));
  }
  f.c.locals[LEDGER_SLOT_IT] = saved;
  const int64_t *r = rows->data();
  std::sort(order->begin(), order->end(), [&](uint32_t x, uint32_t y) {
    for (uint32_t k = 0; k < keyCount; ++k)
      if (r[x * width + k] != r[y * width + k])
        return r[x * width + k] < r[y * width + k];
    return x < y;
  });
  for (size_t i = 0; i < found.size(); ++i)
    found[i] = r[(*order)[i] * width + keyCount];
}

} // namespace ledger::rt

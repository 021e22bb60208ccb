// The words a body reads of the world, and the lists its queries find. A
// read's shape is a constant of the body reading it, so the switch below
// folds to the one case each compiled read is.
#include "world.h"

#include <algorithm>

namespace ledger::cw {

using pack::ReadOp;

namespace {
// A curve at x: straight between its points and flat past the ends, or each
// value held until the next point.
int64_t curveAt(const pack::Curve &c, int64_t x) {
  const pack::Point *p = lp_curvePoints + c.pointsBegin;
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
      // In 64 bits where the steps fit, as a curve's points nearly always do.
      int64_t dy64, dx64, run, num64;
      if (!__builtin_sub_overflow(p[i + 1].y, p[i].y, &dy64) &&
          !__builtin_sub_overflow(x, p[i].x, &dx64) &&
          !__builtin_sub_overflow(p[i + 1].x, p[i].x, &run) && dy64 != INT64_MIN &&
          !__builtin_mul_overflow(dy64 < 0 ? -dy64 : dy64, dx64, &num64)) {
        uint64_t num = uint64_t(num64), den = uint64_t(run);
        uint64_t q = num / den, r = num % den;
        if (r > den - r || (r == den - r && (q & 1)))
          ++q;
        int64_t y;
        if (!__builtin_add_overflow(p[i].y, dy64 < 0 ? -int64_t(q) : int64_t(q), &y))
          return y;
      }
      __int128 dy = __int128(p[i + 1].y) - p[i].y;
      using U = unsigned __int128;
      U num = U(dy < 0 ? -dy : dy) * U(__int128(x) - p[i].x);
      U den = U(__int128(p[i + 1].x) - p[i].x);
      U q = num / den, twice = (num % den) * 2;
      if (twice > den || (twice == den && q % 2 != 0))
        ++q;
      return int64_t(dy < 0 ? __int128(p[i].y) - __int128(q) : __int128(p[i].y) + __int128(q));
    }
  return p[n - 1].y;
}
} // namespace

int64_t World::apiRead(Frame &f, uint32_t readId, const int64_t *args) {
  const pack::Read &r = lp_reads[readId];
  const Event *e = f.event >= 0 ? &ev(uint32_t(f.event)) : nullptr;
  switch (r.op) {
  case ReadOp::Value: {
    // A stat whose working out passed what a number holds journals its
    // fault, as the formula's own arithmetic would (docs/readings.md 165).
    NumberFault made = NumberFault::None;
    int64_t read = value(args[0], r.a, &made);
    if (made != NumberFault::None) [[unlikely]]
      apiFault(uint32_t(made));
    return read;
  }
  case ReadOp::Link:
    return actor(args[0]) ? linkOf(args[0], r.a) : 0;
  case ReadOp::GlobalLink:
    return globals_[r.a];
  case ReadOp::Curve:
    return curveAt(lp_curves[r.a], args[0]);
  case ReadOp::Has:
    if (!alive(args[0]))
      return 0;
    if (r.a != kNoId)
      return holds(args[0], r.a) ? kOne : 0;
    if (r.b == pack::kTagOperand) {
      Id g = tagOfValue(args[1]);
      return g != kNoId && hasTag(tagsOf(args[0]), g) ? kOne : 0;
    }
    return carriesAll(tagsOf(args[0]), r.tags) ? kOne : 0;
  case ReadOp::HasHandle:
    return instance(args[0]) ? kOne : 0;
  case ReadOp::Stacks:
    return stacksOf(args[0], r.a, r.b == 1 ? args[1] : 0);
  case ReadOp::HighestStacks: {
    int64_t best = INT64_MIN;
    if (alive(args[0]))
      for (uint32_t i = firstOf(indexOf(args[0]), r.a); i; i = inst(i - 1).nextSame)
        if (r.b != 1 || inst(i - 1).source == args[1])
          best = best > inst(i - 1).stacks ? best : inst(i - 1).stacks;
    return best == INT64_MIN ? 0 : best;
  }
  case ReadOp::CountEffect:
  case ReadOp::CountTag: {
    int64_t n = 0;
    if (alive(args[0]))
      for (uint32_t h = row(indexOf(args[0])).firstHeld; h; h = inst(h - 1).nextHeld) {
        const InstHead &in = inst(h - 1);
        if (r.op == ReadOp::CountEffect) {
          n += in.effect == r.a && (r.b != 1 || in.source == args[1]);
        } else if (working(h - 1)) {
          Tags tb;
          clearTags(tb);
          addTags(tb, lp_effects[in.effect].tags);
          if (r.b == pack::kTagOperand) {
            Id g = tagOfValue(args[1]);
            n += g != kNoId && hasTag(tb, g);
          } else {
            n += carriesAll(tb, r.tags);
          }
        }
      }
    return n * kOne;
  }
  case ReadOp::EventField: {
    if (!e)
      return 0;
    switch (pack::EventField(r.a)) {
    case pack::EventField::Amount: {
      if (e->portionCount == 0)
        return e->amount;
      NumberFault fault = NumberFault::None;
      int64_t s = 0;
      if (f.portions == ~0u) {
        for (uint32_t p = 0; p < e->portionCount; ++p)
          s = rt::add(s, portions_[e->portionsAt + p].amount, fault);
        return s;
      }
      for (uint32_t p = 0; p < e->portionCount; ++p)
        if (f.portions >> p & 1)
          s += portions_[e->portionsAt + p].amount;
      return s;
    }
    case pack::EventField::Sent:
      return e->sent;
    case pack::EventField::Landed:
      return e->landed;
    case pack::EventField::Overflow:
      return e->overflow;
    case pack::EventField::Before:
      if (!e->onPool && e->kind == Id(pack::BuiltinEvent::Change) && e->pool != kNoId)
        return poolNow(e->subject, e->pool);
      return e->before;
    case pack::EventField::After:
      return e->after;
    case pack::EventField::X:
      return 0;
    }
    return 0;
  }
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
    }
    return e->subject;
  case ReadOp::InstanceField: {
    const InstHead *in = instance(args[0]);
    if (!in)
      return args[0] == 0 && newcomerStacks_ != kNoNewcomer &&
                     pack::InstanceField(r.a) == pack::InstanceField::Stacks
                 ? newcomerStacks_
                 : 0;
    switch (pack::InstanceField(r.a)) {
    case pack::InstanceField::Stacks:
      return in->stacks;
    case pack::InstanceField::Remaining: {
      int64_t left = in->expiresAt - worldTime();
      return in->expiresAt < 0 ? 0 : inTicks(left > 0 ? left : 0);
    }
    case pack::InstanceField::Elapsed:
      return inTicks(worldTime() - in->appliedAt);
    case pack::InstanceField::Source:
      return in->source;
    case pack::InstanceField::Credit:
      return in->credit;
    case pack::InstanceField::Holder:
      return in->holder;
    case pack::InstanceField::Suspended:
      return 0;
    }
    return 0;
  }
  case ReadOp::InstanceVar: {
    const InstHead *in = instance(args[0]);
    if (!in)
      return 0;
    const pack::Effect &ef = lp_effects[in->effect];
    for (uint32_t v = 0; v < ef.varCount; ++v)
      if (lp_vars[ef.varsBegin + v].name == r.a)
        return varsOf(indexOf(args[0]))[v];
    return 0;
  }
  case ReadOp::Portion: {
    Id type = r.b == pack::kTagOperand ? tagOfValue(args[0]) : r.a;
    if (!e || type == kNoId)
      return 0;
    int64_t s = 0;
    for (uint32_t p = 0; p < e->portionCount; ++p)
      if (hasTag(portions_[e->portionsAt + p].tags, type))
        s += portions_[e->portionsAt + p].amount;
    if (e->portionCount == 0 && hasTag(e->tags, type))
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
    uint32_t at = scratchHandles_.size();
    query(f, lp_queries[r.a], args, scratchHandles_);
    int64_t first = scratchHandles_.size() > at ? scratchHandles_[at] : 0;
    scratchHandles_.truncate(at);
    return first;
  }
  default:
    return 0;
  }
}

// Whether a search's tags and presence let an actor in play through: the
// fallen only where it asks for them.
bool World::searchFinds(const pack::Query &q, bool fallenAsked, uint32_t ai) {
  const ActorHead &ac = row(ai);
  if (!ac.live || (ac.fallen && !fallenAsked))
    return false;
  if (q.having || q.unless) {
    Tags tb = tagsOf(actorHandle(ai));
    if (q.having && !carriesAll(tb, q.having))
      return false;
    if (q.unless && carriesAny(tb, q.unless))
      return false;
  }
  return true;
}

// A query's actors (in slot order) or a held(...)'s
// instances, onto out.
void World::query(Frame &f, const pack::Query &q, const int64_t *args, Vec<int64_t> &out) {
  uint32_t from0 = out.size();
  switch (q.kind) {
  case pack::QueryKind::Actor:
    if (actor(args[0]))
      out.push(args[0]);
    return;
  case pack::QueryKind::Targets:
    for (uint32_t k = 0; k < f.targetCount; ++k)
      if (alive(f.targets[k]))
        out.push(f.targets[k]);
    return;
  case pack::QueryKind::EventTargets: {
    if (f.event < 0)
      return;
    const Event &e = ev(uint32_t(f.event));
    if (e.kind == Id(pack::BuiltinEvent::Activate)) {
      for (uint32_t k = 0; k < e.targetCount; ++k)
        if (actor(eventTargets_[e.targetsAt + k]))
          out.push(eventTargets_[e.targetsAt + k]);
    } else if (e.subject) {
      out.push(e.subject);
    }
    return;
  }
  case pack::QueryKind::Search: {
    uint32_t k = 0;
    int64_t count = q.hasCount ? args[k++] / kOne : INT64_MAX;
    Handle from = q.hasOf ? args[k++] : (f.c.locals ? f.c.locals : f.roots)[LEDGER_SLOT_HOLDER];
    int64_t *locals = f.c.locals ? f.c.locals : f.roots;
    int64_t saved = locals[LEDGER_SLOT_IT];
    bool fallenAsked = (tagSet(q.having)[Id(pack::BuiltinTag::Fallen) / 64] >>
                        (Id(pack::BuiltinTag::Fallen) % 64)) & 1;
    auto offer = [&](uint32_t ai) {
      if (!searchFinds(q, fallenAsked, ai))
        return;
      Handle h = actorHandle(ai);
      if (q.whenBody != kNoId) {
        locals[LEDGER_SLOT_IT] = h;
        bool keep = runBody(q.whenBody, f) != 0;
        locals[LEDGER_SLOT_IT] = saved;
        if (!keep)
          return;
      }
      out.push(h);
    };
    auto wanted = [&] { return q.keyCount || int64_t(out.size() - from0) < count; };
    if (!fallenAsked) {
      SideWalk walk(*this, q.subject, from);
      for (uint32_t ai = walk.next(); ai != kNone && wanted(); ai = walk.next())
        offer(ai);
    } else {
      bool bySide = q.subject == pack::Subject::Enemies || q.subject == pack::Subject::Allies ||
                    q.subject == pack::Subject::OtherAllies;
      Handle fromSide = bySide && shape().allegiance != kNoId ? linkOf(from, shape().allegiance) : 0;
      for (uint32_t ai = 0; ai < actors_.size() && wanted(); ++ai) {
        if (!row(ai).live)
          continue;
        Handle h = actorHandle(ai);
        Handle side = bySide && h != from && fromSide != 0 ? linkOf(h, shape().allegiance) : 0;
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
          offer(ai);
      }
    }
    rank(f, q.keysBegin, q.keyCount, out, from0);
    if (count < int64_t(out.size() - from0))
      out.truncate(from0 + uint32_t(count > 0 ? count : 0));
    return;
  }
  case pack::QueryKind::Held: {
    Handle a = args[0];
    if (!alive(a))
      return;
    Handle source = q.hasFrom ? args[1] : 0;
    // Oldest first, then by its keys, onto the list; those it keeps move up.
    uint32_t listAt = out.size();
    for (uint32_t h = row(indexOf(a)).firstHeld; h; h = inst(h - 1).nextHeld)
      out.push(instanceHandle(h - 1));
    rank(f, q.keysBegin, q.keyCount, out, listAt);
    int64_t *locals = f.c.locals ? f.c.locals : f.roots;
    int64_t saved = locals[LEDGER_SLOT_IT];
    uint32_t kept = listAt;
    for (uint32_t k = listAt; k < out.size(); ++k) {
      Handle h = out[k];
      const InstHead &in = inst(indexOf(h));
      if (!in.live)
        continue;
      Tags tb;
      clearTags(tb);
      addTags(tb, lp_effects[in.effect].tags);
      if (q.having && !carriesAll(tb, q.having))
        continue;
      if (q.unless && carriesAny(tb, q.unless))
        continue;
      if (q.hasFrom && in.source != source)
        continue;
      if (q.whenBody != kNoId) {
        locals[LEDGER_SLOT_IT] = h;
        bool keep = runBody(q.whenBody, f) != 0;
        locals[LEDGER_SLOT_IT] = saved;
        if (!keep)
          continue;
      }
      out[kept++] = h;
    }
    out.truncate(kept);
    return;
  }
  }
}

// Orders what a query found, from `from` on, by its sort keys in turn, ties
// kept in the order found.
void World::rank(Frame &f, uint32_t keysBegin, uint32_t keyCount, Vec<int64_t> &found,
                 uint32_t from) {
  if (keyCount == 0)
    return;
  uint32_t n = found.size() - from;
  uint32_t width = keyCount + 1;
  // Rows after the list: each candidate's keys, then itself.
  uint32_t rowsAt = found.size();
  int64_t *locals = f.c.locals ? f.c.locals : f.roots;
  int64_t saved = locals[LEDGER_SLOT_IT];
  for (uint32_t i = 0; i < n; ++i) {
    Handle h = found[from + i];
    for (uint32_t k = 0; k < keyCount; ++k) {
      const pack::SortKey &key = lp_sortKeys[keysBegin + k];
      int64_t v = 0;
      switch (key.kind) {
      case pack::SortKeyKind::Tag:
        v = carries(h, key.tag) ? 0 : 1;
        break;
      case pack::SortKeyKind::Newest:
      case pack::SortKeyKind::Oldest: {
        int64_t seq = int64_t(inst(indexOf(h)).seq);
        v = key.kind == pack::SortKeyKind::Newest ? -seq : seq;
        break;
      }
      case pack::SortKeyKind::Highest:
      case pack::SortKeyKind::Lowest: {
        locals[LEDGER_SLOT_IT] = h;
        int64_t read = runBody(key.body, f);
        v = key.kind == pack::SortKeyKind::Highest ? ~read : read;
        break;
      }
      }
      found.push(v);
    }
    found.push(h);
  }
  locals[LEDGER_SLOT_IT] = saved;
  // Row numbers, sorted by their rows, after the rows.
  uint32_t orderAt = found.size();
  for (uint32_t i = 0; i < n; ++i)
    found.push(i);
  int64_t *rows = found.data() + rowsAt;
  std::sort(found.begin() + orderAt, found.end(), [&](int64_t x, int64_t y) {
    for (uint32_t k = 0; k < keyCount; ++k)
      if (rows[x * width + k] != rows[y * width + k])
        return rows[x * width + k] < rows[y * width + k];
    return x < y;
  });
  for (uint32_t i = 0; i < n; ++i)
    found[from + i] = found[rowsAt + uint32_t(found[orderAt + i]) * width + keyCount];
  found.truncate(rowsAt);
}

// ---- lists a body walks --------------------------------------------------------

int64_t World::apiListOpen(Frame &f, uint32_t queryId, const int64_t *args) {
  listStarts_.push(lists_.size());
  uint32_t at = lists_.size();
  query(f, lp_queries[queryId], args, lists_);
  return int64_t(lists_.size() - at);
}

int64_t World::apiListItem(Frame &, int64_t index) {
  uint32_t at = listStarts_.back() + uint32_t(index);
  return at < lists_.size() ? lists_[at] : 0;
}

void World::apiListClose(Frame &) {
  lists_.truncate(listStarts_.back());
  listStarts_.pop();
}

} // namespace ledger::cw

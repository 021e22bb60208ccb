// The event pipeline: blocks, before rules by stage and order, the landing,
// after rules queued in the moment, chains and their budget, the journal.
#include "kernel.h"

#include "number.h"
#include "thread_stack.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;
using pack::BuiltinEvent;
using pack::BuiltinTag;

void Kernel::beginMoment() {
  if (momentDepth_++ == 0) {
    chainBase_ = chains_ + 1;
    chainCounts_.clear();
    chainRepeats_.clear();
    events_.clear();
    givenVars_.clear();
    eventTargets_.clear();
    jobs_.clear();
    jobAt_ = 0;
    oncePerChain_.clear();
    preventedChains_.clear();
    sentOn_.clear();
    boundWatch_.clear();
    boundWatchAt_ = 0;
  }
}

// The moment's queue runs to its end: each after rule in the order its event
// landed, what they set off queued behind them.
void Kernel::endMoment() {
  if (momentDepth_ == 1) {
    // A bound moved by what no event carries (a link set, a revive) is
    // reached in a chain of its own.
    if (boundWatchAt_ < boundWatch_.size())
      reachBounds(0, 0, ++chains_);
    for (;;) {
      while (jobAt_ < jobs_.size()) {
        Job job = jobs_[jobAt_++];
        runJob(job);
        if (boundWatchAt_ < boundWatch_.size())
          reachBounds(0, 0, ++chains_);
      }
      // A bound counting a query the settle leaves at its pool's least is
      // reached in a chain of its own, and what that sets off runs in the
      // moment too.
      settleWorldReaders();
      if (boundWatchAt_ == boundWatch_.size())
        break;
      reachBounds(0, 0, ++chains_);
    }
    retimeWorldClocks();
    // Clocks whose stat moved run at their new rate from here.
    for (size_t i = 0; i < touched_.size(); ++i)
      retime(touched_[i]);
    for (Handle a : touched_)
      touchedMark_[indexOf(a)] = 0;
    touched_.clear();
    // Nothing of the moment names them any more (reading 157).
    if (!releasing_.empty())
      releaseSlots();
  }
  --momentDepth_;
  if (momentDepth_ == 0)
    runAutos();
}

uint32_t Kernel::newEvent(Id kind, Handle subject, Handle source, Handle credit, uint32_t chain) {
  Event &e = events_.push();
  e.kind = kind;
  e.subject = subject;
  e.source = source;
  e.credit = credit;
  e.chain = chain;
  return uint32_t(events_.size() - 1);
}

bool Kernel::allies(Handle a, Handle b) const {
  if (a == b)
    return true;
  if (t_->allegiance == kNoId)
    return false;
  Handle la = linkOf(a, t_->allegiance), lb = linkOf(b, t_->allegiance);
  return la != 0 && la == lb;
}

// Enemies point their allegiance at different actors; an actor pointing
// nowhere is neutral to all but itself.
bool Kernel::enemies(Handle a, Handle b) const {
  if (a == b || t_->allegiance == kNoId)
    return false;
  Handle la = linkOf(a, t_->allegiance), lb = linkOf(b, t_->allegiance);
  return la != 0 && lb != 0 && la != lb;
}

bool Kernel::whoMatches(const pack::WhoClause &w, Handle who, Handle holder, uint32_t inst) {
  switch (w.who) {
  case pack::Who::Unsaid:
    return true;
  case pack::Who::Holder:
    return who == holder;
  case pack::Who::Actor: {
    Frame f = frameFor(inst, -1, 0);
    return runBody(w.body, f) == who;
  }
  default:
    return related(w.who, who, holder);
  }
}

// The kernel's dispatch of an event to the rules that may hear it: by its
// kind, or the tag that names it; the rest of a filter is its match body.
bool Kernel::hearsKind(const pack::Filter &f, const Event &e) const {
  if (f.any)
    return true;
  if (f.event != kNoId && f.event != e.kind)
    return false;
  if (f.tag != kNoId && !((e.tags.w[f.tag / 64] >> (f.tag % 64)) & 1))
    return false;
  return true;
}

// The instances whose rules may hear an event: the subject's, the source's
// and the credit's, and those of effects that hear more than their holder.
// Each list is in the order its instances went on, so merging keeps that
// order: no sort, no allocation once the scratch lists have grown.
void Kernel::candidates(const Event &e, Phase phase, std::vector<uint32_t> &out) {
  out.clear();
  if (phase != Phase::Count && !someoneHears(phase, e))
    return;
  const Handle who[3] = {e.subject, e.source, e.credit};
  for (int k = 0; k < 3; ++k) {
    Handle a = who[k];
    if (a == 0 || (k > 0 && a == who[0]) || (k > 1 && a == who[1]) || !actor(a))
      continue;
    // The roles this actor stands in: a rule whose holder must stand in
    // another can't hear it, and its match would say so.
    uint8_t roles = uint8_t((a == who[0] ? PackIndex::kSubject : 0) |
                            (a == who[1] ? PackIndex::kSource : 0) |
                            (a == who[2] ? PackIndex::kCredit : 0));
    size_t mid = out.size();
    for (const Hearer &h : hearers_[indexOf(a)])
      if (mayHear(h.effect, phase, e, roles) && !ix_->wideEffect[h.effect])
        out.push_back(h.inst);
    mergeBySeq(out, mid);
  }
  if (wide_.empty())
    return;
  // A fallen holder hears only an event naming it, as the roles above do.
  auto hears = [&](Handle h) {
    return !actor(h)->fallen || h == e.subject || h == e.source || h == e.credit || targeted(e, h);
  };
  size_t mid = out.size(), kept = 0;
  for (uint32_t i : wide_)
    if (insts_[i].live && ix_->wideEffect[insts_[i].effect]) {
      wide_[kept++] = i;
      if (mayHear(insts_[i].effect, phase, e) && !insts_[i].ending && hears(insts_[i].holder))
        out.push_back(i);
    }
  wide_.resize(kept);
  mergeBySeq(out, mid);
}

// out[0, mid) and out[mid, end) each in the order their instances went on,
// made one list in that order: a short run slid into place, a long one merged.
void Kernel::mergeBySeq(std::vector<uint32_t> &out, size_t mid) {
  if (mid == 0 || mid == out.size())
    return;
  auto bySeq = [&](uint32_t a, uint32_t b) { return insts_[a].seq < insts_[b].seq; };
  if (out.size() - mid <= 8) {
    for (size_t k = mid; k < out.size(); ++k)
      for (size_t j = k; j > 0 && bySeq(out[j], out[j - 1]); --j)
        std::swap(out[j], out[j - 1]);
    return;
  }
  Scratch<uint32_t> merged(scratchIds_);
  merged->resize(out.size());
  std::merge(out.begin(), out.begin() + mid, out.begin() + mid, out.end(), merged->begin(), bySeq);
  out.swap(*merged);
}

// prevent chain: every later event of its chain on the holder.
bool Kernel::inPreventedChain(const Event &e) const {
  for (auto [holder, c] : preventedChains_)
    if (c == e.chain && holder == e.subject)
      return true;
  return false;
}

// Whether a block refuses the event; except: an instance whose own block
// doesn't count (one coming off, whose Remove is raised once it has).
bool Kernel::blocks(const Event &e, uint32_t except) {
  const TagBits &activating = e.tags;
  for (Handle who : {e.subject, e.source}) {
    if (who == 0 || !alive(who) || blockers_[indexOf(who)] == 0)
      continue;
    for (uint32_t i : held_[indexOf(who)]) {
      const pack::Effect &ef = t_->effects[insts_[i].effect];
      if (ef.blockCount == 0 || i == except || !working(i))
        continue;
      for (uint32_t b = 0; b < ef.blockCount; ++b) {
        const pack::Block &blk = t_->blocks[ef.blocksBegin + b];
        // by holder: what it makes; else what reaches it.
        if (blk.byHolder ? who != e.source : who != e.subject)
          continue;
        if (blk.byHolder && e.subject == e.source && who != e.source)
          continue;
        bool hit = blk.all || (blk.event != kNoId && blk.event == e.kind) ||
                   (blk.tags && carriesAny(activating, blk.tags));
        if (!hit)
          continue;
        if (blk.unless && carriesAny(activating, blk.unless))
          continue;
        if (blk.having && !carriesAll(activating, blk.having))
          continue;
        // having self.VAR: the tag the blocking instance's var holds.
        if (blk.havingVar != kNoId) {
          int64_t tag = vars_[insts_[i].varsAt + blk.havingVar];
          if (tag <= 0 || !((activating.w[(tag - 1) / 64] >> ((tag - 1) % 64)) & 1))
            continue;
        }
        if (!whoMatches(blk.from, e.source, who, i))
          continue;
        return true;
      }
    }
  }
  return false;
}

void Kernel::runBefore(uint32_t ei) {
  Scratch<uint32_t> scratch(scratchIds_);
  std::vector<uint32_t> &cands = *scratch;
  candidates(events_[ei], Phase::Before, cands);
  Scratch<BeforeEntry> scratchEntries(scratchEntries_);
  std::vector<BeforeEntry> &entries = *scratchEntries;
  for (uint32_t i : cands) {
    if (!working(i))
      continue;
    const Instance &in = insts_[i];
    const pack::Effect &ef = t_->effects[in.effect];
    for (uint32_t r = 0; r < ef.ruleCount; ++r) {
      const pack::Rule &rule = t_->rules[ef.rulesBegin + r];
      if (rule.kind != pack::RuleKind::Before)
        continue;
      const Event &e = events_[ei];
      // The kernel's dispatch: the rules hearing this kind of event. The
      // rule's own words are its match body, read as it runs: an earlier rule
      // may have converted or added the portion its having names.
      if (!hearsKind(rule.filter, e))
        continue;
      int64_t order = 0;
      if (ef.orderBody != kNoId) {
        Frame f = frameFor(i, ei, e.chain);
        order = runBody(ef.orderBody, f);
      }
      // Unstaged rules run before the first stage (docs/readings.md 60).
      entries.push_back({rule.stage == kNoId ? 0 : rule.stage + 1, order, in.seq, i, ef.rulesBegin + r});
    }
  }
  std::sort(entries.begin(), entries.end(), [](const BeforeEntry &a, const BeforeEntry &b) {
    if (a.stage != b.stage)
      return a.stage < b.stage;
    if (a.order != b.order)
      return a.order < b.order;
    if (a.seq != b.seq)
      return a.seq < b.seq;
    return a.rule < b.rule;
  });
  for (const BeforeEntry &entry : entries) {
    Event &e = events_[ei];
    if (e.prevented || e.redirectTo != 0 || e.redirectPool != kNoId)
      break;
    if (!insts_[entry.inst].live)
      continue;
    const pack::Rule &rule = t_->rules[entry.rule];
    if (rule.oncePerChain && !pricing_ && actedInChain(entry.rule, entry.inst, e.chain))
      continue;
    Frame f = hearingFrame(entry.inst, ei);
    if (rule.creditHolder) {
      f.roots[LEDGER_SLOT_CREDIT] = insts_[entry.inst].holder;
      f.creditHolder = true;
    }
    // A rule naming a portion's tags acts on those portions alone.
    f.portions = ~0u;
    // Its filter reads the tags of the portions it acts on, not the others'.
    TagBits heard;
    bool narrowed = e.portionCount > 0 && (rule.filter.having || rule.filter.unless);
    if (narrowed) {
      uint32_t mask = 0;
      for (uint32_t p = 0; p < e.portionCount; ++p) {
        if (e.portions[p].gone)
          continue; // taken by an earlier rule: no longer held
        TagBits tb = e.portions[p].tags;
        addTags(tb, t_->tags[Id(BuiltinTag::Damage)].closure);
        for (uint32_t w = 0; w < t_->tagWords; ++w)
          tb.w[w] |= e.tags.w[w];
        // The other portions' types don't count toward this one.
        for (uint32_t q = 0; q < e.portionCount; ++q)
          if (q != p)
            for (uint32_t w = 0; w < t_->tagWords; ++w)
              tb.w[w] &= ~e.portions[q].tags.w[w] | e.portions[p].tags.w[w];
        if ((!rule.filter.having || carriesAll(tb, rule.filter.having)) &&
            (!rule.filter.unless || !carriesAny(tb, rule.filter.unless))) {
          mask |= 1u << p;
          for (uint32_t w = 0; w < t_->tagWords; ++w)
            heard.w[w] |= tb.w[w];
        }
      }
      if (mask == 0)
        continue;
      f.portions = mask;
    }
    if (narrowed)
      std::swap(e.tags, heard);
    bool matches = runBody(rule.matchBody, f) != 0;
    if (narrowed)
      std::swap(events_[ei].tags, heard);
    if (!matches)
      continue;
    // A check's pricing of a cost is no run: the bill as its order goes off is.
    bool counted = covering_ && (!pricing_ || billing_);
    if (counted)
      ++coverage_.heard[entry.rule];
    if (rule.whenBody != kNoId && runBody(rule.whenBody, f) == 0)
      continue;
    // Once per chain: once it has acted, for each instance holding it.
    if (rule.oncePerChain && !pricing_)
      oncePerChain_.push_back({entry.rule, entry.inst, e.chain});
    uint64_t hand = counted ? handDigest(events_[ei]) : 0;
    runSteps(rule.steps, f);
    if (counted) {
      ++coverage_.fired[entry.rule];
      coverage_.changed[entry.rule] += handDigest(events_[ei]) != hand;
    }
  }
}

bool Kernel::actedInChain(uint32_t rule, uint32_t inst, uint32_t chain) const {
  for (const OnceActed &o : oncePerChain_)
    if (o.rule == rule && o.inst == inst && o.chain == chain)
      return true;
  return false;
}

// Death: a pool at its least, where a dies or a falls its holder holds
// hears it; each is a rule hearing an event, so a suspended one hears none.
void Kernel::dieOrFall(uint32_t ei) {
  Event e = events_[ei];
  Handle a = e.subject;
  if (!alive(a))
    return;
  for (uint32_t i : held_[indexOf(a)]) {
    const pack::Effect &ef = t_->effects[insts_[i].effect];
    if (ef.diesPool == e.pool && working(i)) {
      if (ef.diesEvent != kNoId) {
        // Its hearers see it whole; the destroy follows as their after phase
        // ends, or at once where nothing hears it.
        size_t queued = jobs_.size();
        uint32_t d = newEvent(ef.diesEvent, a, e.source, e.credit, e.chain);
        raiseEvent(d);
        if (jobs_.size() == queued) {
          destroyActor(a, e.chain);
          return;
        }
        Job job;
        job.kind = Job::Destroy;
        job.actor = a;
        job.event = d;
        jobs_.push_back(job);
      } else {
        destroyActor(a, e.chain);
      }
      return;
    }
  }
  for (uint32_t i : held_[indexOf(a)]) {
    const pack::Effect &ef = t_->effects[insts_[i].effect];
    if (ef.fallsPool == e.pool && working(i) && !actor(a)->fallen) {
      touch(a);
      actor(a)->fallen = true;
      ++epoch_;
      shapeMoved(a);
      if (ef.fallsEvent != kNoId) {
        uint32_t d = newEvent(ef.fallsEvent, a, e.source, e.credit, e.chain);
        raiseEvent(d);
      }
      return;
    }
  }
}

void Kernel::land(uint32_t ei) {
  Event &e = events_[ei];
  switch (BuiltinEvent(e.kind)) {
  case BuiltinEvent::Change: {
    Handle a = e.subject;
    if (!actor(a) || !hasPool(a, e.pool)) {
      e.refusal = Refusal::NoPool;
      return;
    }
    if (!alive(a)) {
      e.refusal = Refusal::Gone;
      return;
    }
    int64_t least = poolLeast(a, e.pool);
    PoolBounds bounds = landOnPool(e, a); // e.before: the pool as it stood, its drift settled
    bool isSet = carriesAll(e.tags, t_->tags[Id(BuiltinTag::Set)].closure);
    // prevents death: a hit that would leave the pool at its least, where a
    // death hears that pool, lands one above it, and the effect ends Spent.
    if (e.after <= least && e.before > least && !isSet) {
      bool deathHears = false;
      uint32_t preventer = UINT32_MAX;
      for (uint32_t i : held_[indexOf(a)]) {
        const pack::Effect &ef = t_->effects[insts_[i].effect];
        deathHears |= (ef.diesPool == e.pool || ef.fallsPool == e.pool) && working(i);
        if (ef.preventsDeath && working(i) && !insts_[i].ending && preventer == UINT32_MAX)
          preventer = i;
      }
      if (deathHears && preventer != UINT32_MAX && !actor(a)->fallen) {
        size_t slot = size_t(indexOf(a)) * valueCount_ + e.pool;
        pools_[slot] = clampPool(a, e.pool, least + kOne);
        e.after = pools_[slot];
        e.landed = e.before - e.after;
        ++epoch_;
        endInstance(preventer, Id(BuiltinTag::EndSpent), e.chain);
        return;
      }
    }
    // Its Depleted or Filled, raised once the change is journaled and its
    // after rules queued (raiseEvent): the cause comes first.
    if (e.after <= least && e.before > least) {
      e.reached = Id(BuiltinEvent::Depleted);
      // Its own Depleted, not one more for a bound it read moved.
      for (size_t k = boundWatchAt_; k < boundWatch_.size(); ++k)
        if (boundWatch_[k].actor == a && boundWatch_[k].pool == e.pool)
          boundWatch_[k].aboveLeast = false;
    }
    else if (int64_t most = maxSteadyOnLanding(e.pool) ? bounds.most : poolMost(a, e.pool);
             most != INT64_MAX && e.after >= most && e.before < most)
      e.reached = Id(BuiltinEvent::Filled);
    return;
  }
  case BuiltinEvent::Apply:
    if (!alive(e.subject)) {
      e.refusal = Refusal::Gone;
      return;
    }
    // No stacks, as sent or as its before rules left it, or fewer than none
    // of an effect that isn't signed: nothing to put on.
    if (e.stacks == 0 || (e.stacks < 0 && !t_->effects[e.effect].stack.isSigned)) {
      e.refusal = Refusal::NothingToApply;
      return;
    }
    install(e, ei);
    if (covering_ && events_[ei].refusal == Refusal::None)
      ++coverage_.applied[events_[ei].effect];
    return;
  default:
    // A content event of an actor destroyed is refused as a change to it is
    // (docs/readings.md 125); the world's own (a Remove, a Destroy) still
    // tell of it.
    if (e.kind >= Id(BuiltinEvent::Count) && e.subject != 0 && !alive(e.subject)) {
      e.refusal = Refusal::Gone;
      return;
    }
    if (e.kind == t_->turnEvent && e.kind != kNoId)
      turnTaken(e.subject, e.chain);
    return;
  }
}

void Kernel::queueAfter(uint32_t ei) {
  Scratch<uint32_t> scratch(scratchIds_);
  std::vector<uint32_t> &cands = *scratch;
  candidates(events_[ei], Phase::After, cands);
  for (uint32_t i : cands) {
    const Instance &in = insts_[i];
    if (!in.live || !working(i))
      continue;
    const pack::Effect &ef = t_->effects[in.effect];
    for (uint32_t r = 0; r < ef.ruleCount; ++r) {
      const pack::Rule &rule = t_->rules[ef.rulesBegin + r];
      if (rule.kind != pack::RuleKind::After && rule.kind != pack::RuleKind::EndsOn &&
          rule.kind != pack::RuleKind::Each)
        continue;
      if (!hearsKind(rule.filter, events_[ei]))
        continue;
      Frame f = frameFor(i, ei, events_[ei].chain);
      if (runBody(rule.matchBody, f) == 0)
        continue;
      if (covering_)
        ++coverage_.heard[ef.rulesBegin + r];
      Job job;
      job.kind = Job::Rule;
      job.instance = instanceHandle(i);
      job.rule = ef.rulesBegin + r;
      job.event = ei;
      jobs_.push_back(job);
    }
  }
}

void Kernel::runJob(const Job &job) {
  if (job.kind == Job::Destroy) {
    destroyActor(job.actor, events_[job.event].chain);
    return;
  }
  Instance *in = instance(job.instance);
  if (!in)
    return;
  uint32_t inst = indexOf(job.instance);
  if (!working(inst) || !alive(in->holder))
    return;
  const pack::Rule &rule = t_->rules[job.rule];
  const Event &e = events_[job.event];
  if (rule.oncePerChain && actedInChain(job.rule, inst, e.chain))
    return;
  Frame f = hearingFrame(inst, job.event);
  if (rule.creditHolder)
    f.roots[LEDGER_SLOT_CREDIT] = in->holder;
  if (rule.whenBody != kNoId && runBody(rule.whenBody, f) == 0)
    return;
  if (rule.oncePerChain)
    oncePerChain_.push_back({job.rule, inst, e.chain});
  uint64_t journaled = journal_.count();
  switch (rule.kind) {
  case pack::RuleKind::After:
    runRule(job.rule, f);
    return;
  case pack::RuleKind::EndsOn:
    endInstance(inst, Id(BuiltinTag::EndBroken), e.chain, Taking::Stoppable);
    break;
  case pack::RuleKind::Each: {
    int64_t spent = runBody(rule.countBody, f);
    if (spent > 0)
      takeStacks(inst, spent, Id(BuiltinTag::EndSpent), e.chain, Taking::Stoppable);
    break;
  }
  default:
    break;
  }
  if (covering_) {
    ++coverage_.fired[job.rule];
    coverage_.changed[job.rule] += journal_.count() != journaled;
  }
}

// Lifetimes counted in events: each matching event lands one off.
void Kernel::countDown(uint32_t ei) {
  if (counting_ == 0)
    return;
  Scratch<uint32_t> scratch(scratchIds_);
  std::vector<uint32_t> &cands = *scratch;
  candidates(events_[ei], Phase::Count, cands);
  for (uint32_t i : cands) {
    Instance &in = insts_[i];
    if (!in.live || in.countLeft <= 0)
      continue;
    const pack::Effect &ef = t_->effects[in.effect];
    const Event &e = events_[ei];
    bool counts;
    if (in.countEvent != kNoId)
      counts = e.kind == in.countEvent && e.subject == in.holder && !e.prevented;
    else if (in.countTag != kNoId)
      counts = ((e.tags.w[in.countTag / 64] >> (in.countTag % 64)) & 1) && e.subject == in.holder &&
               !e.prevented;
    else if (ef.lasts.kind == pack::LastsKind::Count && hearsKind(ef.lasts.countFilter, e)) {
      Frame f = frameFor(i, ei, e.chain);
      counts = runBody(ef.lasts.countMatchBody, f) != 0;
    }
    else
      counts = false;
    if (e.kind == Id(BuiltinEvent::Apply) && e.instance == instanceHandle(i))
      counts = false; // its own Apply doesn't count
    if (!counts)
      continue;
    if (--in.countLeft == 0)
      endInstance(i, Id(BuiltinTag::EndExpired), e.chain);
  }
}

void Kernel::turnTaken(Handle a, uint32_t chain) {
  if (!alive(a))
    return;
  std::vector<uint32_t> ending;
  for (uint32_t i : held_[indexOf(a)]) {
    Instance &in = insts_[i];
    if (in.turnsLeft > 0 && --in.turnsLeft == 0)
      ending.push_back(i);
  }
  for (uint32_t i : ending)
    endInstance(i, Id(BuiltinTag::EndExpired), chain);
}

void Kernel::journalEvent(const Event &e) {
  JournalEntry j;
  j.tick = now_;
  j.event = e.kind;
  j.subject = e.subject;
  j.source = e.source;
  j.credit = e.credit;
  j.effect = e.effect;
  j.ability = e.ability;
  j.pool = e.pool;
  j.amount = e.kind == Id(BuiltinEvent::Apply) || e.kind == Id(BuiltinEvent::Remove) ? e.stacks : e.amount;
  j.landed = e.landed;
  j.prevented = e.prevented;
  journal_.record(j, e.tags.w, nullptr);
}

// The Depleted or Filled a change's landing set off, and the death hearing it.
void Kernel::raiseReached(uint32_t ei) {
  const Event &change = events_[ei];
  uint32_t d = newEvent(change.reached, change.subject, change.source, change.credit, change.chain);
  events_[d].pool = events_[ei].pool;
  if (raiseEvent(d) == Refusal::None && events_[d].kind == Id(BuiltinEvent::Depleted))
    dieOrFall(d);
}

// The portions a before rule sent on from a change, each raised as the
// change it would have been, once the rest has landed.
void Kernel::raiseSentOn(uint32_t ei) {
  for (size_t k = 0; k < sentOn_.size(); ++k)
    if (sentOn_[k].first == ei) {
      uint32_t part = sentOn_[k].second;
      sentOn_.erase(sentOn_.begin() + std::ptrdiff_t(k--));
      raiseEvent(part);
    }
}

// One event through the pipeline: refused if blocked, changed by before
// rules, landed, journaled, its after rules queued.
// An event counted against its chain's budget, as it is raised or, a Remove
// heard before its instance comes off, as its before rules hear it; false:
// the chain is past its budget, and the world has ended it.
bool Kernel::withinBudget(uint32_t ei) {
  uint32_t chain = events_[ei].chain;
  // A chain lives within its moment: its count is the moment's.
  size_t at = chain >= chainBase_ ? chain - chainBase_ : 0;
  if (at >= chainCounts_.size())
    chainCounts_.resize(at + 1, 0);
  // Nested as deep as the host's thread's stack holds: ended as its budget
  // ends it (runtime/thread_stack.h).
  if (chainCounts_[at] <= kChainBudget && stackRunningOut(__builtin_frame_address(0), stackLow_)) {
    fault(Refusal::ChainBudget,
          std::string("a chain nested deeper than the host thread's stack holds, and the world "
                      "ended it") +
              (rulesName_ != kNoId ? " in " + std::string(t_->name(rulesName_)) : ""));
    chainCounts_[at] = kChainBudget + 1;
    return false;
  }
  if (++chainCounts_[at] > kChainBudget) {
    if (chainCounts_[at] == kChainBudget + 1)
      fault(Refusal::ChainBudget,
            "a chain raised more than " + std::to_string(kChainBudget) +
                " events, and the world ended it" +
                (rulesName_ != kNoId ? " in " + std::string(t_->name(rulesName_)) : ""));
    return false;
  }
  return true;
}

// A repeat's runs counted against its chain's budget: as many as are left.
int64_t Kernel::apiRepeat(Frame &f, int64_t times) {
  size_t at = f.chain >= chainBase_ ? f.chain - chainBase_ : 0;
  if (at >= chainRepeats_.size())
    chainRepeats_.resize(at + 1, 0);
  uint32_t &ran = chainRepeats_[at];
  int64_t left = int64_t(LEDGER_REPEAT_BUDGET) - int64_t(std::min<uint32_t>(ran, LEDGER_REPEAT_BUDGET));
  if (times <= left) {
    ran += uint32_t(times);
    return times;
  }
  if (ran <= LEDGER_REPEAT_BUDGET)
    fault(Refusal::ChainBudget,
          "a chain repeated steps more than " + std::to_string(LEDGER_REPEAT_BUDGET) +
              " times, and the world ended its repeats" +
              (rulesName_ != kNoId ? " in " + std::string(t_->name(rulesName_)) : ""));
  ran = LEDGER_REPEAT_BUDGET + 1;
  return left;
}

Refusal Kernel::raiseEvent(uint32_t ei) {
  bool counted = events_[ei].kind == Id(BuiltinEvent::Remove) && events_[ei].beforeHeard;
  if (!counted && !withinBudget(ei))
    return Refusal::ChainBudget;
  {
    Event &e = events_[ei];
    e.sent = e.amount;
    if (inPreventedChain(e))
      return Refusal::Prevented;
    if (blocks(e)) {
      e.refusal = Refusal::Blocked;
      return Refusal::Blocked;
    }
  }
  if (!events_[ei].beforeHeard) {
    runBefore(ei);
    // A Remove raised once its instance has come off whatever a rule says
    // (its lifetime ran out, a newcomer took its place, …): what its before
    // rules did to it changes nothing (docs/readings.md 142).
    if (events_[ei].kind == Id(BuiltinEvent::Remove)) {
      Event &forced = events_[ei];
      forced.prevented = false;
      forced.amount = forced.stacks = forced.sent;
    }
  }
  Event &e = events_[ei];
  if (e.redirectTo != 0 || e.redirectPool != kNoId) {
    // Sent on as the change it would have been, caused by it.
    Event copy = e;
    e.prevented = true;
    journalEvent(e);
    uint32_t r = newEvent(copy.kind, copy.redirectTo ? copy.redirectTo : copy.subject,
                          copy.source, copy.credit, copy.chain);
    Event &re = events_[r];
    re = copy;
    re.subject = copy.redirectTo ? copy.redirectTo : copy.subject;
    re.pool = copy.redirectPool != kNoId ? copy.redirectPool : copy.pool;
    re.redirectTo = 0;
    re.redirectPool = kNoId;
    re.prevented = false;
    raiseSentOn(ei);
    return raiseEvent(r);
  }
  if (e.prevented) {
    journalEvent(e);
    queueAfter(ei);
    countDown(ei); // a count whose filter says prevented hears it
    raiseSentOn(ei);
    return Refusal::Prevented;
  }
  land(ei);
  Event &landed = events_[ei];
  if (landed.refusal != Refusal::None) {
    Refusal refusal = landed.refusal;
    raiseSentOn(ei); // what a rule sent on goes, whatever the rest meets here
    return refusal;
  }
  journalEvent(landed);
  queueAfter(ei);
  countDown(ei);
  runStart(ei);
  if (events_[ei].reached != kNoId) {
    if (deferReached_)
      reachedLater_.push_back(ei); // a bill's: once its last cost has landed
    else
      raiseReached(ei);
  }
  if (boundWatchAt_ < boundWatch_.size()) {
    const Event &done = events_[ei];
    reachBounds(done.source, done.credit, done.chain);
  }
  raiseSentOn(ei);
  return Refusal::None;
}

} // namespace ledger::rt

// Which catalogs the compiled engine's machinery runs: every form it
// specialises, and for any other, the words naming it. A catalog using one
// it doesn't runs on the generic kernel with its compiled bodies, each of
// its events counted as a fallback (docs/unsupported.md).
#include "codegen/machinery/machinery.h"

#include "kernel/pack_index.h"

#include <algorithm>
#include <set>

namespace ledger::codegen {

using pack::ActionOp;
using pack::ReadOp;
using namespace pack::flags;

std::vector<std::string> genericBecause(const pack::Tables &t) {
  std::set<std::string> why;
  rt::PackIndex ix = rt::indexPack(t);
  if (t.timeStat != pack::kNoId)
    why.insert("a time stat (`time STAT`)");
  if (!t.props.empty())
    why.insert("properties (`prop`)");
  if (t.categories.size() > 64)
    why.insert("more than 64 categories");
  if (ix.anyCarried)
    why.insert("carried tags (`tags … carried`)");
  if (!ix.readerPools.empty())
    why.insert("a pool whose bound or drift reads beyond its holder's own stats");
  for (const pack::Value &v : t.values)
    if (v.byType || v.member != pack::kNoId)
      why.insert("a stat by type (`stat NAME by type`)");
  for (pack::Id e = 0; e < t.effects.size(); ++e) {
    const pack::Effect &ef = t.effects[e];
    if (ef.stack.mode == pack::StackMode::Separate)
      why.insert("separate stacks (`stack separate`)");
    if (ef.stack.perSource)
      why.insert("stacks per source (`per source`)");
    if (ef.blockCount)
      why.insert("blocks (`blocks`)");
    if (ef.suspendsAll)
      why.insert("suspensions (`suspends`)");
    if (ef.overrideCount)
      why.insert("link overrides");
    if (ef.exclusive)
      why.insert("exclusive effects (`exclusive`)");
    if (ef.clock == pack::ClockKind::Stat)
      why.insert("an effect's own clock (`clock STAT`)");
    if (ef.fallsPool != pack::kNoId)
      why.insert("falling (`falls at`)");
    if (ef.grantVarCount)
      why.insert("a grant a var names (`grants self.VAR`)");
    if (ix.wideEffect[e])
      why.insert("a rule hearing more than its holder's own events");
    for (uint32_t m = 0; m < ef.modifierCount; ++m)
      if (t.modifiers[ef.modifiersBegin + m].captured)
        why.insert("a term kept as it goes on (one reading another actor)");
  }
  for (const pack::Ability &ab : t.abilities) {
    if (ab.takeCount)
      why.insert("properties an ability takes (`takes`)");
    if (ab.target == pack::TargetKind::Point || ab.target == pack::TargetKind::Direction)
      why.insert("a point or a direction as a target");
  }
  for (const pack::AutoGrant &g : t.autos)
    if (g.keyCount)
      why.insert("an auto ranking its targets (`auto by …`)");
  for (const pack::Read &r : t.reads)
    switch (r.op) {
    case ReadOp::ValueExcept:
      why.insert("a stat read without some of its terms (`except`)");
      break;
    case ReadOp::ArchetypeStat:
      why.insert("an archetype's stat (`ARCHETYPE.STAT`)");
      break;
    case ReadOp::TagOf:
      why.insert("`tag(ABILITY, TAG)`");
      break;
    case ReadOp::EventProp:
      why.insert("properties (`prop`)");
      break;
    case ReadOp::EventField:
      if (pack::EventField(r.a) == pack::EventField::X)
        why.insert("`event.X`");
      break;
    default:
      break;
    }
  for (const pack::Action &a : t.actions) {
    switch (a.op) {
    case ActionOp::Create:
      why.insert("`create`");
      break;
    case ActionOp::Revive:
      why.insert("`revive`");
      break;
    case ActionOp::SetLink:
      why.insert("a step setting a link");
      break;
    case ActionOp::ScaleDuration:
    case ActionOp::AddDuration:
    case ActionOp::AtMostDuration:
      why.insert("a step changing a duration");
      break;
    case ActionOp::Convert:
      why.insert("`convert`");
      break;
    case ActionOp::SetProp:
      why.insert("properties (`prop`)");
      break;
    case ActionOp::Redirect:
      why.insert("`redirect`");
      break;
    case ActionOp::Cast:
      if (a.flags & (kAgain | kGranted))
        why.insert(a.flags & kAgain ? "`cast event.ability again`" : "`cast granted`");
      break;
    default:
      break;
    }
    if (a.flags & kTagInVar)
      why.insert("a type a var holds");
    if (a.withCount && a.op != ActionOp::Apply)
      why.insert("properties given with a step (`with`)");
    if (a.op == ActionOp::Apply && a.withCount > 16)
      why.insert("more than 16 vars given with an apply");
  }
  return {why.begin(), why.end()};
}

} // namespace ledger::codegen

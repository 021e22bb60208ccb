// The actors in play filed by side, so that a search or an auto's target by
// side walks the sides it takes rather than every actor ever made. Built as
// first asked, then brought up to date from the actors whose shape moved.
#include "world.h"

#include <algorithm>

namespace ledger::cw {

Handle World::sideOf(uint32_t ai) const {
  const ActorHead &ac = row(ai);
  if (!ac.live || ac.fallen)
    return kUnfiled;
  return shape().allegiance != kNoId ? linkOf(actorHandle(ai), shape().allegiance) : 0;
}

void World::fileAgain(uint32_t ai) {
  if (refileListed_.size() <= ai)
    refileListed_.resize(actors_.size(), 0);
  if (!refileListed_[ai]) {
    refileListed_[ai] = 1;
    toRefile_.push(ai);
  }
}

void World::fileSides() {
  if (!sidesKept_ || sidesAllStale_) {
    sidesKept_ = true;
    sidesAllStale_ = false;
    sideFiles_.clear();
    filedUnder_.clear();
    filedUnder_.resize(actors_.size(), kUnfiled);
    for (uint32_t ai : toRefile_)
      refileListed_[ai] = 0;
    toRefile_.clear();
    for (uint32_t ai = 0; ai < actors_.size(); ++ai)
      refile(ai);
    return;
  }
  filedUnder_.resize(actors_.size(), kUnfiled);
  for (uint32_t ai : toRefile_) {
    refileListed_[ai] = 0;
    refile(ai);
  }
  toRefile_.clear();
}

// Files an actor where it stands now: out of its old file, into the one of
// the side it names if it is in play.
void World::refile(uint32_t ai) {
  Handle side = sideOf(ai);
  Handle was = filedUnder_[ai];
  if (side == was)
    return;
  auto fileOf = [&](Handle s) -> uint32_t {
    for (uint32_t k = 0; k < sideFiles_.size(); ++k)
      if (sideFiles_[k].side == s)
        return k;
    return kNone;
  };
  if (was != kUnfiled) {
    uint32_t k = fileOf(was);
    Vec<uint32_t> &members = sideFiles_[k].members;
    uint32_t *at = std::lower_bound(members.begin(), members.end(), ai);
    members.eraseAt(uint32_t(at - members.begin()));
    if (members.empty()) {
      sideFiles_[k].side = sideFiles_.back().side;
      sideFiles_[k].members.swap(sideFiles_.back().members);
      sideFiles_.pop();
    }
  }
  filedUnder_[ai] = side;
  if (side == kUnfiled)
    return;
  uint32_t k = fileOf(side);
  if (k == kNone) {
    sideFiles_.push(SideFile{side, {}});
    k = sideFiles_.size() - 1;
  }
  Vec<uint32_t> &members = sideFiles_[k].members;
  // Actors are mostly filed as they are made, at the end.
  if (members.empty() || members.back() < ai)
    members.push(ai);
  else
    members.insertAt(uint32_t(std::lower_bound(members.begin(), members.end(), ai) - members.begin()), ai);
}

// The files a search takes: the others' sides for enemies, the searcher's
// own for allies, every one for all actors; one with no side is its own
// only ally and nobody's enemy, as allies() and enemies() part them.
World::SideWalk::SideWalk(World &world, pack::Subject whom, Handle from)
    : w_(world), cursorsAt_(world.scratchIds_.size()), cursorsEnd_(cursorsAt_) {
  w_.fileSides();
  bool bySide = whom == pack::Subject::Enemies || whom == pack::Subject::Allies ||
                whom == pack::Subject::OtherAllies;
  Handle fromSide =
      bySide && shape().allegiance != kNoId ? w_.linkOf(from, shape().allegiance) : 0;
  if (bySide && fromSide == 0) {
    if (whom == pack::Subject::Allies && w_.actor(from) &&
        w_.filedUnder_[indexOf(from)] != kUnfiled)
      only_ = indexOf(from);
    return;
  }
  if (whom == pack::Subject::OtherAllies || whom == pack::Subject::Others)
    skip_ = w_.actor(from) ? indexOf(from) : kNone;
  for (uint32_t k = 0; k < w_.sideFiles_.size(); ++k) {
    Handle side = w_.sideFiles_[k].side;
    bool takes = whom == pack::Subject::Enemies ? side != 0 && side != fromSide
                 : bySide                       ? side == fromSide
                                                : true;
    if (takes) {
      w_.scratchIds_.push(k);
      w_.scratchIds_.push(0);
    }
  }
  cursorsEnd_ = w_.scratchIds_.size();
}

uint32_t World::SideWalk::next() {
  if (only_ != kNone) {
    uint32_t i = only_;
    only_ = kNone;
    return i;
  }
  for (;;) {
    // The lowest index at any file's cursor: the files merged in actor order.
    uint32_t end = cursorsEnd_;
    uint32_t best = end, lowest = kNone;
    for (uint32_t k = cursorsAt_; k < end; k += 2) {
      const Vec<uint32_t> &members = w_.sideFiles_[w_.scratchIds_[k]].members;
      uint32_t at = w_.scratchIds_[k + 1];
      if (at < members.size() && members[at] < lowest) {
        lowest = members[at];
        best = k;
      }
    }
    if (best == end)
      return kNone;
    ++w_.scratchIds_[best + 1];
    if (lowest != skip_)
      return lowest;
  }
}

} // namespace ledger::cw

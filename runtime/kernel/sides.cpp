// The actors in play filed by side, so that a search or an auto's target by
// side walks the sides it takes rather than every actor ever made.
#include "kernel.h"

#include <algorithm>

namespace ledger::rt {

using pack::kNoId;

// Who is in play or on which side moved at `a` (0: anyone's, a global link
// set): it is filed again as the files are next asked for.
void Kernel::fileAgain(Handle a) {
  if (a == 0) {
    sidesAllStale_ = true;
    return;
  }
  uint32_t i = indexOf(a);
  if (i >= refileListed_.size())
    refileListed_.resize(actors_.size(), 0);
  if (!refileListed_[i]) {
    refileListed_[i] = 1;
    toRefile_.push_back(i);
  }
}

void Kernel::fileSides() {
  if (!sidesKept_ || sidesAllStale_) {
    sidesKept_ = true;
    sidesAllStale_ = false;
    sideFiles_.clear();
    filedUnder_.assign(actors_.size(), kUnfiled);
    for (uint32_t i : toRefile_)
      refileListed_[i] = 0;
    toRefile_.clear();
    for (uint32_t i = 0; i < actors_.size(); ++i)
      refile(i);
    return;
  }
  filedUnder_.resize(actors_.size(), kUnfiled);
  for (uint32_t i : toRefile_) {
    refileListed_[i] = 0;
    refile(i);
  }
  toRefile_.clear();
}

// Files an actor where it stands now: out of its old file, into the one of
// the side it names if it is in play.
void Kernel::refile(uint32_t i) {
  const Actor &ac = actors_[i];
  Handle side = kUnfiled;
  if (ac.live && !ac.fallen)
    side = t_->allegiance != kNoId ? linkOf(handle(i, ac.gen), t_->allegiance) : 0;
  Handle was = filedUnder_[i];
  if (side == was)
    return;
  auto fileOf = [&](Handle s) {
    return std::find_if(sideFiles_.begin(), sideFiles_.end(),
                        [&](const SideFile &file) { return file.side == s; });
  };
  if (was != kUnfiled) {
    auto file = fileOf(was);
    auto at = std::lower_bound(file->members.begin(), file->members.end(), i);
    file->members.erase(at);
    if (file->members.empty()) {
      *file = std::move(sideFiles_.back());
      sideFiles_.pop_back();
    }
  }
  filedUnder_[i] = side;
  if (side == kUnfiled)
    return;
  auto file = fileOf(side);
  if (file == sideFiles_.end()) {
    sideFiles_.push_back({side, {}});
    file = sideFiles_.end() - 1;
  }
  // Actors are mostly filed as they are made, at the end.
  if (file->members.empty() || file->members.back() < i)
    file->members.push_back(i);
  else
    file->members.insert(std::lower_bound(file->members.begin(), file->members.end(), i), i);
}

// The files a search takes: the others' sides for enemies, the searcher's
// own for allies, every one for all actors; one with no side is its own
// only ally and nobody's enemy, as allies() and enemies() part them.
Kernel::SideWalk::SideWalk(Kernel &world, pack::Subject whom, Handle from)
    : w_(world), cursors_(world.scratchIds_) {
  w_.fileSides();
  bool bySide = whom == pack::Subject::Enemies || whom == pack::Subject::Allies ||
                whom == pack::Subject::OtherAllies;
  Handle fromSide =
      bySide && w_.t_->allegiance != kNoId ? w_.linkOf(from, w_.t_->allegiance) : 0;
  if (bySide && fromSide == 0) {
    if (whom == pack::Subject::Allies && w_.actor(from) && w_.filedUnder_[indexOf(from)] != kUnfiled)
      only_ = indexOf(from);
    return;
  }
  if (whom == pack::Subject::OtherAllies || whom == pack::Subject::Others)
    skip_ = w_.actor(from) ? indexOf(from) : kEnd;
  for (uint32_t k = 0; k < w_.sideFiles_.size(); ++k) {
    Handle side = w_.sideFiles_[k].side;
    bool takes = whom == pack::Subject::Enemies ? side != 0 && side != fromSide
                 : bySide                       ? side == fromSide
                                                : true;
    if (takes) {
      cursors_->push_back(k);
      cursors_->push_back(0);
    }
  }
}

uint32_t Kernel::SideWalk::next() {
  if (only_ != kEnd) {
    uint32_t i = only_;
    only_ = kEnd;
    return i;
  }
  std::vector<uint32_t> &c = *cursors_;
  for (;;) {
    // The lowest index at any file's cursor: the files merged in actor order.
    size_t best = c.size();
    uint32_t lowest = kEnd;
    for (size_t k = 0; k < c.size(); k += 2) {
      const std::vector<uint32_t> &members = w_.sideFiles_[c[k]].members;
      if (c[k + 1] < members.size() && members[c[k + 1]] < lowest) {
        lowest = members[c[k + 1]];
        best = k;
      }
    }
    if (best == c.size())
      return kEnd;
    ++c[best + 1];
    if (lowest != skip_)
      return lowest;
  }
}

} // namespace ledger::rt

#include "journal.h"

namespace ledger::rt {

void Journal::record(JournalEntry &j, const uint64_t *tags, const std::string *note) {
  ++count_;
  if (mode_ == JournalMode::Off)
    return;
  // A word at a time: multiply, then fold the high bits down.
  auto mix = [&](uint64_t v) {
    hash_ = (hash_ ^ v) * 0x9e3779b97f4a7c15ull;
    hash_ ^= hash_ >> 29;
  };
  for (uint64_t v : {uint64_t(j.tick), uint64_t(j.amount), uint64_t(j.landed), uint64_t(j.subject),
                     uint64_t(j.source), uint64_t(j.credit), uint64_t(j.event), uint64_t(j.effect),
                     uint64_t(j.ability), uint64_t(j.pool), uint64_t(j.prevented), uint64_t(j.fault)})
    mix(v);
  for (uint32_t w = 0; tags && w < tagWords_; ++w)
    mix(tags[w]);
  if (note)
    for (char c : *note)
      mix(uint8_t(c));
  if (mode_ != JournalMode::Keep)
    return;
  keep(j, tags, note);
}

void Journal::keep(JournalEntry &j, const uint64_t *tags, const std::string *note) {
  j.tagsAt = uint32_t(tags_.size());
  if (tags)
    tags_.insert(tags_.end(), tags, tags + tagWords_);
  else
    tags_.insert(tags_.end(), tagWords_, 0);
  if (note) {
    j.note = uint32_t(notes_.size());
    notes_.push_back(*note);
  }
  entries_.push_back(j);
}

void Journal::fault(int64_t tick, const std::string &note) {
  JournalEntry j;
  j.tick = tick;
  j.fault = true;
  record(j, nullptr, &note);
}

bool Journal::holds(const pack::Tables &t, std::string &why) const {
  if (mode_ != JournalMode::Keep && mode_ != JournalMode::HashOnly && mode_ != JournalMode::Off) {
    why = "the save is damaged: a journal kept in no way the world has";
    return false;
  }
  auto names = [](pack::Id id, size_t count) { return id == pack::kNoId || id < count; };
  for (size_t i = 0; i < entries_.size(); ++i) {
    const JournalEntry &j = entries_[i];
    bool fits = j.tagsAt <= tags_.size() && tags_.size() - j.tagsAt >= tagWords_ &&
                (j.fault ? j.note < notes_.size()
                         : j.event < t.events.size() && names(j.effect, t.effects.size()) &&
                               names(j.ability, t.abilities.size()) && names(j.pool, t.values.size()));
    if (!fits) {
      why = "the save is damaged: journal entry " + std::to_string(i) +
            " names what its pack or its journal lacks";
      return false;
    }
  }
  return true;
}

} // namespace ledger::rt

// The journal: every event that landed or was stopped, and every fault, in
// order. Kept whole, hashed, or only counted, as the host asks; the same
// for both engines, so their journals compare entry for entry.
#pragma once

#include "host_types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ledger::rt {

// One line of the journal: an event as it landed (or was stopped), a fault.
// Plain data: a journal is a flat array a host can stream or keep.
struct JournalEntry {
  int64_t tick = 0;
  int64_t amount = 0, landed = 0;
  Handle subject = 0, source = 0, credit = 0;
  pack::Id event = pack::kNoId;
  pack::Id effect = pack::kNoId; // an Apply's or a Remove's effect
  pack::Id ability = pack::kNoId;
  pack::Id pool = pack::kNoId;
  uint32_t tagsAt = 0;            // its tags: tagWords words at Journal::tags()[tagsAt]
  uint32_t note = pack::kNoId;    // a fault's words: Journal::note(note)
  bool prevented = false;
  bool fault = false;
};

// What the world keeps of its journal: every entry, only their count and a
// running hash of them (a long run, a server checking lockstep), or only
// their count (a shipping game that reads nothing of it).
enum class JournalMode : uint8_t { Keep, HashOnly, Off };

class Journal {
public:
  explicit Journal(uint32_t tagWords = 1) : tagWords_(tagWords) {}

  // Every entry is counted; hashed unless the journal is off; kept in Keep
  // mode. `tags` holds tagWords words, or is null for none.
  void record(JournalEntry &entry, const uint64_t *tags, const std::string *note);
  void fault(int64_t tick, const std::string &note);
  // An entry another counted and hashed (a compiled world), kept.
  void keep(JournalEntry &entry, const uint64_t *tags, const std::string *note);

  void setMode(JournalMode mode) { mode_ = mode; }
  JournalMode mode() const { return mode_; }
  const std::vector<JournalEntry> &entries() const { return entries_; }
  const std::vector<uint64_t> &tags() const { return tags_; }
  const std::string &note(uint32_t note) const { return notes_[note]; }
  // A host streaming the journal reads the entries kept, then forgets them,
  // so a long run holds only what it has not read; the count and the hash go
  // on.
  void forget() {
    entries_.clear();
    tags_.clear();
    notes_.clear();
  }
  uint64_t count() const { return count_; }
  uint64_t hash() const { return hash_; }
  uint32_t tagWords() const { return tagWords_; }

  // A save walks these fields in this order (bytes.h's Reader and Writer).
  template <typename IO> void walk(IO &io) {
    io.each(entries_, [&](JournalEntry &j) {
      io.pods(j.tick, j.amount, j.landed, j.subject, j.source, j.credit, j.event, j.effect,
              j.ability, j.pool, j.tagsAt, j.note, j.prevented, j.fault);
    });
    io.vec(tags_);
    io.strings(notes_);
    io.pods(mode_, count_, hash_);
  }
  // Whether what a save read holds together, every id an entry holds one
  // of the pack's; false, with why, if not.
  bool holds(const pack::Tables &t, std::string &why) const;

private:
  uint32_t tagWords_;
  std::vector<JournalEntry> entries_;
  std::vector<uint64_t> tags_;
  std::vector<std::string> notes_;
  JournalMode mode_ = JournalMode::Keep;
  uint64_t count_ = 0;
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

} // namespace ledger::rt

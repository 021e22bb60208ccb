// The timer queue: what is due, by the tick it fires on, then the order
// timerLater gives within a tick. A wheel of a bucket a tick for the ticks
// just ahead holds most timers (lifetimes, every rules, cooldowns, crossings
// a few seconds off): a timer goes on by appending it to its tick's bucket,
// a list through one pool of nodes (so the wheel holds what is queued, not
// each tick's most ever), and a tick's bucket is sorted once as the tick
// comes, mostly in order already. Those further off wait in a heap and move
// into the wheel as it turns to them. A tick with nothing due costs
// nothing: the next occupied bucket is found by its bit.
#pragma once

#include "vec.h"

#include <algorithm>

namespace ledger::cw {

enum class TimerKind : uint8_t { Expire, Every, PoolBound, AutoWake };
struct Timer {
  int64_t due; // world time (millionths of a unit)
  int64_t at;  // the tick it fires on
  uint64_t seq;
  int64_t instance; // PoolBound: the actor
  uint32_t rule;    // PoolBound: the pool
  uint32_t version;
  uint8_t phase;
  TimerKind kind;
};

// Whether a is due after b: by the tick it fires on, then what runs first
// within a tick (a time expires after anything else due then), then its
// exact time, then the order instances went on (crossings first, by their
// actors' slots, reading 157), then one instance's every rules or one
// actor's pools as written (reading 153).
inline bool timerLater(const Timer &a, const Timer &b) {
  if (a.at != b.at)
    return a.at > b.at;
  if (a.phase != b.phase)
    return a.phase > b.phase;
  if (a.due != b.due)
    return a.due > b.due;
  if (a.seq != b.seq)
    return a.seq > b.seq;
  if (uint32_t(a.instance) != uint32_t(b.instance))
    return uint32_t(a.instance) > uint32_t(b.instance);
  return a.rule > b.rule;
}

class TimerQueue {
public:
  static constexpr uint32_t kTicks = 512; // the wheel's reach, in ticks
  static constexpr uint32_t kWords = kTicks / 64;


  bool empty() const { return count_ == 0; }
  uint32_t size() const { return count_; }

  void push(const Timer &t) {
    ++count_;
    if (t.at <= current_) {
      // Due on the tick under way, or before it: in its place among what
      // that tick has left to run.
      const Timer *at = std::lower_bound(run_.begin() + runAt_, run_.end(), t,
                                         [](const Timer &x, const Timer &y) { return timerLater(y, x); });
      run_.insertAt(uint32_t(at - run_.begin()), t);
    } else if (t.at < current_ + 1 + int64_t(kTicks)) {
      uint32_t b = uint32_t(t.at) & (kTicks - 1);
      uint32_t node;
      if (!free_.empty()) {
        node = free_.back();
        free_.pop();
        nodes_[node] = {t, 0};
      } else {
        node = nodes_.size();
        nodes_.push({t, 0});
      }
      // Appended to its kind's list: each kind's pushed mostly in order, as
      // instances go on and rules run in order (crossings aside).
      uint32_t list = b * kLists + listOf(t);
      if (tail_[list])
        nodes_[tail_[list] - 1].next = node + 1;
      else
        head_[list] = node + 1;
      tail_[list] = node + 1;
      occupied_[b / 64] |= uint64_t(1) << (b % 64);
      ++inWheel_;
    } else {
      far_.push(t);
      std::push_heap(far_.begin(), far_.end(), timerLater);
    }
  }

  // The tick the soonest timer fires on, if it is `upTo` or sooner.
  bool soonest(int64_t upTo, int64_t &tick) {
    if (runAt_ < run_.size()) {
      tick = run_[runAt_].at;
      return tick <= upTo;
    }
    if (inWheel_) {
      tick = nextOccupied();
      return tick <= upTo;
    }
    if (!far_.empty()) {
      tick = far_[0].at;
      return tick <= upTo;
    }
    return false;
  }

  // The next timer due by `tick`, in order; false when none is.
  bool pop(int64_t tick, Timer &out) {
    if (runAt_ == run_.size() && !load(tick))
      return false;
    if (run_[runAt_].at > tick)
      return false;
    out = run_[runAt_++];
    --count_;
    if (runAt_ == run_.size()) {
      run_.clear();
      runAt_ = 0;
    }
    return true;
  }

  // Time has come to `now` with nothing left due by it: the wheel turns
  // there, so it reaches as far ahead of now as it can.
  void settle(int64_t now) {
    if (runAt_ == run_.size() && now > current_) {
      current_ = now;
      migrate();
    }
  }

  // Every timer queued, in no order: what a save writes.
  template <typename F> void each(F f) const {
    for (uint32_t k = runAt_; k < run_.size(); ++k)
      f(run_[k]);
    for (uint32_t list = 0; list < kTicks * kLists; ++list)
      for (uint32_t n = head_[list]; n; n = nodes_[n - 1].next)
        f(nodes_[n - 1].timer);
    for (const Timer &t : far_)
      f(t);
  }
  // Emptied, the tick under way the one given: a save read back pushes its
  // timers again.
  void reset(int64_t current) {
    run_.clear();
    runAt_ = 0;
    nodes_.clear();
    free_.clear();
    for (uint32_t list = 0; list < kTicks * kLists; ++list)
      head_[list] = tail_[list] = 0;
    for (uint64_t &w : occupied_)
      w = 0;
    far_.clear();
    count_ = inWheel_ = 0;
    current_ = current;
  }

private:
  // The soonest occupied tick of the wheel, which holds some: its bits read
  // round from the tick after the one under way, that word's own first.
  int64_t nextOccupied() const {
    constexpr uint32_t mask = kTicks - 1;
    uint32_t start = uint32_t(current_ + 1) & mask;
    uint32_t word = start / 64;
    uint64_t bits = occupied_[word] & (~uint64_t(0) << (start % 64));
    for (uint32_t k = 0; k <= kWords; ++k) {
      if (bits) {
        uint32_t found = word * 64 + uint32_t(__builtin_ctzll(bits));
        return current_ + 1 + int64_t((found - start) & mask);
      }
      word = (word + 1) % kWords;
      bits = occupied_[word];
    }
    return INT64_MAX;
  }

  // Makes the soonest tick due by `tick` the one under way: its bucket
  // sorted into the run. False when nothing is due by then.
  bool load(int64_t tick) {
    for (;;) {
      if (inWheel_) {
        int64_t next = nextOccupied();
        if (next > tick)
          return false;
        uint32_t b = uint32_t(next) & (kTicks - 1);
        // Each list sorted on its own, then the crossings and the every
        // rules (both run first within a tick) merged; the lifetimes and
        // the autos' wakes after them, as timerLater orders them.
        run_.clear();
        uint32_t ends[kLists];
        for (uint32_t k = 0; k < kLists; ++k) {
          uint32_t from = run_.size();
          uint32_t list = b * kLists + k;
          for (uint32_t n = head_[list]; n;) {
            run_.push(nodes_[n - 1].timer);
            free_.push(n - 1);
            n = nodes_[n - 1].next;
          }
          head_[list] = tail_[list] = 0;
          if (k == 0)
            sortCrossings(from, run_.size());
          else
            sortRange(from, run_.size());
          ends[k] = run_.size();
        }
        if (ends[0] > 0 && ends[1] > ends[0] && timerLater(run_[ends[0] - 1], run_[ends[0]]))
          merge(ends[0], ends[1]);
        if (!std::is_sorted(run_.begin(), run_.end(),
                            [](const Timer &x, const Timer &y) { return timerLater(y, x); }))
          sortRange(0, run_.size());
        occupied_[b / 64] &= ~(uint64_t(1) << (b % 64));
        inWheel_ -= run_.size();
        runAt_ = 0;
        current_ = next;
        migrate();
        return true;
      }
      if (far_.empty() || far_[0].at > tick)
        return false;
      // Nothing in the wheel: it turns to the soonest far timer.
      current_ = far_[0].at - 1;
      migrate();
    }
  }

  // run_[0, mid) and run_[mid, end), each in order, into one.
  void merge(uint32_t mid, uint32_t end) {
    merged_.clear();
    uint32_t a = 0, b = mid;
    while (a < mid && b < end)
      merged_.push(timerLater(run_[a], run_[b]) ? run_[b++] : run_[a++]);
    while (a < mid)
      merged_.push(run_[a++]);
    while (b < end)
      merged_.push(run_[b++]);
    for (uint32_t k = 0; k < end; ++k)
      run_[k] = merged_[k];
  }

  // Crossings into order: by their exact time, then their actor's slot,
  // then their pool. They come in the order their actors were touched, not
  // made, so where their times agree (most do, every one due on the tick)
  // they are sorted by slot in passes over the bytes their slots differ
  // in, each pass keeping the order the last left.
  void sortCrossings(uint32_t from, uint32_t to) {
    uint32_t n = to - from;
    bool sameTime = true;
    uint64_t any = 0, all = ~uint64_t(0);
    for (uint32_t i = from; i < to; ++i) {
      sameTime &= run_[i].due == run_[from].due;
      any |= uint32_t(run_[i].instance);
      all &= uint32_t(run_[i].instance);
    }
    if (n < 32 || !sameTime) {
      sortRange(from, to);
      return;
    }
    uint64_t differs = any ^ all;
    merged_.clear();
    merged_.resize(n, run_[from]);
    Timer *in = run_.begin() + from, *out = merged_.begin();
    for (uint32_t shift = 0; shift < 64; shift += 8) {
      if (!((differs >> shift) & 0xff))
        continue;
      uint32_t counts[257] = {};
      for (uint32_t i = 0; i < n; ++i)
        ++counts[((uint64_t(in[i].instance) >> shift) & 0xff) + 1];
      for (uint32_t b = 1; b < 257; ++b)
        counts[b] += counts[b - 1];
      for (uint32_t i = 0; i < n; ++i)
        out[counts[(uint64_t(in[i].instance) >> shift) & 0xff]++] = in[i];
      Timer *swap = in;
      in = out;
      out = swap;
    }
    if (in != run_.begin() + from)
      for (uint32_t i = 0; i < n; ++i)
        run_[from + i] = in[i];
    // One actor's pools, as written.
    sortRange(from, to);
  }

  // A list of one kind: crossings first, then every rules, lifetimes and
  // the autos' wakes (phases 0, 0, 1, 2).
  static constexpr uint32_t kLists = 4;
  static uint32_t listOf(const Timer &t) {
    return t.kind == TimerKind::PoolBound ? 0 : t.phase == 0 ? 1 : t.phase == 1 ? 2 : 3;
  }

  // A stretch of the run into order: slid into place one by one, as most
  // came in order; sorted whole past a few moves an item.
  void sortRange(uint32_t from, uint32_t to) {
    uint32_t moves = 0, n = to - from;
    for (uint32_t i = from + 1; i < to; ++i) {
      Timer t = run_[i];
      uint32_t j = i;
      for (; j > from && timerLater(run_[j - 1], t); --j) {
        run_[j] = run_[j - 1];
        if (++moves > 4 * n + 16) {
          run_[j - 1] = t;
          std::sort(run_.begin() + from, run_.begin() + to,
                    [](const Timer &x, const Timer &y) { return timerLater(y, x); });
          return;
        }
      }
      run_[j] = t;
    }
  }

  // The far timers the wheel now reaches, into their buckets.
  void migrate() {
    while (!far_.empty() && far_[0].at < current_ + 1 + int64_t(kTicks)) {
      std::pop_heap(far_.begin(), far_.end(), timerLater);
      Timer t = far_.back();
      far_.pop();
      --count_;
      push(t);
    }
  }

  struct Node {
    Timer timer;
    uint32_t next; // the bucket's next node, index + 1
  };
  Vec<Timer> run_;     // the tick under way's timers, in order, from runAt_
  Vec<Timer> merged_;  // scratch for a merge
  uint32_t runAt_ = 0;
  int64_t current_ = -1; // the tick under way: the wheel reaches the kTicks after it
  Vec<Node> nodes_;
  Vec<uint32_t> free_;
  // Each bucket's lists' first and last nodes, index + 1.
  uint32_t head_[kTicks * kLists] = {}, tail_[kTicks * kLists] = {};
  uint64_t occupied_[kWords] = {};
  Vec<Timer> far_; // a heap
  uint32_t count_ = 0, inWheel_ = 0;
};

} // namespace ledger::cw

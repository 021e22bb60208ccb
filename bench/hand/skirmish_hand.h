// The skirmish written by hand, as a game programmer would write these rules
// for their own game: a struct per fighter, an array of them, a tick, and
// the rules of bench/skirmish.ledger as plain code with the same numbers.
// The benchmark runs it beside both engines and checks that every fighter
// ends with the same Health and Mana (bench/README.md).
#pragma once

#include "fixed.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace skirmish_hand {

enum class Side : uint8_t { Red, Blue };

// What a fighter of a side starts with: the archetypes Red and Blue.
struct Archetype {
  Fixed maxHealth, maxMana, manaRegen, power, armor, level;
};

struct Fighter {
  Side side = Side::Red;
  bool alive = true;
  const Archetype *kind = nullptr;
  Fixed health = 0;
  // Mana as of tick manaAt; it regenerates from there, up to its maximum,
  // and is worked out when read rather than topped up every tick.
  Fixed mana = 0;
  int64_t manaAt = 0;
  Fixed shieldLeft = 0;      // what the Shield still absorbs
  int64_t strikeReadyAt = 0; // the tick Strike's cooldown ends
  // Bleed: at most one on a fighter; a Strike landing on one already
  // bleeding adds a stack and leaves its source, ticks and end as they were.
  int32_t bleedStacks = 0; // 0: not bleeding
  int32_t bleedSource = 0;
  int64_t bleedEndsAt = 0;
};

class Skirmish {
public:
  static constexpr int64_t kTicksPerSecond = 20;

  void reserve(size_t fighters) { fighters_.reserve(fighters); }
  // A new fighter of the side, full Health and Mana; its number.
  int32_t add(Side side);
  bool alive(int32_t f) const { return fighters_[size_t(f)].alive; }
  Fixed health(int32_t f) const { return fighters_[size_t(f)].health; }
  Fixed mana(int32_t f) const { return manaNow(fighters_[size_t(f)]); }
  void setHealth(int32_t f, Fixed health);
  // The attacker strikes the target; false where it can't (either fallen,
  // the same side, the cooldown running, too little Mana).
  bool strike(int32_t attacker, int32_t target);
  void advance(int64_t ticks);
  int64_t now() const { return now_; }

private:
  // A Bleed's next tick. Every Bleed ticks a second apart, so the queue,
  // appended in the order they go on, stays in the order they come due;
  // Bleeds due on one tick tick in the order they went on, which decides
  // who a death on that tick spares.
  struct BleedTick {
    int32_t fighter;
    int64_t at;
  };

  Fixed manaNow(const Fighter &f) const;
  Fixed blow(int32_t to, Fixed amount);
  void thorns(int32_t holder, int32_t striker, Fixed amount);
  void applyBleed(int32_t to, int32_t from);
  void bleed(int32_t holder);
  void die(int32_t f);
  void tick();

  std::vector<Fighter> fighters_;
  std::deque<BleedTick> bleedTicks_;
  int64_t now_ = 0;
};

} // namespace skirmish_hand

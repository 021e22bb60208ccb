// The skirmish's rules by hand. The order things happen in follows the
// catalog's, where it decides who is alive or how much lands: a Strike's
// blow, then its Bleed, then the target's Thorns answering; on a tick, the
// Bleeds in the order they went on, each answered by Thorns before the next.
#include "skirmish_hand.h"

#include <algorithm>
#include <iterator>

namespace skirmish_hand {

namespace {

constexpr Archetype kRed{whole(1500), whole(50), whole(5), whole(12), whole(10), whole(3)};
constexpr Archetype kBlue{whole(1400), whole(40), whole(5), whole(11), whole(16), whole(4)};

constexpr Fixed kShield = whole(30);
constexpr Fixed kStrikeCost = whole(5);
constexpr int64_t kStrikeCooldown = Skirmish::kTicksPerSecond; // 1 s
constexpr int32_t kBleedMaxStacks = 5;
constexpr int64_t kBleedLasts = 4 * Skirmish::kTicksPerSecond;
constexpr int64_t kBleedEvery = Skirmish::kTicksPerSecond;

// Damage falls off with armor: straight between the points, flat past the
// ends; between two, the share of the rise rounded half to even.
struct Point {
  Fixed x, y;
};
constexpr Point kMitigation[] = {{whole(0), whole(100)}, {whole(20), whole(70)}, {whole(60), whole(40)}};

constexpr Fixed mitigation(Fixed armor) {
  constexpr size_t n = std::size(kMitigation);
  if (armor <= kMitigation[0].x)
    return kMitigation[0].y;
  for (size_t i = 0; i + 1 < n; ++i) {
    const Point &a = kMitigation[i], &b = kMitigation[i + 1];
    if (armor < b.x) {
      Fixed rise = b.y - a.y;
      Fixed share = mulDiv(rise < 0 ? -rise : rise, armor - a.x, b.x - a.x);
      return rise < 0 ? a.y - share : a.y + share;
    }
  }
  return kMitigation[n - 1].y;
}
static_assert(mitigation(whole(10)) == whole(85) && mitigation(whole(16)) == whole(76));
static_assert(mitigation(whole(-5)) == whole(100) && mitigation(whole(90)) == whole(40));

// Strike's damage: (Power + Level * 2) * Mitigation(target's Armor) / 100,
// kept between 2 and 60.
constexpr Fixed strikeDamage(const Archetype &attacker, const Archetype &target) {
  Fixed raw = div(mul(attacker.power + mul(attacker.level, whole(2)), mitigation(target.armor)),
                  whole(100));
  return std::max(whole(2), std::min(whole(60), raw));
}
static_assert(strikeDamage(kRed, kBlue) == 13'680'000 && strikeDamage(kBlue, kRed) == 16'150'000);

} // namespace

int32_t Skirmish::add(Side side) {
  Fighter f;
  f.side = side;
  f.kind = side == Side::Red ? &kRed : &kBlue;
  f.health = f.kind->maxHealth;
  f.mana = f.kind->maxMana;
  f.manaAt = now_;
  f.shieldLeft = kShield;
  fighters_.push_back(f);
  return int32_t(fighters_.size() - 1);
}

void Skirmish::setHealth(int32_t i, Fixed health) {
  Fighter &f = fighters_[size_t(i)];
  if (!f.alive)
    return;
  f.health = std::clamp<Fixed>(health, 0, f.kind->maxHealth);
  if (f.health == 0)
    die(i);
}

// Regen in closed form: its rate times the time since, up to the maximum.
Fixed Skirmish::manaNow(const Fighter &f) const {
  if (!f.alive)
    return f.mana; // as it stood when the fighter fell
  Fixed regen = mulDiv(f.kind->manaRegen, now_ - f.manaAt, kTicksPerSecond);
  return std::clamp<Fixed>(f.mana + regen, 0, f.kind->maxMana);
}

bool Skirmish::strike(int32_t attacker, int32_t target) {
  Fighter &me = fighters_[size_t(attacker)];
  const Fighter &foe = fighters_[size_t(target)];
  if (!me.alive || !foe.alive || me.side == foe.side || now_ < me.strikeReadyAt)
    return false;
  Fixed mana = manaNow(me);
  if (mana < kStrikeCost)
    return false;
  me.mana = mana - kStrikeCost;
  me.manaAt = now_;
  Fixed landed = blow(target, strikeDamage(*me.kind, *foe.kind));
  bool survived = foe.alive;
  if (survived)
    applyBleed(target, attacker);
  me.strikeReadyAt = now_ + kStrikeCooldown;
  // Thorns answers once the Strike has done all it does.
  if (survived)
    thorns(target, attacker, landed);
  return true;
}

// A blow: the Shield absorbs what it still can, the rest comes off Health,
// and at none the fighter dies. What got past the Shield is what Thorns
// reads.
Fixed Skirmish::blow(int32_t to, Fixed amount) {
  Fighter &f = fighters_[size_t(to)];
  Fixed absorbed = std::min(f.shieldLeft, amount);
  f.shieldLeft -= absorbed;
  amount -= absorbed;
  f.health = std::max<Fixed>(0, f.health - amount);
  if (f.health == 0)
    die(to);
  return amount;
}

// A fifth of what got through, at least 1, back at whoever dealt it. The
// reflected blow isn't answered in turn, so two Thorns don't trade forever.
void Skirmish::thorns(int32_t holder, int32_t striker, Fixed amount) {
  if (!fighters_[size_t(holder)].alive || !fighters_[size_t(striker)].alive)
    return;
  blow(striker, std::max(kOne, div(amount, whole(5))));
}

void Skirmish::applyBleed(int32_t to, int32_t from) {
  Fighter &f = fighters_[size_t(to)];
  if (f.bleedStacks > 0) {
    f.bleedStacks = std::min(f.bleedStacks + 1, kBleedMaxStacks);
    return;
  }
  f.bleedStacks = 1;
  f.bleedSource = from;
  f.bleedEndsAt = now_ + kBleedLasts;
  bleedTicks_.push_back({to, now_ + kBleedEvery});
}

// One tick of a Bleed: 1 + stacks / 2 from its source, which the holder's
// Thorns answers.
void Skirmish::bleed(int32_t holder) {
  const Fighter &f = fighters_[size_t(holder)];
  Fixed landed = blow(holder, kOne + div(whole(f.bleedStacks), whole(2)));
  thorns(holder, f.bleedSource, landed);
}

// Dead, its Bleed gone with it; Bleeds it put on others tick on.
void Skirmish::die(int32_t i) {
  Fighter &f = fighters_[size_t(i)];
  f.mana = manaNow(f);
  f.manaAt = now_;
  f.alive = false;
  f.bleedStacks = 0;
}

void Skirmish::tick() {
  ++now_;
  while (!bleedTicks_.empty() && bleedTicks_.front().at <= now_) {
    BleedTick due = bleedTicks_.front();
    bleedTicks_.pop_front();
    const Fighter &f = fighters_[size_t(due.fighter)];
    if (f.bleedStacks == 0)
      continue; // its holder died meanwhile
    bleed(due.fighter);
    // Its last tick comes as it runs out.
    if (f.bleedStacks > 0) {
      if (now_ >= f.bleedEndsAt)
        fighters_[size_t(due.fighter)].bleedStacks = 0;
      else
        bleedTicks_.push_back({due.fighter, due.at + kBleedEvery});
    }
  }
}

void Skirmish::advance(int64_t ticks) {
  for (int64_t t = 0; t < ticks; ++t)
    tick();
}

} // namespace skirmish_hand

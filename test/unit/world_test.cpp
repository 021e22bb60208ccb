// The host's API on the reference engine: orders refused by the reference's
// names change nothing, time moves only what is due, and a save is a copy.
#include "driver/frontend.h"
#include "eval/eval.h"
#include "ir/ir.h"
#include "world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace ledger;

namespace {

constexpr const char *kCatalog = R"(rate 10
link side
allegiance side
tags Fire Frost
prop Power default 1 min 0 max 5
prop Element among Fire Frost default Fire
stat MaxHealth default 50
pool Health max MaxHealth
pool Mana max 100
effect Burn
    stack add max 5
    lasts 4s
    every 1s
        deal 2 * self.stacks to holder from source
ability Bolt
    target one enemy
    takes Power, Element
    cost Mana 30
    cooldown 2s
    deal 10 to target
    apply Burn to target
effect Charm
    var school tag = Fire
    var power = 1
effect Warded
    blocks Remove
archetype Team
archetype Mage
    full Health Mana
    grants Bolt
)";

struct HostApi : ::testing::Test {
  std::unique_ptr<rt::Pack> pack;
  pack::Id bolt = 0, burn = 0, mage = 0, team = 0, health = 0, mana = 0, side = 0;
  pack::Id power = 0, element = 0, fire = 0, charm = 0, warded = 0;
  void SetUp() override {
    auto fe = runFrontendOnText("t.ledger", kCatalog, FileRole::Catalog);
    ASSERT_TRUE(fe->ok());
    pack::Tables t = ir::lower(fe->tree, fe->decls, fe->diags);
    ASSERT_TRUE(fe->ok());
    auto find = [&](auto &list, std::string_view name) {
      pack::Id id = t.find(list, name);
      EXPECT_NE(id, pack::kNoId) << name;
      return id;
    };
    bolt = find(t.abilities, "Bolt");
    burn = find(t.effects, "Burn");
    mage = find(t.archetypes, "Mage");
    team = find(t.archetypes, "Team");
    health = find(t.values, "Health");
    mana = find(t.values, "Mana");
    side = find(t.links, "side");
    power = find(t.props, "Power");
    element = find(t.props, "Element");
    fire = find(t.tags, "Fire");
    charm = find(t.effects, "Charm");
    warded = find(t.effects, "Warded");
    pack = rt::Pack::reference(std::move(t), eval::evaluator());
  }
};

} // namespace

TEST_F(HostApi, AnOrderGoesOffPaysAndStartsItsCooldown) {
  rt::World w(*pack);
  rt::Handle red = w.make(team), blue = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), b = w.make(mage, {{side, blue}});
  ASSERT_TRUE(w.act(a, bolt, {b}).ok());
  EXPECT_EQ(w.value(b, health), 40'000'000);
  EXPECT_EQ(w.value(a, mana), 70'000'000);
  EXPECT_EQ(w.stacksOf(b, burn), 1'000'000);
  EXPECT_EQ(w.act(a, bolt, {b}).refusal, rt::Refusal::OnCooldown);
}

TEST_F(HostApi, ARefusedOrderChangesNothing) {
  rt::World w(*pack);
  rt::Handle red = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), ally = w.make(mage, {{side, red}});
  size_t journal = w.journal().size();
  rt::Outcome o = w.act(a, bolt, {ally});
  EXPECT_EQ(o.refusal, rt::Refusal::BadTarget);
  EXPECT_EQ(o.text, "enemy");
  EXPECT_EQ(w.act(a, bolt, {}).refusal, rt::Refusal::NoTarget);
  EXPECT_EQ(w.act(ally, pack::Id(bolt), {a, a}).refusal, rt::Refusal::BadTarget);
  EXPECT_EQ(w.journal().size(), journal);
  EXPECT_EQ(w.value(a, mana), 100'000'000);
}

// A remove order a block keeps from every instance it names is refused
// Blocked, as a blocked Activate is, and changes nothing (docs/readings.md
// 142); the block's own instance isn't kept on by its own block.
TEST_F(HostApi, ARemoveABlockKeepsOffIsRefusedBlockedAndChangesNothing) {
  rt::World w(*pack);
  rt::Handle red = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}});
  ASSERT_TRUE(w.apply(burn, 2'000'000, a, a, {}, {}).ok());
  ASSERT_TRUE(w.apply(warded, 1'000'000, a, a, {}, {}).ok());
  size_t journal = w.journal().size();
  EXPECT_EQ(w.remove(burn, a).refusal, rt::Refusal::Blocked);
  EXPECT_EQ(w.remove(burn, a, 1'000'000).refusal, rt::Refusal::Blocked);
  EXPECT_EQ(w.journal().size(), journal);
  EXPECT_EQ(w.stacksOf(a, burn), 2'000'000);
  EXPECT_TRUE(w.remove(warded, a).ok());
  EXPECT_EQ(w.stacksOf(a, warded), 0);
  EXPECT_TRUE(w.remove(burn, a).ok());
  EXPECT_EQ(w.stacksOf(a, burn), 0);
}

// "an order carrying ... a tag it may not hold, is refused before anything
// moves": the host says which of its values are tags, so a tag for a number
// property, or a number for a tag property, is refused BadProperty.
TEST_F(HostApi, AnOrderGivingAValueOfTheWrongKindIsRefusedBadProperty) {
  rt::World w(*pack);
  rt::Handle red = w.make(team), blue = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), b = w.make(mage, {{side, blue}});
  size_t journal = w.journal().size();
  rt::Given tagForNumber{{rt::Given::tagged(power, fire)}};
  rt::Outcome o = w.act(a, bolt, {b}, tagForNumber);
  EXPECT_EQ(o.refusal, rt::Refusal::BadProperty);
  EXPECT_EQ(o.text, "Power");
  // Fire's id + 1 as a bare number is a number, not the tag.
  rt::Given numberForTag{{rt::Given::number(element, int64_t(fire) + 1)}};
  EXPECT_EQ(w.act(a, bolt, {b}, numberForTag).refusal, rt::Refusal::BadProperty);
  rt::Given tagForX{{rt::Given::tagged(pack::kNoId, fire)}};
  EXPECT_EQ(w.act(a, bolt, {b}, tagForX).text, "X");
  EXPECT_EQ(w.journal().size(), journal);
  EXPECT_EQ(w.value(a, mana), 100'000'000);
  rt::Given right{{rt::Given::number(power, 2'000'000), rt::Given::tagged(element, fire)}};
  EXPECT_TRUE(w.act(a, bolt, {b}, right).ok());
}

TEST_F(HostApi, OrdersToTheGoneAreRefusedGone) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  ASSERT_TRUE(w.destroy(a).ok());
  EXPECT_EQ(w.act(a, bolt, {}).refusal, rt::Refusal::Gone);
  EXPECT_EQ(w.deal(5'000'000, a, 0).refusal, rt::Refusal::Gone);
  EXPECT_EQ(w.destroy(a).refusal, rt::Refusal::Gone);
}

// raise: "orders one of the content's events raised": the world's own carry
// what happened (an instance, a pool), which a raise hasn't.
TEST_F(HostApi, ARaiseOfTheWorldsOwnEventIsRefusedAndChangesNothing) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  size_t journal = w.journal().size();
  for (pack::BuiltinEvent e : {pack::BuiltinEvent::Apply, pack::BuiltinEvent::Depleted,
                               pack::BuiltinEvent::Change})
    EXPECT_EQ(w.raise(pack::Id(e), a, 0).refusal, rt::Refusal::Refused);
  EXPECT_EQ(w.raise(pack::kNoId, a, 0).refusal, rt::Refusal::Refused);
  EXPECT_EQ(w.journal().size(), journal);
}

TEST_F(HostApi, ASetOfAPoolItLacksIsRefusedNoPool) {
  rt::World w(*pack);
  rt::Handle t = w.make(team);
  EXPECT_EQ(w.setPool(t, health, 1).refusal, rt::Refusal::NoPool);
}

TEST_F(HostApi, TimeRunsTimersExactlyAndASaveIsACopy) {
  rt::World w(*pack);
  rt::Handle red = w.make(team), blue = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), b = w.make(mage, {{side, blue}});
  ASSERT_TRUE(w.act(a, bolt, {b}).ok());
  rt::World saved = w;
  w.advance(9);
  EXPECT_EQ(w.value(b, health), 40'000'000); // the first tick is due at 1s
  w.advance(1);
  EXPECT_EQ(w.value(b, health), 38'000'000);
  w.advance(100);
  EXPECT_FALSE(w.holds(b, burn));
  EXPECT_EQ(w.value(b, health), 32'000'000); // ticks at 1s, 2s, 3s, then 4s as it expires
  EXPECT_EQ(saved.value(b, health), 40'000'000);
  saved.advance(110);
  EXPECT_EQ(saved.journalText(), w.journalText());
}

// A host streaming the journal forgets what it has read: the entries go, the
// count and the hash run on as if they had been kept.
TEST_F(HostApi, AJournalReadAndForgottenHashesAsOneKept) {
  rt::World kept(*pack);
  rt::Handle red = kept.make(team), blue = kept.make(team);
  rt::Handle a = kept.make(mage, {{side, red}}), b = kept.make(mage, {{side, blue}});
  rt::World streamed = kept;
  std::string read = streamed.journalText();
  streamed.forgetJournal();
  EXPECT_TRUE(streamed.journal().empty());
  for (rt::World *w : {&kept, &streamed}) {
    ASSERT_TRUE(w->act(a, bolt, {b}).ok());
    w->advance(110);
  }
  read += streamed.journalText();
  EXPECT_EQ(read, kept.journalText());
  EXPECT_EQ(streamed.journalCount(), kept.journalCount());
  EXPECT_EQ(streamed.journalHash(), kept.journalHash());
  EXPECT_LT(streamed.journal().size(), kept.journal().size());
}

// A save on disk: its bytes read back are the world they were, which runs on
// as the world it was saved from does, and writes the same bytes again.
TEST_F(HostApi, ASaveReadBackRunsOnAsTheWorldItWas) {
  rt::World w(*pack);
  rt::Handle red = w.make(team), blue = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), b = w.make(mage, {{side, blue}});
  ASSERT_TRUE(w.act(a, bolt, {b}).ok());
  w.advance(15); // mid-Burn, mid-cooldown, a tick's timer pending
  std::string bytes = w.saveBytes();
  std::string why;
  std::optional<rt::World> back = rt::World::loadSave(*pack, bytes, why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->saveBytes(), bytes);
  for (rt::World *x : {&w, &*back}) {
    x->advance(10);
    EXPECT_TRUE(x->act(a, bolt, {b}).ok());
    EXPECT_TRUE(x->act(b, bolt, {a}).ok());
    x->advance(60);
  }
  EXPECT_EQ(back->journalText(), w.journalText());
  EXPECT_EQ(back->journalHash(), w.journalHash());
  EXPECT_EQ(back->value(b, health), w.value(b, health));
}

// Another catalog's save, or one cut short, run on or damaged, is refused
// whole with why, never read in part.
TEST_F(HostApi, ASaveOfAnotherPackOrDamagedIsRefused) {
  rt::World w(*pack);
  rt::Handle red = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}});
  w.deal(5'000'000, a, 0);
  std::string bytes = w.saveBytes();
  std::string why;
  EXPECT_FALSE(rt::World::loadSave(*pack, "a letter", why));
  EXPECT_EQ(why, "not a ledger save");
  EXPECT_FALSE(rt::World::loadSave(*pack, bytes + "x", why));
  EXPECT_EQ(why, "the save is damaged: its bytes aren't those it was written as");
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(rt::World::loadSave(*pack, std::string_view(bytes).substr(0, n), why)) << n;
  // Each byte changed in turn: refused, by its envelope or its body's hash.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = char(damaged[i] ^ 0x5a);
    EXPECT_FALSE(rt::World::loadSave(*pack, damaged, why)) << i;
  }
  auto fe = runFrontendOnText("u.ledger", "stat Power\n", FileRole::Catalog);
  ASSERT_TRUE(fe->ok());
  auto other = rt::Pack::reference(ir::lower(fe->tree, fe->decls, fe->diags), eval::evaluator());
  EXPECT_FALSE(rt::World::loadSave(*other, bytes, why));
  EXPECT_EQ(why, "a save of another catalog: its pack's hash isn't this pack's");
}

// A destroyed actor's slot is made again once nothing refers to it, the
// lowest, a generation on; a handle to the actor that had it then names no
// actor, and a save read back frees the same slots (docs/readings.md 157).
TEST_F(HostApi, ADestroyedActorsSlotIsMadeAgainOnceNothingRefersToIt) {
  auto slotOf = [](rt::Handle h) { return uint64_t(h) & 0xffffffffu; };
  auto genOf = [](rt::Handle h) { return uint64_t(h) >> 32; };
  rt::World w(*pack);
  rt::Handle red = w.make(team), blue = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), b = w.make(mage, {{side, blue}});
  ASSERT_TRUE(w.act(a, bolt, {b}).ok());
  ASSERT_TRUE(w.destroy(a).ok());
  // The Burn a put on b ticks on from a: a's slot stands, a read as a ghost.
  rt::Handle c = w.make(mage, {{side, blue}});
  EXPECT_NE(slotOf(c), slotOf(a));
  EXPECT_TRUE(w.exists(a));
  EXPECT_EQ(w.value(a, health), 50'000'000);
  w.advance(40); // the Burn runs out
  EXPECT_TRUE(w.exists(a));
  std::string bytes = w.saveBytes();
  std::string why;
  std::optional<rt::World> back = rt::World::loadSave(*pack, bytes, why);
  ASSERT_TRUE(back) << why;
  for (rt::World *x : {&w, &*back}) {
    rt::Handle d = x->make(mage, {{side, red}});
    EXPECT_EQ(slotOf(d), slotOf(a));
    EXPECT_EQ(genOf(d), genOf(a) + 1);
    EXPECT_FALSE(x->exists(a));
    EXPECT_FALSE(x->alive(a));
    EXPECT_EQ(x->value(a, health), 0);
    EXPECT_EQ(x->linkOf(a, side), 0);
    EXPECT_EQ(x->act(a, bolt, {b}).refusal, rt::Refusal::Gone);
    EXPECT_EQ(x->act(b, bolt, {a}).refusal, rt::Refusal::Gone);
    EXPECT_EQ(x->apply(burn, 1'000'000, b, a, {}, {}).refusal, rt::Refusal::Gone);
    EXPECT_EQ(x->deal(5'000'000, a, 0).refusal, rt::Refusal::Gone);
    EXPECT_EQ(x->link(b, side, a).refusal, rt::Refusal::Gone);
    EXPECT_EQ(x->destroy(a).refusal, rt::Refusal::Gone);
    EXPECT_EQ(x->value(d, health), 50'000'000);
    std::vector<rt::Handle> living = x->living();
    EXPECT_EQ(living, (std::vector<rt::Handle>{red, blue, d, b, c}));
  }
  EXPECT_EQ(back->journalText(), w.journalText());
  EXPECT_EQ(back->saveBytes(), w.saveBytes());
}

// An order naming what its pack lacks (an id past a table's end) is refused
// and changes nothing; it is never read past the table (docs/readings.md 134).
TEST_F(HostApi, AnOrderNamingWhatThePackLacksIsRefused) {
  rt::World w(*pack);
  rt::Handle red = w.make(team), blue = w.make(team);
  rt::Handle a = w.make(mage, {{side, red}}), b = w.make(mage, {{side, blue}});
  const pack::Id far = 1000;
  size_t journal = w.journal().size();
  EXPECT_EQ(w.act(a, far, {b}).refusal, rt::Refusal::NotGranted);
  EXPECT_EQ(w.canAct(a, far, {b}).refusal, rt::Refusal::NotGranted);
  EXPECT_EQ(w.act(a, bolt, {b}, rt::Given{{rt::Given::number(far, 1'000'000)}}).refusal,
            rt::Refusal::BadProperty);
  EXPECT_EQ(w.apply(far, 1'000'000, b, a, {}, {}).refusal, rt::Refusal::Refused);
  EXPECT_EQ(w.apply(burn, 1'000'000, b, a, {}, rt::Given{{rt::Given::number(far, 1)}}).refusal,
            rt::Refusal::Refused);
  EXPECT_EQ(w.remove(far, b).refusal, rt::Refusal::NotHeld);
  EXPECT_EQ(w.setPool(b, far, 1).refusal, rt::Refusal::NoPool);
  EXPECT_EQ(w.deal(1'000'000, b, a, {pack::TagSet(far)}).refusal, rt::Refusal::Refused);
  EXPECT_EQ(w.link(a, far, b).refusal, rt::Refusal::Refused);
  EXPECT_EQ(w.make(far), rt::Handle(0));
  EXPECT_EQ(w.make(pack::kNoId), rt::Handle(0));
  EXPECT_EQ(w.make(mage, {{far, red}}), rt::Handle(0));
  EXPECT_EQ(w.journal().size(), journal);
  EXPECT_EQ(w.value(b, health), 50'000'000);
}

// No archetype (kNoId) is one the pack lacks: a make of it makes no one
// (it read the archetypes' table past its end).
TEST_F(HostApi, AMakeOfNoArchetypeMakesNoOne) {
  rt::World w(*pack);
  EXPECT_EQ(w.make(pack::kNoId), rt::Handle(0));
  EXPECT_TRUE(w.living().empty());
  EXPECT_EQ(w.journal().size(), 0u);
}

// A make's link to an actor gone, or to one the world never had, makes no
// one, as an order naming either is refused (its link was kept, and the
// world's own save was then refused as damaged).
TEST_F(HostApi, AMakeLinkedToNoActorMakesNoOne) {
  rt::World w(*pack);
  rt::Handle red = w.make(team), gone = w.make(team);
  ASSERT_TRUE(w.destroy(gone).ok());
  size_t journal = w.journal().size();
  EXPECT_EQ(w.make(mage, {{side, gone}}), rt::Handle(0));
  EXPECT_EQ(w.make(mage, {{side, red + (int64_t(1) << 32)}}), rt::Handle(0));
  EXPECT_EQ(w.make(mage, {{side, INT64_MIN}}), rt::Handle(0));
  EXPECT_EQ(w.journal().size(), journal);
  EXPECT_EQ(w.living(), std::vector<rt::Handle>{red});
  std::string why;
  EXPECT_TRUE(rt::World::loadSave(*pack, w.saveBytes(), why)) << why;
}

// A read naming a value, a link or a tag the pack lacks reads as of no one
// (each read its table past its end).
TEST_F(HostApi, AReadNamingWhatThePackLacksReadsNothing) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  for (pack::Id far : {pack::Id(1000), pack::kNoId}) {
    EXPECT_EQ(w.value(a, far), 0);
    EXPECT_EQ(w.maximum(a, far), std::nullopt);
    EXPECT_EQ(w.linkOf(a, far), rt::Handle(0));
    EXPECT_FALSE(w.carries(a, far));
  }
}

// An apply whose lifetime counts an event or a tag the pack lacks is no
// apply (the compiled engine read the table past its end as it counted).
TEST_F(HostApi, AnApplyCountingWhatThePackLacksIsRefused) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  rt::Lifetime byEvent, byTag;
  byEvent.count = byTag.count = 2'000'000;
  byEvent.countEvent = 1000;
  byTag.countTag = 1000;
  EXPECT_EQ(w.apply(burn, 1'000'000, a, a, byEvent, {}).refusal, rt::Refusal::Refused);
  EXPECT_EQ(w.apply(burn, 1'000'000, a, a, byTag, {}).refusal, rt::Refusal::Refused);
  EXPECT_FALSE(w.holds(a, burn));
}

// -1 is a lifetime's none; a time, turns or a count below it is a host's
// slip, refused (the instance kept it, and the world's own save was then
// refused as damaged).
TEST_F(HostApi, AnApplyWithALifetimeBelowNoneIsRefused) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  for (int field = 0; field < 3; ++field) {
    rt::Lifetime life;
    (field == 0 ? life.time : field == 1 ? life.turns : life.count) = -15'000'000;
    EXPECT_EQ(w.apply(burn, 1'000'000, a, a, life, {}).refusal, rt::Refusal::Refused);
  }
  EXPECT_FALSE(w.holds(a, burn));
  std::string why;
  EXPECT_TRUE(rt::World::loadSave(*pack, w.saveBytes(), why)) << why;
}

// Time moves on, never back, and no further than the world's time holds
// (docs/readings.md 135): such an advance moves nothing.
TEST_F(HostApi, AnAdvanceBackOrPastTheLastTimeMovesNothing) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  w.advance(5);
  std::string before = w.saveBytes();
  for (int64_t ticks : {int64_t(-1), INT64_MIN, INT64_MAX, INT64_MAX / 1'000'000})
    w.advance(ticks);
  EXPECT_EQ(w.now(), 5);
  EXPECT_EQ(w.saveBytes(), before);
  w.advance(1);
  EXPECT_EQ(w.now(), 6);
  EXPECT_TRUE(w.alive(a));
}

// A tag var is given a tag and a number var a number: a tag's id as a bare
// number, or a tag for a number, is refused (docs/readings.md 134).
TEST_F(HostApi, AnApplyGivingAVarTheWrongKindIsRefused) {
  rt::World w(*pack);
  rt::Handle a = w.make(mage);
  const pack::Id schoolVar = 0, powerVar = 1; // the vars in the order Charm declares them
  EXPECT_EQ(w.apply(charm, 1'000'000, a, a, {}, rt::Given{{rt::Given::number(schoolVar, int64_t(fire) + 1)}})
                .refusal,
            rt::Refusal::Refused);
  EXPECT_EQ(w.apply(charm, 1'000'000, a, a, {}, rt::Given{{rt::Given::tagged(powerVar, fire)}}).refusal,
            rt::Refusal::Refused);
  EXPECT_FALSE(w.holds(a, charm));
  EXPECT_TRUE(w.apply(charm, 1'000'000, a, a, {},
                      rt::Given{{rt::Given::tagged(schoolVar, fire), rt::Given::number(powerVar, 2'000'000)}})
                  .ok());
}

// At a rate whose seconds don't divide its ticks, the host's times are in
// the pack's unit (a third of a tick at 20 / 3), so 3s is exactly 20 ticks.
TEST(HostApiTime, ALifetimeAtTwentyTicksOverThreeSecondsIsExact) {
  auto fe = runFrontendOnText("t.ledger", "rate 20 / 3\neffect Mark\narchetype Dummy\n",
                              FileRole::Catalog);
  ASSERT_TRUE(fe->ok());
  pack::Tables t = ir::lower(fe->tree, fe->decls, fe->diags);
  ASSERT_TRUE(fe->ok());
  EXPECT_EQ(t.unitsPerTick, 3);
  EXPECT_EQ(t.unitsPerSecond, 20'000'000);
  pack::Id mark = t.find(t.effects, "Mark"), dummy = t.find(t.archetypes, "Dummy");
  auto pack = rt::Pack::reference(std::move(t), eval::evaluator());
  rt::World w(*pack);
  rt::Handle d = w.make(dummy);
  rt::Lifetime threeSeconds;
  threeSeconds.time = 3 * pack->tables().unitsPerSecond;
  ASSERT_TRUE(w.apply(mark, 1'000'000, d, d, threeSeconds, {}).ok());
  w.advance(19);
  EXPECT_TRUE(w.holds(d, mark));
  EXPECT_EQ(w.remainingOf(d, mark, rt::DurationUnit::Time), 3'000'000); // one tick: 3 units
  w.advance(1);
  EXPECT_FALSE(w.holds(d, mark));
}

// A regen and a refill pulling apart, read against a plain model stepping
// each stretch between refills: the stretches meeting no bound, taken at
// once, and an amount held at a bound, left held, read as the model does
// (docs/readings.md 141). Whole numbers a second, so the model is exact.
TEST(HostApiTime, ARegenAndARefillPullingApartReadAsEachStretchStepped) {
  std::mt19937 draw(20261201);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(draw); };
  for (int round = 0; round < 120; ++round) {
    int rate = pick(0, 1) ? -pick(1, 30) : pick(1, 30);
    int refill = rate < 0 ? pick(1, 40) : -pick(1, 40);
    int every = pick(1, 3), most = pick(20, 120), start = pick(0, most);
    int ticks = pick(1, 400);
    std::string catalog = "rate 10\nstat Leak default " + std::to_string(rate) +
                          "\npool Heat max " + std::to_string(most) +
                          " regen Leak per 1s refill " + std::to_string(refill) + " every " +
                          std::to_string(every) + "s\narchetype A\n    with Heat = " +
                          std::to_string(start) + "\n";
    auto fe = runFrontendOnText("t.ledger", catalog, FileRole::Catalog);
    ASSERT_TRUE(fe->ok()) << catalog;
    pack::Tables t = ir::lower(fe->tree, fe->decls, fe->diags);
    ASSERT_TRUE(fe->ok()) << catalog;
    pack::Id heat = t.find(t.values, "Heat"), a = t.find(t.archetypes, "A");
    auto pack = rt::Pack::reference(std::move(t), eval::evaluator());
    rt::World w(*pack);
    rt::Handle h = w.make(a);
    w.advance(ticks);
    // The model: a tick is a tenth of a second; each stretch runs its regen
    // held within the bounds, then the refill lands, held again.
    int64_t x = int64_t(start) * 10, period = int64_t(every) * 10;
    for (int64_t at = 0; at < ticks;) {
      int64_t next = std::min<int64_t>((at / period + 1) * period, ticks);
      x = std::clamp<int64_t>(x + rate * (next - at), 0, int64_t(most) * 10);
      if (next % period == 0)
        x = std::clamp<int64_t>(x + int64_t(refill) * 10, 0, int64_t(most) * 10);
      at = next;
    }
    EXPECT_EQ(w.value(h, heat), x * 100'000) << catalog << "after " << ticks << " ticks";
  }
}

// A host's frame loop moves time in seconds: every whole tick passed runs,
// what is left of one waits for the next call, so sixty frames of 1/60 s
// at rate 20 / 3 run 6 ticks, as the clock's 6.67 ticks pass 6; times of
// a lifetime and a remaining read in seconds too.
TEST(HostApiTime, SecondsMoveTimeOnByTheTicksTheyPass) {
  auto fe = runFrontendOnText("t.ledger", "rate 20 / 3\neffect Mark\narchetype Dummy\n",
                              FileRole::Catalog);
  ASSERT_TRUE(fe->ok());
  pack::Tables t = ir::lower(fe->tree, fe->decls, fe->diags);
  ASSERT_TRUE(fe->ok());
  pack::Id mark = t.find(t.effects, "Mark"), dummy = t.find(t.archetypes, "Dummy");
  auto pack = rt::Pack::reference(std::move(t), eval::evaluator());
  rt::World w(*pack);
  rt::Handle d = w.make(dummy);
  rt::Lifetime oneSecond;
  oneSecond.time = w.timeOf(1'000'000);
  ASSERT_TRUE(w.apply(mark, 1'000'000, d, d, oneSecond, {}).ok());
  for (int frame = 0; frame < 60; ++frame)
    ASSERT_TRUE(w.advanceSeconds(16'667));
  EXPECT_EQ(w.now(), 6); // 60 × 16.667 ms is 6.667 ticks
  EXPECT_EQ(w.secondsOf(w.remainingOf(d, mark, rt::DurationUnit::Time)), 100'000); // 1 s - 6 × 0.15 s
  EXPECT_TRUE(w.advanceSeconds(50'000)); // 6.667 + 0.333 ticks: the seventh runs
  EXPECT_EQ(w.now(), 7);
  EXPECT_FALSE(w.holds(d, mark));
  EXPECT_FALSE(w.advanceSeconds(-1));
  EXPECT_FALSE(w.advanceSeconds(INT64_MAX));
  EXPECT_EQ(w.now(), 7);
  EXPECT_EQ(w.secondsOf(w.timeOf(1'500'000)), 1'500'000);
  EXPECT_EQ(w.timeOf(-1), -1);
}

// Tables whose archetype base names no body (a damaged pack the reader
// accepts: a body is optional where the reader checks bases) load and run:
// the base reads 0, never a body past the table.
TEST(HostApiPack, ABaseNamingNoBodyLoadsAndReadsNothing) {
  auto fe = runFrontendOnText("t.ledger", "stat Power\narchetype Dummy\n    base Power 3\n",
                              FileRole::Catalog);
  ASSERT_TRUE(fe->ok());
  pack::Tables t = ir::lower(fe->tree, fe->decls, fe->diags);
  ASSERT_TRUE(fe->ok());
  const pack::Archetype &dummy = t.archetypes[t.find(t.archetypes, "Dummy")];
  ASSERT_EQ(dummy.baseCount, 1u);
  t.archetypeValues[dummy.basesBegin].body = pack::kNoId;
  pack::Tables back;
  std::string why;
  ASSERT_TRUE(pack::deserialize(pack::serialize(t), back, why)) << why;
  pack::Id power = back.find(back.values, "Power"), arch = back.find(back.archetypes, "Dummy");
  auto pack = rt::Pack::reference(std::move(back), eval::evaluator());
  rt::World w(*pack);
  rt::Handle d = w.make(arch);
  EXPECT_EQ(w.value(d, power), 0);
}

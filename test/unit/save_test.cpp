// Damaged saves, on both engines: a world's save with a field changed as a
// disk's damage or a hostile hand would change it, its envelope made right
// again (a hostile save carries a right hash), is refused with why before
// the world runs on it. Each field is found by a value the world was made
// to hold only there, or first there, and changed in place.
#include "number.h"
#include "packs_for_tests.h"
#include "save_envelope.h"
#include "world.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

using namespace ledger;
using rt::Handle;
using rt::World;
using test::Engine;
using test::packOf;

namespace {

// Of the forms the compiled engine specialises, so both engines run it.
constexpr const char *kCatalog = R"(rate 10
link side
allegiance side
stat MaxHealth min 1
stat Speed min 0 max 3.25 default 1
pool Health max MaxHealth
pool Gold max 999
pool Mana max 100
effect Burn
    lasts 7.7s
    every 1s
        deal 1 to holder
effect Mark
    stack add max 3
effect Spender
    grants Spend auto
ability Spend
    target self
    cost Gold 10
    gain Mana 1 on holder
archetype Dummy
    base MaxHealth 100
    base Speed 2.75
    full Health
archetype Caster
    base MaxHealth 100
    full Health
    pools Gold Mana
)";

// The generic kernel's own forms: a time stat its effects' clocks run at,
// a link override.
constexpr const char *kKernelCatalog = R"(rate 10
link side
stat MaxHealth min 1
stat Tempo min 0.1 max 4 default 1
time Tempo
pool Health max MaxHealth
effect Haste
    clock world
    Tempo + 0.25
effect Burn
    every 1s
        deal 1 to holder
effect Charm
    side = source.side
archetype Dummy
    base MaxHealth 100
    full Health
)";

std::string bytesOf(int64_t v) { return std::string(reinterpret_cast<const char *>(&v), sizeof v); }

// Where a value first stands in a save's body, or where the only one does;
// npos where it doesn't.
size_t firstPlaceOf(const std::string &save, int64_t v) {
  return save.find(bytesOf(v), rt::saves::kEnvelopeSize);
}
size_t onlyPlaceOf(const std::string &save, const std::string &bytes) {
  size_t at = save.find(bytes, rt::saves::kEnvelopeSize);
  return at != std::string::npos && save.find(bytes, at + 1) == std::string::npos ? at
                                                                                  : std::string::npos;
}

template <typename T> std::string changed(std::string save, size_t at, T v) {
  std::memcpy(save.data() + at, &v, sizeof v);
  rt::saves::seal(save);
  return save;
}

// The reason the damaged save is refused for, or an empty one where it
// is read.
std::string refusal(const rt::Pack &pack, const std::string &save) {
  std::string why;
  if (World::loadSave(pack, save, why))
    return "";
  return why;
}

class BothEngines : public ::testing::TestWithParam<Engine> {
protected:
  // Each engine's pack, built once.
  void SetUp() override {
    static std::unique_ptr<rt::Pack> packs[2];
    std::unique_ptr<rt::Pack> &built = packs[compiled()];
    if (!built)
      built = packOf(kCatalog, GetParam());
    ASSERT_TRUE(built);
    pack = built.get();
  }
  // A world keeping no journal: an actor's handle stands only where the
  // world holds it.
  World world() {
    World w(*pack);
    w.setJournalMode(rt::JournalMode::Off);
    return w;
  }
  pack::Id archetype(std::string_view name) { return pack->tables().find(pack->tables().archetypes, name); }
  pack::Id effect(std::string_view name) { return pack->tables().find(pack->tables().effects, name); }
  pack::Id value(std::string_view name) { return pack->tables().find(pack->tables().values, name); }
  const rt::Pack *pack = nullptr;
  // Each engine lays an actor's and an instance's fields out its own way.
  bool compiled() const { return GetParam() == Engine::Compiled; }
};

// The world's tick stands first after the seed (and, in a compiled world's
// save, its rows' widths): one no world reaches, its time past int64's
// room, would have the world's clock overflow as it runs.
TEST_P(BothEngines, ATimeNoWorldReachesIsRefused) {
  World w = world();
  w.make(archetype("Dummy"));
  w.advance(123456);
  std::string save = w.saveBytes();
  size_t at = firstPlaceOf(save, 123456);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(refusal(*pack, changed(save, at, int64_t(INT64_MAX / 2))).find("the save is damaged: its time"), 0u);
  EXPECT_EQ(refusal(*pack, changed(save, at, int64_t(-5))).find("the save is damaged: its time"), 0u);
}

// An instance held by an actor whose slot went to another: its holder's
// handle, of the slot's old generation, names no actor in play, and a world
// running on it would read the holder it has none of.
TEST_P(BothEngines, AnInstancesHolderOfAnOldGenerationIsRefused) {
  World w = world();
  Handle x = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.destroy(x).ok());
  Handle y = w.make(archetype("Dummy"));
  ASSERT_EQ(uint32_t(y), uint32_t(x)); // the slot made again, a generation on
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, y, 0, {}, {}).ok());
  std::string save = w.saveBytes();
  size_t at = onlyPlaceOf(save, bytesOf(y));
  ASSERT_NE(at, std::string::npos);
  std::string why = refusal(*pack, changed(save, at, x));
  EXPECT_NE(why.find("holder is no actor in play"), std::string::npos) << why;
}

// An actor's generation moved on in its slot: every handle the world holds
// to it, its instances' holders among them, names no actor now.
TEST_P(BothEngines, AnActorsGenerationMovedOnIsRefused) {
  World w = world();
  w.advance(4242);
  Handle y = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, y, 0, {}, {}).ok());
  w.advance(3);
  std::string save = w.saveBytes();
  // An actor's head: its generation, its archetype, its flags, the tick it
  // was made at.
  size_t made = firstPlaceOf(save, 4242);
  ASSERT_NE(made, std::string::npos);
  size_t at = made - (compiled() ? 16 : 10);
  std::string why = refusal(*pack, changed(save, at, uint32_t(2)));
  EXPECT_NE(why.find("holder is no actor in play"), std::string::npos) << why;
  why = refusal(*pack, changed(save, at, uint32_t(0)));
  EXPECT_NE(why.find("generation is 0"), std::string::npos) << why;
}

// An actor of no archetype: no make makes one, and a world reading one
// would read its archetype's bases past their table.
TEST_P(BothEngines, AnActorOfNoArchetypeIsRefused) {
  World w = world();
  EXPECT_EQ(w.make(pack::kNoId), Handle(0));
  w.advance(4242);
  w.make(archetype("Dummy"));
  w.advance(3);
  std::string save = w.saveBytes();
  size_t made = firstPlaceOf(save, 4242);
  ASSERT_NE(made, std::string::npos);
  std::string why = refusal(*pack, changed(save, made - (compiled() ? 12 : 6), pack::kNoId));
  EXPECT_NE(why.find("of no archetype"), std::string::npos) << why;
}

// An every rule's next run set before now: the world would run every run
// it missed, one at a time, as it next moves.
TEST_P(BothEngines, AnEveryRulesNextRunBeforeNowIsRefused) {
  World w = world();
  Handle d = w.make(archetype("Dummy"));
  w.advance(777);
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  w.advance(5);
  std::string save = w.saveBytes();
  size_t at = firstPlaceOf(save, 787'000'000); // put on at 77.7s, its first run a second on
  ASSERT_NE(at, std::string::npos);
  std::string why = refusal(*pack, changed(save, at, int64_t(777'000'001)));
  EXPECT_NE(why.find("times are none"), std::string::npos) << why;
  EXPECT_EQ(refusal(*pack, changed(save, at, int64_t(788'000'000))).find("the save is damaged"), 0u);
}

// An instance's end moved off its timer's: it would never end.
TEST_P(BothEngines, AnEndItsTimerDoesntKeepIsRefused) {
  World w = world();
  Handle d = w.make(archetype("Dummy"));
  w.advance(777);
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  std::string save = w.saveBytes();
  size_t at = firstPlaceOf(save, 854'000'000); // 77.7s, and 7.7s more
  ASSERT_NE(at, std::string::npos);
  std::string why = refusal(*pack, changed(save, at, int64_t(855'000'000)));
  EXPECT_NE(why.find("end has no timer"), std::string::npos) << why;
}

// A stat's last reading past its bounds (a time stat's would run its clock
// as fast as it says).
TEST_P(BothEngines, AStatReadPastItsBoundsIsRefused) {
  World w = world();
  Handle d = w.make(archetype("Dummy"));
  ASSERT_EQ(w.value(d, value("Speed")), 2'750'000);
  std::string save = w.saveBytes();
  size_t at = firstPlaceOf(save, 2'750'000);
  ASSERT_NE(at, std::string::npos);
  std::string why = refusal(*pack, changed(save, at, int64_t(5'000'000)));
  EXPECT_NE(why.find("past its bounds"), std::string::npos) << why;
  EXPECT_EQ(refusal(*pack, changed(save, at, int64_t(3'000'000))), "");
}

// An instance's stacks past its effect's cap: what reads them (a deal of
// self.stacks, a modifier by stacks) would read more than any apply holds.
TEST_P(BothEngines, StacksPastTheirCapAreRefused) {
  World w = world();
  Handle d = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.apply(effect("Mark"), 1'250'000, d, 0, {}, {}).ok());
  std::string save = w.saveBytes();
  size_t at = firstPlaceOf(save, 1'250'000);
  ASSERT_NE(at, std::string::npos);
  std::string why = refusal(*pack, changed(save, at, int64_t(9'000'000)));
  EXPECT_NE(why.find("past its effect's cap"), std::string::npos) << why;
  EXPECT_EQ(refusal(*pack, changed(save, at, int64_t(3'000'000))), "");
}

// A slot's generation at the last there is: the next instance in it rounds
// to 1, never to 0, which a world read back refuses.
TEST_P(BothEngines, AGenerationPastTheLastRoundsToOne) {
  World w = world();
  w.make(archetype("Dummy")); // d in the second slot: its handle no instance's
  Handle d = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  ASSERT_TRUE(w.remove(effect("Burn"), d).ok());
  std::string save = w.saveBytes(), why;
  // An instance's generation, then the head or the storage before its holder.
  size_t holder = onlyPlaceOf(save, bytesOf(d));
  ASSERT_NE(holder, std::string::npos);
  std::optional<World> back = World::loadSave(*pack, changed(save, holder - (compiled() ? 24 : 43), UINT32_MAX), why);
  ASSERT_TRUE(back) << why;
  ASSERT_TRUE(back->apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  EXPECT_TRUE(World::loadSave(*pack, back->saveBytes(), why)) << why;
}

// A save's bytes are its world's alone: the bytes between a compiled
// world's timer's fields, whatever they held as it was made or read, are
// written cleared. (The reference engine writes each field alone.)
TEST_P(BothEngines, ATimersPaddingIsWrittenCleared) {
  if (!compiled())
    GTEST_SKIP();
  World w = world();
  Handle d = w.make(archetype("Dummy"));
  w.advance(777);
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  std::string save = w.saveBytes(), why;
  // Its end, on the instance, then on its timer: due, tick, seq, instance,
  // rule, version, phase, kind, then six bytes to its width.
  size_t instance = firstPlaceOf(save, 854'000'000);
  ASSERT_NE(instance, std::string::npos);
  size_t timer = save.find(bytesOf(854'000'000), instance + 1);
  ASSERT_NE(timer, std::string::npos);
  std::optional<World> back = World::loadSave(*pack, changed(save, timer + 42, uint32_t(0xabababab)), why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->saveBytes(), save);
}

// An auto refused by its holder sleeps; a world read back has every auto
// awake, and saves so: a save read back saves the bytes it was read from.
TEST_P(BothEngines, ASleepingAutoSavesAsItReadsBack) {
  World w = world();
  Handle c = w.make(archetype("Caster"));
  ASSERT_TRUE(w.apply(effect("Spender"), rt::kOne, c, 0, {}, {}).ok());
  w.advance(2);
  std::string save = w.saveBytes(), why;
  std::optional<World> back = World::loadSave(*pack, save, why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->saveBytes(), save);
}

// An actor's list of its instances, oldest first, broken: the second names
// no instance before it, so one taken off would unlink the wrong one. The
// reference engine keeps its list as indices: one named twice, the other
// held by no one.
TEST_P(BothEngines, AnActorsInstancesNotHeldTogetherAreRefused) {
  World w = world();
  w.make(archetype("Dummy")); // d in the second slot: its handle no instance's
  Handle d = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  ASSERT_TRUE(w.apply(effect("Mark"), rt::kOne, d, 0, {}, {}).ok());
  std::string save = w.saveBytes(), damaged;
  if (compiled()) {
    // An instance's head: generation, flags, effect, the next and the one
    // before among its holder's, the next of its effect, its holder.
    size_t first = firstPlaceOf(save, d);
    ASSERT_NE(first, std::string::npos);
    size_t second = save.find(bytesOf(d), first + 1);
    ASSERT_NE(second, std::string::npos);
    damaged = changed(save, second - 8, uint32_t(0));
  } else {
    // Its list: a count, then each instance's index.
    size_t held = onlyPlaceOf(save, bytesOf(2) + std::string("\0\0\0\0\1\0\0\0", 8));
    ASSERT_NE(held, std::string::npos);
    damaged = changed(save, held + 12, uint32_t(0));
  }
  EXPECT_NE(refusal(*pack, damaged).find("the save is damaged: "), std::string::npos);
  EXPECT_NE(refusal(*pack, damaged).find("instance"), std::string::npos) << refusal(*pack, damaged);
}

INSTANTIATE_TEST_SUITE_P(Saves, BothEngines, ::testing::Values(Engine::Reference, Engine::Compiled),
                         [](const auto &info) {
                           return info.param == Engine::Compiled ? "Compiled" : "Reference";
                         });

class KernelSaves : public ::testing::Test {
protected:
  void SetUp() override { pack = packOf(kKernelCatalog, Engine::Reference); }
  pack::Id archetype(std::string_view name) { return pack->tables().find(pack->tables().archetypes, name); }
  pack::Id effect(std::string_view name) { return pack->tables().find(pack->tables().effects, name); }
  std::unique_ptr<rt::Pack> pack;
};

// A journal entry: its tick, amount, landed, subject, source and credit,
// then the ids it names (event, effect, ability, pool), then where its tags
// stand. An id past its pack's table, or tags past the journal's, would be
// read past their ends as the journal is written out as words, whichever
// way it is kept now.
TEST_F(KernelSaves, AJournalEntryNamingWhatThePackLacksIsRefused) {
  World w(*pack);
  Handle d = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.deal(13'579'000, d, 0).ok());
  w.setJournalMode(rt::JournalMode::HashOnly);
  std::string save = w.saveBytes();
  size_t amount = firstPlaceOf(save, 13'579'000);
  ASSERT_NE(amount, std::string::npos);
  std::string why = refusal(*pack, changed(save, amount + 40, uint32_t(999)));
  EXPECT_NE(why.find("journal entry"), std::string::npos) << why;
  why = refusal(*pack, changed(save, amount + 56, uint32_t(999)));
  EXPECT_NE(why.find("journal entry"), std::string::npos) << why;
}

// A clock anchored far ahead of where it runs: the every rules on it would
// run every run between, one at a time, as the world next moves.
TEST_F(KernelSaves, AClockAnchoredPastItsTimeIsRefused) {
  World w(*pack);
  Handle d = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.apply(effect("Burn"), rt::kOne, d, 0, {}, {}).ok());
  w.advance(4321);
  ASSERT_TRUE(w.apply(effect("Haste"), rt::kOne, d, 0, {}, {}).ok());
  std::string save = w.saveBytes();
  // Its anchor, world time and its own, retimed at 432.1s, and its rate.
  std::string clock = bytesOf(4'321'000'000) + bytesOf(4'321'000'000) + bytesOf(1'250'000);
  size_t anchor = onlyPlaceOf(save, clock);
  ASSERT_NE(anchor, std::string::npos);
  size_t at = anchor + 8;
  std::string why = refusal(*pack, changed(save, at, int64_t(1'000'000'000'000'000)));
  EXPECT_NE(why.find("times are none"), std::string::npos) << why;
  why = refusal(*pack, changed(save, at + 8, int64_t(-1)));
  EXPECT_NE(why.find("clock is anchored"), std::string::npos) << why;
}

// An instance's storage: its generation, then where its vars, captured
// amounts, every rules' runs and properties stand and how many each holds,
// then its flags, effect and holder. Room for fewer captured amounts than
// its effect's modifiers and link overrides would have them read in
// another instance's.
TEST_F(KernelSaves, AnInstancesStorageShortOfItsEffectsIsRefused) {
  World w(*pack);
  w.setJournalMode(rt::JournalMode::Off);
  Handle red = w.make(archetype("Dummy")), d = w.make(archetype("Dummy"));
  ASSERT_TRUE(w.apply(effect("Charm"), rt::kOne, d, red, {}, {}).ok());
  std::string save = w.saveBytes();
  size_t holder = onlyPlaceOf(save, bytesOf(d));
  ASSERT_NE(holder, std::string::npos);
  std::string why = refusal(*pack, changed(save, holder - 27, uint32_t(0)));
  EXPECT_NE(why.find("storage isn't its effect's"), std::string::npos) << why;
}

} // namespace

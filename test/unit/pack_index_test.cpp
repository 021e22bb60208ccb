// What the kernel works out from a pack as it loads: which rules may hear
// which events, which effects move no value, which bases and bounds need no
// body, how stats are cached. Each is a shortcut the kernel trusts, so each
// is pinned here on a catalog made to tell them apart.
#include "driver/frontend.h"
#include "ir/ir.h"
#include "kernel/pack_index.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ledger;
using pack::BuiltinEvent;
using pack::Id;
using rt::PackIndex;

namespace {

constexpr const char *kCatalog = R"(rate 10
tags Marked
stat MaxHealth min 1
stat Power default 2
stat Flow default 10
pool Health max MaxHealth
pool Ward max MaxHealth * 2
pool Mana max 100 regen Flow per 1s
effect Watcher
    after Activate of holder
        gain Mana 1
effect Guard
    before Damage of holder
        reduce 1
effect Mark
    tags Marked
    lasts 1s
effect Wary
    after Damage targeting holder
        gain Mana 1
effect Striker
    after Damage by holder
        gain Mana 1
    after Heal
        gain Mana 1
effect Might
    Power + 1
archetype Dummy
    base MaxHealth 100
    full Health Ward
    with Mana = 0
)";

constexpr const char *kWorldDrift = R"(rate 10
stat Surge default 0
pool Fury max 100
pool Spark max 100 regen Surge per 1s
archetype Caster
    base Surge Fury / 10
    with Fury = 0, Spark = 0
)";

struct Indexed {
  pack::Tables tables;
  PackIndex index;
};

Indexed indexed(const char *text) {
  auto fe = runFrontendOnText("index.ledger", text, FileRole::Catalog);
  EXPECT_TRUE(fe->ok());
  Indexed out;
  out.tables = ir::lower(fe->tree, fe->decls, fe->diags);
  out.index = rt::indexPack(out.tables);
  return out;
}

template <typename List> Id named(const pack::Tables &t, const List &list, std::string_view name) {
  for (Id i = 0; i < list.size(); ++i)
    if (t.name(list[i].name) == name)
      return i;
  ADD_FAILURE() << "no " << name;
  return pack::kNoId;
}

uint8_t hears(const Indexed &x, Id effect, int phase, BuiltinEvent kind) {
  return x.index.heardKinds[(size_t(effect) * 2 + phase) * x.index.eventCount + Id(kind)];
}

bool namesTag(const Indexed &x, Id effect, int phase, pack::BuiltinTag tag) {
  const uint64_t *w = &x.index.heardTags[(size_t(effect) * 2 + phase) * x.index.tagWords];
  return (w[Id(tag) / 64] >> (Id(tag) % 64)) & 1;
}

} // namespace

TEST(PackIndex, ARuleNamingAnEventHearsThatKindAloneInItsPhase) {
  Indexed x = indexed(kCatalog);
  Id watcher = named(x.tables, x.tables.effects, "Watcher");
  EXPECT_TRUE(hears(x, watcher, 1, BuiltinEvent::Activate));
  EXPECT_FALSE(hears(x, watcher, 1, BuiltinEvent::Apply));
  EXPECT_FALSE(hears(x, watcher, 0, BuiltinEvent::Activate));
}

TEST(PackIndex, ARuleNamingATagAloneHearsWhatCarriesItOfAnyKind) {
  Indexed x = indexed(kCatalog);
  Id guard = named(x.tables, x.tables.effects, "Guard");
  EXPECT_FALSE(hears(x, guard, 0, BuiltinEvent::Change)) << "no kind is named";
  EXPECT_FALSE(hears(x, guard, 0, BuiltinEvent::Apply));
  EXPECT_TRUE(namesTag(x, guard, 0, pack::BuiltinTag::Damage));
  EXPECT_FALSE(namesTag(x, guard, 0, pack::BuiltinTag::Heal));
  EXPECT_FALSE(namesTag(x, guard, 1, pack::BuiltinTag::Damage)) << "no after rule";
  EXPECT_EQ(x.index.heardTagRoles[size_t(guard) * 2 + 0], PackIndex::kSubject) << "of holder";
}

TEST(PackIndex, AKindNoRuleOfAPhaseMayHearIsPassedOverWhole) {
  Indexed x = indexed(R"(rate 10
pool Mana max 100
effect Watcher
    after Activate of holder
        gain Mana 1
archetype Dummy
    with Mana = 0
)");
  auto heard = [&](int phase, BuiltinEvent kind) {
    return x.index.kindHeard[size_t(phase) * x.index.eventCount + Id(kind)];
  };
  EXPECT_TRUE(heard(1, BuiltinEvent::Activate));
  EXPECT_FALSE(heard(1, BuiltinEvent::Apply));
  EXPECT_FALSE(heard(0, BuiltinEvent::Activate)) << "no before rule at all";
  Indexed tagged = indexed(kCatalog);
  EXPECT_FALSE(tagged.index.kindHeard[0 * tagged.index.eventCount + Id(BuiltinEvent::Apply)])
      << "Guard names a tag, no kind";
  Id damage = Id(pack::BuiltinTag::Damage);
  EXPECT_TRUE((tagged.index.tagsHeard[0 * tagged.index.tagWords + damage / 64] >> (damage % 64)) & 1)
      << "an event of any kind carrying Damage may be heard";
}

TEST(PackIndex, ARuleHearsWhereItsFilterStandsItsHolder) {
  Indexed x = indexed(kCatalog);
  Id watcher = named(x.tables, x.tables.effects, "Watcher");
  Id striker = named(x.tables, x.tables.effects, "Striker");
  EXPECT_EQ(hears(x, watcher, 1, BuiltinEvent::Activate), PackIndex::kSubject) << "of holder";
  // Striker's rules, each naming a pool's change by its tag: by holder, its
  // source; naming no one, of holder, its subject.
  EXPECT_EQ(x.index.heardTagRoles[size_t(striker) * 2 + 1], PackIndex::kSource | PackIndex::kSubject);
  EXPECT_EQ(x.index.heardTagRoles[size_t(striker) * 2 + 0], 0);
  EXPECT_FALSE(x.index.wideEffect[striker]);
}

TEST(PackIndex, ARuleNamingWhomItsActivationTargetedIsHeardOnEveryEvent) {
  Indexed x = indexed(kCatalog);
  EXPECT_TRUE(x.index.wideEffect[named(x.tables, x.tables.effects, "Wary")]);
}

TEST(PackIndex, OnlyAnEffectWithATermSuspensionOrOverrideMovesValues) {
  Indexed x = indexed(kCatalog);
  EXPECT_TRUE(x.index.inert[named(x.tables, x.tables.effects, "Mark")]);
  EXPECT_TRUE(x.index.inert[named(x.tables, x.tables.effects, "Watcher")]);
  EXPECT_FALSE(x.index.inert[named(x.tables, x.tables.effects, "Might")]);
}

TEST(PackIndex, ANumberOrAHolderStatReadBareNeedsNoBody) {
  Indexed x = indexed(kCatalog);
  const pack::Tables &t = x.tables;
  const pack::Value &health = t.values[named(t, t.values, "Health")];
  const pack::Value &ward = t.values[named(t, t.values, "Ward")];
  const pack::Value &maxHealth = t.values[named(t, t.values, "MaxHealth")];
  EXPECT_EQ(x.index.plain[health.maxBody].kind, PackIndex::Plain::HolderStat);
  EXPECT_EQ(x.index.plain[health.maxBody].stat, named(t, t.values, "MaxHealth"));
  EXPECT_EQ(x.index.plain[ward.maxBody].kind, PackIndex::Plain::Body);
  EXPECT_EQ(x.index.plain[maxHealth.minBody].kind, PackIndex::Plain::Number);
  EXPECT_EQ(x.index.plain[maxHealth.minBody].number, 1'000'000);
}

TEST(PackIndex, PoolsReadTheWorldOnlyWhereTheirDriftOrBoundsDo) {
  Indexed own = indexed(kCatalog);
  EXPECT_FALSE(own.index.poolsReadWorld);
  for (PackIndex::StatCache kind : own.index.statCache)
    EXPECT_EQ(kind, PackIndex::StatCache::Holder);
  Indexed world = indexed(kWorldDrift);
  EXPECT_TRUE(world.index.poolsReadWorld);
  EXPECT_EQ(world.index.statCache[named(world.tables, world.tables.values, "Surge")],
            PackIndex::StatCache::World);
  // Spark's drift reads the world: it keeps its rate until a moment moves it.
  Id spark = named(world.tables, world.tables.values, "Spark");
  EXPECT_EQ(world.index.worldDrifts, std::vector<Id>{spark});
  EXPECT_TRUE(own.index.worldDrifts.empty()) << "Mana's drift reads its holder's Flow alone";
}

TEST(PackIndex, BoundsCountingAQueryAreHeldThroughAMoment) {
  Indexed x = indexed(R"(rate 10
tags Hero
link side
allegiance side
stat Cheer default 0
pool Courage max 10 * count(all allies having Hero)
pool Spirit max Cheer
pool Plain max 5 regen Cheer
archetype Soldier
    tags Hero
    base Cheer count(all allies)
    pools Courage Spirit Plain
)");
  Id courage = named(x.tables, x.tables.values, "Courage");
  Id spirit = named(x.tables, x.tables.values, "Spirit");
  Id plain = named(x.tables, x.tables.values, "Plain");
  EXPECT_TRUE(x.index.boundsReadCount[courage]);
  EXPECT_TRUE(x.index.boundsReadCount[spirit]) << "its maximum reads a stat whose base counts";
  EXPECT_FALSE(x.index.boundsReadCount[plain]) << "a drift reading a count isn't a bound";
  EXPECT_EQ(x.index.worldDrifts, std::vector<Id>{plain});
}

TEST(PackIndex, APoolReadingTheWorldFollowsOnlyWhatItReads) {
  Indexed x = indexed(R"(rate 10
tags Hero
link side owner
link camp global
allegiance side
stat Power default 1
stat Flow default 0
stat Cheer default 0
stat Tide default 0
stat Fury default 0
pool Rage max 100
pool Well max 100 regen Power
pool Trickle max 100 regen Flow
pool Chorus max 100 regen Cheer
pool Seep max 100 regen Tide
pool Nerve min holder.owner.Fury max 100
pool Watch min camp.Power max 100
pool Own max Power
stat Glow default 0
pool Light max 100 regen Glow
effect Kindle
    Glow + source.Power live
effect Sear
    Glow + source.Fury live
archetype Lord
    base Fury Rage / 2
    pools Rage
archetype Pet
    base Flow holder.owner.Power
    base Cheer count(all allies having Hero)
    base Tide Well
    pools Trickle Chorus Seep Nerve Watch Own Well Light
)");
  const pack::Tables &t = x.tables;
  auto reach = [&](const char *pool) { return x.index.reach[named(t, t.values, pool)]; };
  Id owner = named(t, t.links, "owner"), camp = named(t, t.links, "camp");
  EXPECT_EQ(reach("Trickle").links, std::vector<Id>{owner});
  EXPECT_FALSE(reach("Trickle").everything || reach("Trickle").counts);
  EXPECT_TRUE(reach("Chorus").counts);
  EXPECT_TRUE(reach("Chorus").links.empty());
  EXPECT_TRUE(reach("Seep").everything) << "Well drifts: it moves with no change to follow";
  EXPECT_EQ(reach("Nerve").links, std::vector<Id>{owner})
      << "Fury reads lord's Rage, which moves only by changes to lord";
  EXPECT_FALSE(reach("Nerve").everything);
  EXPECT_EQ(reach("Watch").globals, std::vector<Id>{camp});
  std::vector<Id> linkBounds = {named(t, t.values, "Nerve"), named(t, t.values, "Watch")};
  EXPECT_EQ(x.index.linkBounds, linkBounds);
  EXPECT_EQ(std::count(x.index.readerPools.begin(), x.index.readerPools.end(), named(t, t.values, "Own")),
            0)
      << "a bound reading its holder alone is no reader's";
  EXPECT_TRUE(reach("Light").sources) << "a live term reads its instance's source";
  EXPECT_FALSE(reach("Light").everything) << "Fury follows only the source's own Rage";
  EXPECT_TRUE(x.index.termsReadSource[named(t, t.effects, "Kindle")]);
  EXPECT_TRUE(x.index.readersEverything);
}

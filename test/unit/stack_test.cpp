// A chain nesting deeper than the calling thread's stack holds is ended with
// a fault, as its budget ends one, on both engines, and the world goes on;
// never a stack overflow (runtime/thread_stack.h).
#include "packs_for_tests.h"
#include "world.h"

#include <gtest/gtest.h>

#include <pthread.h>

#include <functional>
#include <string>

using namespace ledger;
using test::Engine;

namespace {

// test/plays/fuzz/deep_chain.ledger: each Damage's before rule deals again,
// nesting as deep as the chain's budget, 1,000 events.
constexpr const char *kDeepChain = R"(tags Melee
link owner
stat Luck
curve Ramp
    0 0
effect Fx1
effect Fx2
    before Damage when 1 > highest(all allies unless Melee, it.Luck)
        absorb up to (count(event.source.owner, Fx1) + Ramp((39 * highest(held(holder), it.stacks))))
        deal 0 to event.subject
ability Ab3
    target 2
    deal round(has(holder, Fx2)) to targets
archetype Ar1
    has Fx2
archetype Ar4
    grants Ab3
)";

// Runs `work` on a thread of its own with a stack of `bytes`.
void onStackOf(size_t bytes, std::function<void()> work) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto run = [](void *w) -> void * {
    (*static_cast<std::function<void()> *>(w))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &work), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

class ThreadStack : public ::testing::TestWithParam<Engine> {};

TEST_P(ThreadStack, AChainDeeperThanTheStackHoldsEndsWithAFault) {
  std::unique_ptr<rt::Pack> pack = test::packOf(kDeepChain, GetParam());
  ASSERT_TRUE(pack);
  const pack::Tables &t = pack->tables();
  rt::World world(*pack);
  rt::Handle u1 = world.make(t.find(t.archetypes, "Ar4"));
  rt::Handle u3 = world.make(t.find(t.archetypes, "Ar1"));
  pack::Id ab3 = t.find(t.abilities, "Ab3");
  // 1 MiB: a tenth of what the deepest chain takes on the reference engine,
  // half on the compiled one.
  onStackOf(1 << 20, [&] { EXPECT_TRUE(world.act(u1, ab3, {u3, u1}).ok()); });
  std::string journal = world.journalText();
  EXPECT_NE(journal.find("ChainBudget: a chain nested deeper than the host thread's stack holds, "
                         "and the world ended it in Fx2"),
            std::string::npos)
      << journal;
  EXPECT_EQ(journal.find("raised more than 1000 events"), std::string::npos) << journal;
  // The world goes on, on this thread's stack as on the small one.
  world.advance(1);
  onStackOf(1 << 20, [&] { EXPECT_TRUE(world.act(u1, ab3, {u3, u1}).ok()); });
  EXPECT_TRUE(world.alive(u1) && world.alive(u3));
}

INSTANTIATE_TEST_SUITE_P(Engines, ThreadStack, ::testing::Values(Engine::Reference, Engine::Compiled),
                         [](const ::testing::TestParamInfo<Engine> &info) {
                           return info.param == Engine::Compiled ? "Compiled" : "Reference";
                         });

} // namespace

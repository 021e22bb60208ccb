// The compiled engine's growable array, over a host allocator that always
// moves a block and poisons the one it lets go: an item read from the old
// block after it moved reads the poison, not what was there.
#include "compiled/machinery/vec.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>

namespace ledger::cw {
const LedgerHost *gHost = nullptr;
}

namespace {

constexpr unsigned char kPoison = 0xAA;
std::map<void *, uint64_t> sizes;

void *movingReallocate(void *, void *block, uint64_t bytes) {
  void *moved = bytes ? std::malloc(bytes) : nullptr;
  if (block) {
    uint64_t had = sizes[block];
    if (moved)
      std::memcpy(moved, block, had < bytes ? had : bytes);
    std::memset(block, kPoison, had);
    sizes.erase(block);
    std::free(block);
  }
  if (moved)
    sizes[moved] = bytes;
  return moved;
}

const LedgerHost kMovingHost{nullptr, movingReallocate, nullptr, 0};

class MachineryVec : public ::testing::Test {
protected:
  void SetUp() override { ledger::cw::gHost = &kMovingHost; }
  void TearDown() override { ledger::cw::gHost = nullptr; }
};

// A cast copying whom it is cast at pushes an item of the same list: the
// push that grows the block must not read it from the block it let go.
TEST_F(MachineryVec, PushOfItsOwnItemAsItGrows) {
  ledger::cw::Vec<int64_t> v;
  for (int64_t k = 0; k < 8; ++k)
    v.push(100 + k);
  for (int64_t k = 0; k < 40; ++k)
    v.push(v[uint32_t(k)]); // full at 8, 16 and 32: each of those grows it
  for (uint32_t k = 0; k < v.size(); ++k)
    EXPECT_EQ(v[k], 100 + int64_t(k % 8)) << k;
}

TEST_F(MachineryVec, InsertAndAppendOfItsOwnItemAsItGrows) {
  ledger::cw::Vec<int64_t> v;
  for (int64_t k = 0; k < 8; ++k)
    v.push(k);
  v.insertAt(0, v[7]); // grows, and shifts the item it copies
  EXPECT_EQ(v[0], 7);
  EXPECT_EQ(v[8], 7);
  v.append(20, v[1]); // grows past 16
  for (uint32_t k = 9; k < v.size(); ++k)
    EXPECT_EQ(v[k], 0) << k;
}

// A slot let go leaves every list naming it; the others keep their order.
TEST_F(MachineryVec, EraseEveryKeepsTheOthersInOrder) {
  ledger::cw::Vec<uint32_t> v;
  for (uint32_t x : {5u, 1u, 5u, 2u, 3u, 5u})
    v.push(x);
  v.eraseEvery(5);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 1u);
  EXPECT_EQ(v[1], 2u);
  EXPECT_EQ(v[2], 3u);
}

} // namespace

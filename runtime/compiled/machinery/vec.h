// A growable array, its memory the host's (LedgerHost's allocator): the
// machinery's storage. Its items move as it grows, as bytes: none may point
// into itself. Nothing here runs per event once a world has grown to its
// size.
#pragma once

#include "compiled/engine_abi.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace ledger::cw {

// The host a world's memory comes from: one for the process, handed to
// every world the runtime makes.
extern const LedgerHost *gHost;

[[noreturn]] inline void outOfMemory() { __builtin_trap(); }

inline void *reallocate(void *block, uint64_t bytes) {
  void *p = gHost->reallocate(gHost->context, block, bytes);
  if (!p && bytes)
    outOfMemory();
  return p;
}

template <typename T> class Vec {
public:
  Vec() = default;
  Vec(const Vec &other) { *this = other; }
  Vec &operator=(const Vec &other) {
    if (this != &other) {
      clear();
      reserve(other.size_);
      if constexpr (std::is_trivially_copyable_v<T>) {
        if (other.size_)
          std::memcpy(static_cast<void *>(data_), other.data_, sizeof(T) * other.size_);
      } else {
        for (uint32_t i = 0; i < other.size_; ++i)
          new (data_ + i) T(other.data_[i]);
      }
      size_ = other.size_;
    }
    return *this;
  }
  ~Vec() { release(); }
  void release() {
    clear();
    if (data_)
      reallocate(data_, 0);
    data_ = nullptr;
    cap_ = 0;
  }

  T &operator[](uint32_t i) { return data_[i]; }
  const T &operator[](uint32_t i) const { return data_[i]; }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T &back() { return data_[size_ - 1]; }
  void clear() { truncate(0); }
  void pop() { truncate(size_ - 1); }
  void truncate(uint32_t n) {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (uint32_t i = n; i < size_; ++i)
        data_[i].~T();
    if (n < size_)
      size_ = n;
  }

  void swap(Vec &other) {
    T *data = data_;
    uint32_t size = size_, cap = cap_;
    data_ = other.data_;
    size_ = other.size_;
    cap_ = other.cap_;
    other.data_ = data;
    other.size_ = size;
    other.cap_ = cap;
  }
  void reserve(uint32_t n) {
    if (n <= cap_)
      return;
    uint32_t cap = cap_ ? cap_ : 8;
    while (cap < n)
      cap = cap > 0x7fffffffu ? 0xffffffffu : cap * 2;
    data_ = static_cast<T *>(reallocate(data_, uint64_t(cap) * sizeof(T)));
    cap_ = cap;
  }
  // The item may be one of this Vec's own: copied before the block moves,
  // as std::vector does, or it would be read from the block let go.
  T &push(const T &item) {
    if (size_ == cap_) [[unlikely]]
      return pushGrowing(item);
    new (data_ + size_) T(item);
    return data_[size_++];
  }
  // One more item, default-initialised: its fields' own initialisers only,
  // for the caller to fill.
  T &pushDefault() {
    if (size_ == cap_)
      grow();
    T *item = new (data_ + size_) T;
    ++size_;
    return *item;
  }
  // n more items, each a copy of fill (which may be one of its own).
  T *append(uint32_t n, const T &fill) {
    T copy(fill);
    reserve(size_ + n);
    T *at = data_ + size_;
    for (uint32_t i = 0; i < n; ++i)
      new (at + i) T(copy);
    size_ += n;
    return at;
  }
  void resize(uint32_t n, const T &fill) {
    if (n > size_)
      append(n - size_, fill);
    else
      size_ = n;
  }
  // Every item equal to `item` taken out, the others' order kept.
  void eraseEvery(T item) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < size_; ++i)
      if (!(data_[i] == item))
        data_[kept++] = data_[i];
    truncate(kept);
  }
  void eraseAt(uint32_t i) {
    std::memmove(static_cast<void *>(data_ + i), data_ + i + 1, sizeof(T) * (size_ - i - 1));
    --size_;
  }
  void insertAt(uint32_t i, const T &item) {
    T copy(item); // it may be one of its own, which the move below shifts
    if (size_ == cap_)
      grow();
    std::memmove(static_cast<void *>(data_ + i + 1), data_ + i, sizeof(T) * (size_ - i));
    data_[i] = copy;
    ++size_;
  }

private:
  // Out of line: a world grows once to its size, and the push stays small.
  [[gnu::noinline]] void grow() { reserve(size_ + 1); }
  [[gnu::noinline]] T &pushGrowing(T item) {
    grow();
    new (data_ + size_) T(static_cast<T &&>(item));
    return data_[size_++];
  }

  T *data_ = nullptr;
  uint32_t size_ = 0, cap_ = 0;
};

// Rows of a width the catalog fixes (an actor's columns, an instance's
// slots), in one block. The width is the caller's constant, not a field, so
// a row's place is a multiply the pack's optimiser folds. The first row
// starts on a cache line wherever the allocator puts the block (a large one
// starts 16 bytes past a page), so a row's head is as few lines as its
// width allows; the block keeps a line to spare in front to slide them by.
class Rows {
public:
  static constexpr uint32_t kLine = 64;
  Rows() = default;
  Rows(const Rows &other) { *this = other; }
  Rows &operator=(const Rows &other) {
    if (this != &other) {
      block_ = other.block_;
      lead_ = other.lead_;
      count_ = other.count_;
      used_ = other.used_;
      first_ = nullptr;
      align();
    }
    return *this;
  }

  uint8_t *at(uint32_t i, uint32_t width) { return first_ + size_t(i) * width; }
  const uint8_t *at(uint32_t i, uint32_t width) const { return first_ + size_t(i) * width; }
  uint32_t size() const { return count_; }
  uint8_t *add(uint32_t width) {
    if (block_.empty())
      block_.append(kLine, 0);
    block_.append(width, 0);
    align();
    uint8_t *row = at(count_++, width);
    std::memset(row, 0, width);
    used_ += width;
    return row;
  }
  // The rows' bytes, for a save, and a save's read back: `counted` makes
  // them the rows once their width is known.
  const uint8_t *data() const { return first_; }
  uint64_t bytes() const { return used_; }
  void adopt(const uint8_t *bytes, uint64_t size) {
    block_.clear();
    block_.append(kLine, 0);
    std::memcpy(block_.append(uint32_t(size), 0), bytes, size);
    lead_ = kLine;
    used_ = size;
    count_ = 0;
    align();
  }
  void counted(uint32_t width) { count_ = width ? uint32_t(used_ / width) : 0; }

private:
  // Slides the rows onto the block's first line, where a growth or a copy
  // moved it.
  void align() {
    if (block_.empty())
      return;
    uint32_t lead = uint32_t(-reinterpret_cast<uintptr_t>(block_.data()) & (kLine - 1));
    if (lead != lead_)
      std::memmove(block_.data() + lead, block_.data() + lead_, used_);
    lead_ = lead;
    first_ = block_.data() + lead;
  }

  Vec<uint8_t> block_;
  uint8_t *first_ = nullptr; // the first row, on a line
  uint32_t lead_ = 0;        // its place in the block
  uint32_t count_ = 0;
  uint64_t used_ = 0;  // the rows' bytes
};

} // namespace ledger::cw

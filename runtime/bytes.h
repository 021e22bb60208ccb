// Bytes written and read field by field, little endian as the machines we
// ship on are, with no padding: a pack's blob and a world's save. A record
// type names its fields with a `fields(record)` found beside it; a reader
// given a count its bytes can't hold, or run past their end, stops and says
// so, and whatever read it is refused whole. What it reads is trusted no
// further: its reader checks each index and time before using it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ledger::bytes {

template <typename T>
concept Record = requires(T &r) { fields(r); };

// The bytes a T takes as written: its fields', with no padding.
template <typename T> size_t encodedSize() {
  if constexpr (Record<T>) {
    T probe{};
    return std::apply(
        [](auto &...f) { return (encodedSize<std::remove_cvref_t<decltype(f)>>() + ... + 0); },
        fields(probe));
  } else {
    return sizeof(T);
  }
}

struct Writer {
  std::string out;
  template <typename T> void pod(const T &value) {
    if constexpr (Record<T>) {
      std::apply([&](auto &...f) { (pod(f), ...); }, fields(const_cast<T &>(value)));
    } else {
      static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
      out.append(reinterpret_cast<const char *>(&value), sizeof(T));
    }
  }
  template <typename... F> void pods(const F &...fields) { (pod(fields), ...); }
  // A count, then each item as the caller walks it.
  template <typename V, typename Walk> void each(V &items, Walk walk) {
    pod(uint64_t(items.size()));
    for (auto &item : items)
      walk(item);
  }
  template <typename T> void vec(const std::vector<T> &items) {
    each(items, [&](const T &item) { pod(item); });
  }
  void strings(const std::vector<std::string> &items) {
    each(items, [&](const std::string &s) {
      pod(uint32_t(s.size()));
      out += s;
    });
  }
};

struct Reader {
  std::string_view in;
  size_t at = 0;
  bool ok = true;
  template <typename T> void pod(T &value) {
    if constexpr (Record<T>) {
      std::apply([&](auto &...f) { (pod(f), ...); }, fields(value));
    } else if constexpr (std::is_same_v<T, bool>) {
      // A truth is a byte of 0 or 1; any other is damage, not a third value.
      uint8_t byte = 0;
      pod(byte);
      ok = ok && byte <= 1;
      value = byte == 1;
    } else {
      if (!ok || in.size() - at < sizeof(T)) {
        ok = false;
        return;
      }
      std::memcpy(&value, in.data() + at, sizeof(T));
      at += sizeof(T);
    }
  }
  template <typename... F> void pods(F &...fields) { (pod(fields), ...); }
  // A count, then each item as the caller walks it. Every item takes at
  // least a byte: a count past the bytes left is damage. Items are made as
  // they are read, so a count the bytes can't hold runs out of bytes, not
  // of memory.
  template <typename T, typename Walk> void each(std::vector<T> &items, Walk walk) {
    uint64_t n = 0;
    pod(n);
    if (!ok || n > in.size() - at) {
      ok = false;
      return;
    }
    items.clear();
    for (uint64_t k = 0; k < n && ok; ++k)
      walk(items.emplace_back());
  }
  // A count of items each as wide as written: one past what the bytes left
  // hold is refused before any is made.
  template <typename T> void vec(std::vector<T> &items) {
    uint64_t n = 0;
    pod(n);
    if (!ok || n > (in.size() - at) / encodedSize<T>()) {
      ok = false;
      return;
    }
    items.resize(n);
    for (T &item : items)
      pod(item);
  }
  void strings(std::vector<std::string> &items) {
    each(items, [&](std::string &s) {
      uint32_t len = 0;
      pod(len);
      if (!ok || len > in.size() - at) {
        ok = false;
        return;
      }
      s.assign(in.data() + at, len);
      at += len;
    });
  }
};

} // namespace ledger::bytes

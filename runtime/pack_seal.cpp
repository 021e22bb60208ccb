#include "pack_seal.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace ledger::rt {

namespace {

constexpr char kMagic[8] = {'L', 'E', 'D', 'G', 'S', 'E', 'A', 'L'};
constexpr size_t kSealSize = sizeof(kMagic) + sizeof(uint64_t);

// FNV-1a: no dependency, and a flipped or missing byte changes it.
uint64_t hashOf(const char *bytes, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= uint8_t(bytes[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

void putLittle(char *out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out[i] = char(uint8_t(v >> (8 * i)));
}

uint64_t getLittle(const char *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(uint8_t(in[i])) << (8 * i);
  return v;
}

bool readAll(const std::string &path, std::vector<char> &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

} // namespace

bool sealPack(const std::string &path, std::string &error) {
  std::vector<char> bytes;
  if (!readAll(path, bytes)) {
    error = "can't read " + path + " to seal it";
    return false;
  }
  char seal[kSealSize];
  std::memcpy(seal, kMagic, sizeof(kMagic));
  putLittle(seal + sizeof(kMagic), hashOf(bytes.data(), bytes.size()));
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out.write(seal, kSealSize)) {
    error = "can't seal " + path;
    return false;
  }
  return true;
}

bool sealHolds(const std::string &path, std::string &why) {
  std::vector<char> bytes;
  if (!readAll(path, bytes)) {
    why = "can't read it";
    return false;
  }
  if (bytes.size() < kSealSize ||
      std::memcmp(bytes.data() + bytes.size() - kSealSize, kMagic, sizeof(kMagic)) != 0) {
    why = "it is no sealed ledger pack: `ledger build` seals every pack it makes";
    return false;
  }
  size_t body = bytes.size() - kSealSize;
  if (getLittle(bytes.data() + body + sizeof(kMagic)) != hashOf(bytes.data(), body)) {
    why = "it is damaged: its bytes don't match the seal `ledger build` gave them";
    return false;
  }
  return true;
}

} // namespace ledger::rt

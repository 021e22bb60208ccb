#include "pack_cache.h"

#include "pack_abi.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/SHA256.h>

#include <elf.h>
#include <link.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include <unistd.h>

namespace ledger::cache {

namespace fs = std::filesystem;

namespace {

// A kept pack unused this long is dropped as another is kept: a catalog
// since changed, or a `ledger` since rebuilt, never asks for it again.
constexpr auto kUnusedFor = std::chrono::hours(24 * 30);
// A build's file left by a process that died before renaming it.
constexpr auto kAbandonedAfter = std::chrono::hours(24);
constexpr std::string_view kBuilding = ".building-";

std::string hex(llvm::ArrayRef<uint8_t> bytes) { return llvm::toHex(bytes, /*LowerCase=*/true); }

// The GNU build id the linker gave this executable, in hex; empty if none.
std::string buildId() {
  std::string id;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *out) {
        for (int h = 0; h < info->dlpi_phnum; ++h) {
          const ElfW(Phdr) &segment = info->dlpi_phdr[h];
          if (segment.p_type != PT_NOTE)
            continue;
          auto *at = reinterpret_cast<const char *>(info->dlpi_addr + segment.p_vaddr);
          const char *end = at + segment.p_memsz;
          while (at + sizeof(ElfW(Nhdr)) <= end) {
            auto *note = reinterpret_cast<const ElfW(Nhdr) *>(at);
            const char *name = at + sizeof(ElfW(Nhdr));
            const char *desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0)
              *static_cast<std::string *>(out) = hex(
                  llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(desc), note->n_descsz));
            at = desc + ((note->n_descsz + 3) & ~3u);
          }
        }
        return 1; // the executable comes first: nothing after it is ours
      },
      &id);
  return id;
}

// Without a build id, the executable's own bytes say which build this is.
std::string executableDigest() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return hex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)));
}

// Whether the file was last written more than `age` ago (a kept pack's
// time is renewed each time it is used).
bool olderThan(const fs::directory_entry &entry, std::chrono::hours age) {
  std::error_code ec;
  auto written = entry.last_write_time(ec);
  return !ec && fs::file_time_type::clock::now() - written > age;
}

// Drops packs long unused and builds long abandoned; another process may be
// dropping them too, so a file already gone is no error.
void prune(const std::string &folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool building = name.find(kBuilding) != std::string::npos;
    if ((building && olderThan(*it, kAbandonedAfter)) ||
        (!building && name.ends_with(".so") && olderThan(*it, kUnusedFor))) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

// A file of its own in the folder for a build: `path` with a unique tail.
std::string buildingPath(const std::string &path) {
  static unsigned next = 0;
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return fmt::format("{}{}{}-{}-{}", path, kBuilding, getpid(), next++, now);
}

std::unique_ptr<rt::Pack> loadChecked(const std::string &path, uint64_t hash, std::string &why) {
  std::unique_ptr<rt::Pack> pack = rt::Pack::load(path, why);
  if (pack && pack->hash() != hash) {
    why = "it was built from another catalog";
    pack.reset();
  }
  return pack;
}

} // namespace

std::string folder() {
  auto set = [](const char *name) {
    const char *value = std::getenv(name);
    return value && *value ? std::string(value) : std::string();
  };
  if (std::string chosen = set("LEDGER_CACHE"); !chosen.empty())
    return chosen;
  // The XDG base directory rules ignore a relative path.
  if (std::string xdg = set("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/')
    return xdg + "/ledger";
  if (std::string home = set("HOME"); !home.empty())
    return home + "/.cache/ledger";
  return {};
}

const std::string &compilerIdentity() {
  static const std::string identity = [] {
    std::string build = buildId();
    return fmt::format("ledger {} LLVM {} pack ABI {} build {}", LEDGER_VERSION,
                       LLVM_VERSION_STRING, LEDGER_PACK_ABI_VERSION,
                       build.empty() ? executableDigest() : build);
  }();
  return identity;
}

std::string packPath(const std::string &folder, std::string_view blob) {
  llvm::SHA256 key;
  key.update(compilerIdentity());
  key.update(llvm::ArrayRef<uint8_t>{0});
  key.update(llvm::StringRef(blob.data(), blob.size()));
  std::array<uint8_t, 32> digest = key.final();
  // 128 bits name a pack well past any collision a cache will see.
  return folder + "/" + hex(llvm::ArrayRef<uint8_t>(digest).take_front(16)) + ".so";
}

Found find(const std::string &folder, const pack::Tables &tables, std::string_view blob,
           const Builder &build) {
  Found found;
  found.path = packPath(folder, blob);
  uint64_t hash = pack::catalogHash(tables);
  std::error_code ec;
  if (fs::exists(found.path, ec)) {
    found.pack = loadChecked(found.path, hash, found.refused);
    if (found.pack) {
      found.source = Source::Cached;
      fs::last_write_time(found.path, fs::file_time_type::clock::now(), ec);
      return found;
    }
    found.source = Source::Rebuilt;
  }
  fs::create_directories(folder, ec);
  if (ec) {
    found.error = fmt::format("can't make the pack cache {}: {}", folder, ec.message());
    found.unusable = true;
    return found;
  }
  std::string building = buildingPath(found.path);
  bool built = build(building, found.error);
  if (built) {
    fs::rename(building, found.path, ec);
    if (ec) {
      found.error = fmt::format("can't keep the pack at {}: {}", found.path, ec.message());
      found.unusable = true;
    }
  }
  if (!built || ec) {
    fs::remove(building, ec);
    return found;
  }
  std::string why;
  found.pack = loadChecked(found.path, hash, why);
  if (!found.pack)
    found.error = fmt::format("the pack {} is refused: {}", found.path, why);
  prune(folder);
  return found;
}

} // namespace ledger::cache

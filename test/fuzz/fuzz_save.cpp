// libFuzzer entry over reading a save: any bytes World::loadSave is given,
// on either engine, are refused with why or read as a world that is safe to
// run. Two packs, built from the catalogs of the plays whose saves seed the
// corpus: one the compiled engine specialises, whose machinery reads the
// save, and one using every form, whose worlds the generic kernel runs. Each
// input is read as it stands, then with its envelope made right for the
// pack (its catalog's hash, its body's hash), so that what is fuzzed is what
// each engine checks of the body, as a hostile save carrying a right hash
// would reach it. A world read is run a little: every read of every actor,
// orders, time, its journal's words; a save of it reads back, and saves as
// the same bytes again.
#include "number.h"
#include "pack.h"
#include "save_envelope.h"
#include "world.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace ledger;
using rt::Handle;
using rt::World;

std::unique_ptr<rt::Pack> packAt(const char *path, bool specialised) {
  std::string why;
  std::unique_ptr<rt::Pack> pack = rt::Pack::load(path, why);
  if (!pack) {
    std::fprintf(stderr, "fuzz_save: the pack %s is refused: %s\n", path, why.c_str());
    std::abort();
  }
  if ((pack->engine() != nullptr) != specialised) {
    std::fprintf(stderr, "fuzz_save: the pack %s %s the compiled engine's machinery\n", path,
                 specialised ? "lacks" : "carries");
    std::abort();
  }
  return pack;
}

std::vector<std::unique_ptr<rt::Pack>> &packs() {
  static std::vector<std::unique_ptr<rt::Pack>> all;
  return all;
}

// The input with its envelope made right for the pack: the catalog's hash
// (after the magic and the format), then the body's hash.
std::string resealed(std::string bytes, const rt::Pack &pack) {
  constexpr size_t kCatalogAt = 8 + sizeof(uint32_t);
  if (bytes.size() < rt::saves::kEnvelopeSize)
    return bytes;
  uint64_t hash = pack.hash();
  std::memcpy(bytes.data() + kCatalogAt, &hash, sizeof hash);
  rt::saves::seal(bytes);
  return bytes;
}

// Every read the host has, of every actor and every id the pack has.
void readAll(World &w) {
  const pack::Tables &t = w.tables();
  std::vector<Handle> living = w.living();
  for (Handle a : living) {
    (void)w.exists(a);
    (void)w.handleName(a);
    for (pack::Id v = 0; v < t.values.size(); ++v) {
      (void)w.value(a, v);
      (void)w.maximum(a, v);
      (void)w.hasPool(a, v);
    }
    for (pack::Id e = 0; e < t.effects.size(); ++e) {
      (void)w.holds(a, e);
      (void)w.stacksOf(a, e);
      for (rt::DurationUnit unit :
           {rt::DurationUnit::Time, rt::DurationUnit::Turns, rt::DurationUnit::Count})
        (void)w.remainingOf(a, e, unit);
    }
    for (pack::Id g = 0; g < t.tags.size(); ++g)
      (void)w.carries(a, g);
    for (pack::Id l = 0; l < t.links.size(); ++l)
      (void)w.handleName(w.linkOf(a, l));
  }
  for (pack::Id k = 0; k < t.archetypes.size(); ++k)
    (void)w.countOf(k);
  (void)w.journalText();
  (void)w.journalHash();
}

// A save of the world reads back as one that saves the same bytes.
void saveReadsBack(const World &w, const rt::Pack &pack) {
  std::string bytes = w.saveBytes(), why;
  std::optional<World> back = World::loadSave(pack, bytes, why);
  if (!back) {
    std::fprintf(stderr, "fuzz_save: a world read from a save saves what it can't read: %s\n",
                 why.c_str());
    std::abort();
  }
  if (back->saveBytes() != bytes) {
    std::fprintf(stderr, "fuzz_save: a save read back saves other bytes\n");
    std::abort();
  }
}

// A few orders of every kind a host gives, between the actors it holds.
void order(World &w) {
  const pack::Tables &t = w.tables();
  std::vector<Handle> living = w.living();
  if (living.size() > 4)
    living.resize(4);
  for (Handle a : living) {
    Handle other = living.back();
    for (pack::Id ab = 0; ab < t.abilities.size() && ab < 4; ++ab)
      (void)w.act(a, ab, {other});
    for (pack::Id e = 0; e < t.effects.size() && e < 4; ++e)
      (void)w.apply(e, rt::kOne, a, other, {}, {});
    (void)w.deal(3 * rt::kOne, a, other);
  }
  w.advance(1);
  if (!living.empty()) {
    (void)w.remove(0, living.front());
    (void)w.destroy(living.front());
  }
  for (pack::Id k = 0; k < t.archetypes.size() && k < 2; ++k)
    (void)w.make(k);
  w.advance(30);
}

void run(std::string_view bytes, const rt::Pack &pack) {
  std::string why;
  std::optional<World> w = World::loadSave(pack, bytes, why);
  if (!w)
    return;
  readAll(*w);
  saveReadsBack(*w, pack);
  order(*w);
  readAll(*w);
  saveReadsBack(*w, pack);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  packs().push_back(packAt(LEDGER_FUZZ_SAVE_SPECIALISED_PACK, true));
  packs().push_back(packAt(LEDGER_FUZZ_SAVE_GENERIC_PACK, false));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  for (const std::unique_ptr<rt::Pack> &pack : packs()) {
    run(bytes, *pack);
    run(resealed(std::string(bytes), *pack), *pack);
  }
  return 0;
}

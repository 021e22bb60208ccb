#include "save_envelope.h"

#include "bytes.h"
#include "random.h"

namespace ledger::rt::saves {

namespace {

constexpr char kMagic[8] = {'L', 'E', 'D', 'G', 'S', 'A', 'V', 'E'};
constexpr size_t kBodyHashAt = kEnvelopeSize - sizeof(uint64_t);

uint64_t bodyHash(std::string_view save) { return nameHash(save.substr(kEnvelopeSize)); }

} // namespace

std::string begin(uint32_t format, uint64_t catalog) {
  bytes::Writer w;
  w.out.assign(kMagic, sizeof kMagic);
  w.pods(format, catalog, uint64_t(0));
  return std::move(w.out);
}

void seal(std::string &save) {
  uint64_t hash = bodyHash(save);
  save.replace(kBodyHashAt, sizeof hash, reinterpret_cast<const char *>(&hash), sizeof hash);
}

bool open(std::string_view save, uint32_t format, uint64_t catalog, std::string_view &body,
          std::string &why) {
  if (save.size() < sizeof kMagic || save.compare(0, sizeof kMagic, kMagic, sizeof kMagic) != 0) {
    why = "not a ledger save";
    return false;
  }
  bytes::Reader r{save.substr(sizeof kMagic)};
  uint32_t written = 0;
  uint64_t writtenCatalog = 0, hash = 0;
  r.pods(written, writtenCatalog, hash);
  if (!r.ok) {
    why = "the save ends early";
    return false;
  }
  if (written != format) {
    why = "a save of format " + std::to_string(written) + ", and this runtime reads format " +
          std::to_string(format);
    return false;
  }
  if (writtenCatalog != catalog) {
    why = "a save of another catalog: its pack's hash isn't this pack's";
    return false;
  }
  if (hash != bodyHash(save)) {
    why = "the save is damaged: its bytes aren't those it was written as";
    return false;
  }
  body = save.substr(kEnvelopeSize);
  return true;
}

} // namespace ledger::rt::saves

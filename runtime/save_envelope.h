// A save's envelope, the same for both engines: the magic, the format of the
// world it holds (each engine's its own), the catalog's hash, and a hash of
// the body after it. Random damage (a disk's, a copy's) is refused by the
// body's hash before any of the world is read; a body carrying a right hash
// is read as untrusted all the same, each engine checking what it holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ledger::rt::saves {

// Magic, format, catalog hash, body hash: the bytes before the body.
constexpr size_t kEnvelopeSize = 8 + sizeof(uint32_t) + 2 * sizeof(uint64_t);

// A save's envelope, its body's hash left for seal.
std::string begin(uint32_t format, uint64_t catalog);
// The body's hash written into the envelope, once the body follows it.
void seal(std::string &save);
// The body of a save of this format and catalog; empty with why where the
// bytes are no save, another format's or catalog's, or damaged.
bool open(std::string_view save, uint32_t format, uint64_t catalog, std::string_view &body,
          std::string &why);

} // namespace ledger::rt::saves

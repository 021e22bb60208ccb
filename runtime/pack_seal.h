// A pack's seal: a hash of the bytes the build wrote, appended after them.
// A pack cut short or damaged is refused before the dynamic loader maps it:
// a loader applying a damaged file's relocations doesn't come back to say so.
#pragma once

#include <string>
#include <string_view>

namespace ledger::rt {

// Appends the seal to a shared object's bytes.
void seal(std::string &image);
// Whether the file at `path` ends with the seal of the bytes before it; a
// file that is no regular one, or past a pack's size, is refused unread.
bool sealHolds(const std::string &path, std::string &why);
// The same of a file's bytes in memory: what Pack::load reads of a file
// before the dynamic loader maps it.
bool sealHoldsOn(std::string_view bytes, std::string &why);

} // namespace ledger::rt

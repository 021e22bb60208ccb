// A pack's seal: a hash of the bytes the build wrote, appended after them.
// A pack cut short or damaged is refused before the dynamic loader maps it:
// a loader applying a damaged file's relocations doesn't come back to say so.
#pragma once

#include <string>
#include <string_view>

namespace ledger::rt {

// Appends the seal to a shared object's bytes.
void seal(std::string &image);
// The same of a file's bytes in memory: what Pack::load reads of a file
// before the dynamic loader maps it.
bool sealHoldsOn(std::string_view bytes, std::string &why);
// A file's bytes, read whole once it is known to be a regular file of a
// pack's size, its seal checked; false, with why, if not: a file that is no
// regular one, or past a pack's size, is refused unread.
bool readSealed(const std::string &path, std::string &bytes, std::string &why);

// A portable pack (`ledger build --portable`): the catalog's tables and
// bodies as data, no native code, run on the reference engine wherever
// native code can't or shouldn't be loaded. Its image: a magic, then the
// tables' blob, then the seal.
std::string portableImage(std::string_view blob);
// The blob of a sealed image that is a portable pack's; false if it is none.
bool portableBlob(std::string_view image, std::string_view &blob);

} // namespace ledger::rt

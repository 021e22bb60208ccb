// The typed header `ledger build --header ids.h` writes beside a pack: every
// content name of its catalog as a typed id (runtime/typed_ids.h), in one
// namespace a kind, and the catalog's hash, which the header's loadPack
// checks a pack against as it loads.
#pragma once

#include "pack_format.h"

#include <string>

namespace ledger::codegen {

// The header's text, its names in `space` (a C++ namespace, `a::b` for one
// in another), or false with why: two names of one kind that C++ would
// spell alike (`Fire.Bolt` and `Fire_Bolt`), or a namespace that is no C++
// name.
bool typedHeader(const pack::Tables &tables, const std::string &space, const std::string &catalog,
                 std::string &text, std::string &why);

// A C++ namespace made of a catalog's file name: its letters, digits and
// underscores, any other character an underscore.
std::string namespaceOf(const std::string &catalogPath);

} // namespace ledger::codegen

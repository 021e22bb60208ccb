// A catalog's text made into a pack for either engine, as the unit tests
// running both engines make them.
#pragma once

#include "pack.h"
#include "pack_format.h"

#include <memory>

namespace ledger::test {

enum class Engine { Reference, Compiled };

// The catalog checked and lowered; a failure of the test where it is refused.
pack::Tables tablesOf(const char *catalog);
// The reference engine's pack of it, or a specialised pack built at O1 and
// loaded; null, with the test failed, where it can't be built.
std::unique_ptr<rt::Pack> packOf(const char *catalog, Engine engine);

} // namespace ledger::test

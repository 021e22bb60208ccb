// The pack format as bytes: every table a count and its records, little
// endian as the machines we ship on are. Reading it back checks the tables
// (pack_check.h), so a damaged or foreign blob is refused whole, never half
// used.
#include "pack_check.h"
#include "pack_fields.h"
#include "pack_format.h"

#include "bytes.h"

#include "random.h"

#include <cstring>
#include <tuple>
#include <type_traits>

namespace ledger::pack {

namespace {

constexpr char kMagic[8] = {'L', 'E', 'D', 'G', 'P', 'A', 'C', 'K'};
using bytes::Reader;
using bytes::Writer;

// Both directions walk the tables in one order.
template <typename IO, typename T> void walk(IO &io, T &t) {
  io.pod(t.version);
  io.pod(t.unitsPerTick);
  io.pod(t.unitsPerSecond);
  io.pod(t.timeStat);
  io.pod(t.allegiance);
  io.pod(t.damagePool);
  io.pod(t.turnEvent);
  io.strings(t.names);
  io.pod(t.tagWords);
  io.vec(t.tagBits);
  io.vec(t.tags);
  io.vec(t.events);
  io.vec(t.values);
  io.vec(t.links);
  io.vec(t.props);
  io.vec(t.stages);
  io.vec(t.categories);
  io.vec(t.curves);
  io.vec(t.curvePoints);
  io.vec(t.effects);
  io.vec(t.vars);
  io.vec(t.blocks);
  io.vec(t.linkOverrides);
  io.vec(t.modifiers);
  io.vec(t.rules);
  io.vec(t.abilities);
  io.vec(t.costs);
  io.vec(t.requirements);
  io.vec(t.archetypes);
  io.vec(t.archetypeValues);
  io.vec(t.idLists);
  io.vec(t.autos);
  io.vec(t.sortKeys);
  io.strings(t.files);
  io.vec(t.bodies);
  io.vec(t.exprs);
  io.vec(t.exprArgs);
  io.vec(t.folds);
  io.vec(t.reads);
  io.vec(t.queries);
  io.vec(t.steps);
  io.vec(t.actions);
}

} // namespace

std::string serialize(const Tables &tables) {
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  walk(w, const_cast<Tables &>(tables));
  return std::move(w.out);
}

bool deserialize(std::string_view blob, Tables &tables, std::string &why) {
  if (blob.size() < sizeof kMagic || std::memcmp(blob.data(), kMagic, sizeof kMagic) != 0) {
    why = "it is not a ledger pack's tables";
    return false;
  }
  Reader r{blob.substr(sizeof kMagic)};
  walk(r, tables);
  if (!r.ok || r.at != r.in.size()) {
    why = "its tables are cut short or run on";
    return false;
  }
  return checkTables(tables, why);
}

uint64_t catalogHash(const Tables &tables) {
  Tables unnamed = tables;
  unnamed.files.clear();
  return hashBlob(serialize(unnamed));
}

// FNV-1a, 64 bits: the hash a stream's name is seeded by.
uint64_t hashBlob(std::string_view blob) { return rt::nameHash(blob); }

} // namespace ledger::pack

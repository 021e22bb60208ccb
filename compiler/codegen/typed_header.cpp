#include "typed_header.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>

namespace ledger::codegen {

namespace {

// C++'s keywords, which a content name can't be as it stands: `new`,
// `delete` ... (an effect may well be called that).
const std::set<std::string_view> &keywords() {
  static const std::set<std::string_view> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  return words;
}

// A content name as C++ spells it: a dotted name's dots underscores
// (`Magic.Fire` is Magic_Fire), a keyword with an underscore after it.
std::string spelled(std::string_view name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out.insert(out.begin(), '_');
  if (keywords().count(out))
    out += '_';
  return out;
}

bool isName(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) && !keywords().count(s) &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

bool isNamespace(const std::string &space) {
  for (size_t at = 0;;) {
    size_t end = space.find("::", at);
    if (!isName(std::string_view(space).substr(at, end - at)))
      return false;
    if (end == std::string::npos)
      return true;
    at = end + 2;
  }
}

// One kind's names, in its namespace, each spelled once.
class Kind {
public:
  Kind(const char *space, const char *type) : space_(space), type_(type) {}
  bool add(std::string_view name, pack::Id id, std::string &why) {
    std::string cpp = spelled(name);
    auto [at, fresh] = spellings_.emplace(cpp, std::string(name));
    if (!fresh) {
      why = "the " + std::string(space_) + " `" + at->second + "` and `" + std::string(name) +
            "` are both `" + cpp + "` in C++: rename one";
      return false;
    }
    lines_ += "inline constexpr ledger::ids::" + std::string(type_) + " " + cpp + "{" +
              std::to_string(id) + "};\n";
    return true;
  }
  void write(std::string &text) const {
    if (lines_.empty())
      return;
    text += "\nnamespace " + std::string(space_) + " {\n" + lines_ + "} // namespace " + space_ + "\n";
  }

private:
  const char *space_;
  const char *type_;
  std::map<std::string, std::string> spellings_;
  std::string lines_;
};

template <typename T>
bool addAll(Kind &kind, const pack::Tables &t, const std::vector<T> &list, std::string &why) {
  for (pack::Id i = 0; i < list.size(); ++i)
    if (!kind.add(t.name(list[i].name), i, why))
      return false;
  return true;
}

} // namespace

std::string namespaceOf(const std::string &catalogPath) {
  std::filesystem::path p(catalogPath);
  std::string stem = (p.has_stem() ? p.stem() : p.parent_path().filename()).string();
  return spelled(stem);
}

bool typedHeader(const pack::Tables &t, const std::string &space, const std::string &catalog,
                 std::string &text, std::string &why) {
  if (!isNamespace(space)) {
    why = "`" + space + "` is no C++ namespace";
    return false;
  }
  Kind archetypes("archetypes", "Archetype"), abilities("abilities", "Ability"),
      effects("effects", "Effect"), pools("pools", "Pool"), stats("stats", "Stat"),
      events("events", "Event"), tags("tags", "Tag"), links("links", "Link");
  if (!addAll(archetypes, t, t.archetypes, why) || !addAll(abilities, t, t.abilities, why) ||
      !addAll(effects, t, t.effects, why) || !addAll(events, t, t.events, why) ||
      !addAll(tags, t, t.tags, why) || !addAll(links, t, t.links, why))
    return false;
  for (pack::Id v = 0; v < t.values.size(); ++v)
    if (!(t.values[v].kind == pack::ValueKind::Pool ? pools : stats)
             .add(t.name(t.values[v].name), v, why))
      return false;
  char hash[64];
  std::snprintf(hash, sizeof hash, "0x%016" PRIx64 "ull", pack::catalogHash(t));
  text = "// Written by `ledger build --header` from " + catalog +
         ":\n"
         "// its content names as typed ids (<ledger/typed_ids.h>) and its catalog's hash.\n"
         "// Build the pack and this header together: loadPack refuses a pack of another\n"
         "// catalog as it loads.\n"
         "#pragma once\n\n"
         "#include <ledger/pack.h>\n"
         "#include <ledger/typed_ids.h>\n\n"
         "#include <cstdint>\n"
         "#include <memory>\n"
         "#include <string>\n\n"
         "namespace " + space + " {\n\n"
         "inline constexpr uint64_t kCatalogHash = " + hash + ";\n\n"
         "// The pack at `path`, refused, with why, unless it is of this header's catalog.\n"
         "inline std::unique_ptr<ledger::rt::Pack> loadPack(const std::string &path, std::string &why) {\n"
         "  return ledger::rt::Pack::load(path, kCatalogHash, why);\n"
         "}\n";
  for (const Kind *kind : {&archetypes, &abilities, &effects, &pools, &stats, &events, &tags, &links})
    kind->write(text);
  text += "\n} // namespace " + space + "\n";
  return true;
}

} // namespace ledger::codegen

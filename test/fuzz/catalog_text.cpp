#include "catalog_text.h"

#include <sstream>
#include <utility>

namespace ledger::fuzz {

namespace {

void renderLines(const std::vector<Line> &lines, int depth, std::string &out) {
  for (const Line &line : lines) {
    out.append(size_t(depth) * 4, ' ');
    out += line.text;
    out += '\n';
    renderLines(line.body, depth + 1, out);
  }
}

void collect(const std::vector<Line> &lines, std::vector<size_t> &path,
             std::vector<std::vector<size_t>> &out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    path.push_back(i);
    out.push_back(path);
    collect(lines[i].body, path, out);
    path.pop_back();
  }
}

size_t count(const std::vector<Line> &lines) {
  size_t n = lines.size();
  for (const Line &line : lines)
    n += count(line.body);
  return n;
}

// A line's text without its comment: `#` outside a quoted string.
std::string uncommented(const std::string &raw) {
  bool quoted = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && quoted) {
      ++i;
      continue;
    }
    if (raw[i] == '"')
      quoted = !quoted;
    else if (raw[i] == '#' && !quoted)
      return raw.substr(0, i);
  }
  return raw;
}

} // namespace

std::string CatalogText::render() const {
  std::string out;
  renderLines(lines, 0, out);
  return out;
}

std::vector<std::vector<size_t>> CatalogText::paths() const {
  std::vector<std::vector<size_t>> out;
  std::vector<size_t> path;
  collect(lines, path, out);
  return out;
}

CatalogText CatalogText::without(const std::vector<size_t> &path) const {
  CatalogText copy = *this;
  std::vector<Line> *level = &copy.lines;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    level = &(*level)[path[i]].body;
  level->erase(level->begin() + std::ptrdiff_t(path.back()));
  return copy;
}

CatalogText CatalogText::rewritten(const std::vector<size_t> &path, const std::string &text) const {
  CatalogText copy = *this;
  std::vector<Line> *level = &copy.lines;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    level = &(*level)[path[i]].body;
  (*level)[path.back()].text = text;
  return copy;
}

const Line &CatalogText::at(const std::vector<size_t> &path) const {
  const std::vector<Line> *level = &lines;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    level = &(*level)[path[i]].body;
  return (*level)[path.back()];
}

size_t CatalogText::size() const { return count(lines); }

CatalogText parseCatalogText(const std::string &text) {
  CatalogText catalog;
  // The open lines, each with the indentation it stands at.
  std::vector<std::pair<size_t, std::vector<Line> *>> open{{0, &catalog.lines}};
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    if (!raw.empty() && raw.back() == '\r')
      raw.pop_back();
    std::string line = uncommented(raw);
    size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos)
      continue;
    size_t end = line.find_last_not_of(" \t");
    std::string body = line.substr(indent, end - indent + 1);
    // Back out to the line this one stands under.
    while (open.size() > 1 && open.back().first >= indent)
      open.pop_back();
    std::vector<Line> &into = *open.back().second;
    into.push_back({body, {}});
    open.push_back({indent, &into.back().body});
  }
  return catalog;
}

} // namespace ledger::fuzz

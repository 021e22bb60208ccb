#include "load/load.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ledger {

namespace fs = std::filesystem;

namespace {

// Calls fn(line, offset) for each line of text, its line ending and any
// comment taken off.
template <typename Fn> void eachLine(const std::string &text, Fn fn) {
  size_t offset = 0;
  while (offset < text.size()) {
    size_t eol = text.find('\n', offset);
    if (eol == std::string::npos)
      eol = text.size();
    std::string line = text.substr(offset, eol - offset);
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.resize(hash);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!fn(line, offset))
      return;
    offset = eol + 1;
  }
}

// Why a path can't be read, in a diagnostic's words: a link leading
// nowhere names where it leads; a path through a file leads nowhere too.
std::string unreadable(const fs::path &p, std::error_code ec) {
  if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
    std::error_code ignored;
    if (fs::is_symlink(fs::symlink_status(p, ignored)))
      return "it is a broken link: `" + fs::read_symlink(p, ignored).string() + "` doesn't exist";
    return "no such file";
  }
  std::string why = ec.message();
  if (!why.empty())
    why[0] = char(std::tolower(static_cast<unsigned char>(why[0])));
  return why;
}

// What a path that is no regular file is, said in a refusal.
const char *notAFile(mode_t mode) {
  if (S_ISDIR(mode))
    return "it is a folder";
  if (S_ISFIFO(mode))
    return "it is a FIFO, not a file";
  if (S_ISSOCK(mode))
    return "it is a socket, not a file";
  return "it is a device, not a file";
}

// Locations are 32-bit offsets into a file.
constexpr uint64_t kMaxSourceBytes = UINT32_MAX;

// A regular file's bytes; false with why. Opened without waiting, so a FIFO
// is refused rather than waited on, and checked before a byte is read, so a
// device is never read at all.
bool readRegularFile(const fs::path &p, std::string &text, std::string &why) {
  int fd = open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = unreadable(p, std::error_code(errno, std::generic_category()));
    return false;
  }
  struct stat status;
  bool ok = false;
  if (fstat(fd, &status) != 0)
    why = unreadable(p, std::error_code(errno, std::generic_category()));
  else if (!S_ISREG(status.st_mode))
    why = notAFile(status.st_mode);
  else if (uint64_t(status.st_size) > kMaxSourceBytes)
    why =
        "it is " + std::to_string(status.st_size) + " bytes, more than a source file holds (4 GiB)";
  else
    ok = true;
  text.resize(ok ? size_t(status.st_size) : 0);
  for (size_t done = 0; ok && done < text.size();) {
    ssize_t n = read(fd, text.data() + done, text.size() - done);
    if (n > 0)
      done += size_t(n);
    else if (n == 0) // cut short as it was read
      text.resize(done);
    else if (errno != EINTR) {
      why = unreadable(p, std::error_code(errno, std::generic_category()));
      ok = false;
    }
  }
  close(fd);
  return ok;
}

class Loader {
public:
  Loader(SourceManager &sources, DiagnosticEngine &diags) : sources_(sources), diags_(diags) {}

  Loaded run(const std::string &path) {
    fs::path p(path);
    if (p.extension() == ".play")
      loadPlay(p);
    else
      loadCatalogPath(p, Loc{}, false);
    return std::move(out_);
  }

private:
  bool readFile(const fs::path &p, std::string &text, Loc from, bool hasFrom) {
    std::string why;
    if (!readRegularFile(p, text, why)) {
      fail(DiagKind::CannotRead, from, hasFrom, p.string(), why);
      return false;
    }
    // A byte-order mark some editors write first says only that the file is
    // UTF-8, which every file is read as.
    if (text.starts_with("\xEF\xBB\xBF"))
      text.erase(0, 3);
    return true;
  }

  template <typename... Args>
  void fail(DiagKind kind, Loc from, bool hasFrom, const Args &...args) {
    out_.ok = false;
    if (hasFrom) {
      diags_.report(kind, from, 1, args...);
    } else {
      // No line to point at: the path came from the command line.
      FileId id = sources_.add("<command line>", "");
      diags_.report(kind, Loc{id, 0}, 1, args...);
    }
  }

  void addFile(const fs::path &p, FileRole role, Loc from, bool hasFrom) {
    std::string text;
    if (!readFile(p, text, from, hasFrom))
      return;
    FileId id = sources_.add(p.lexically_normal().string(), std::move(text));
    out_.files.push_back({id, role, package_});
  }

  void loadCatalogPath(const fs::path &p, Loc from, bool hasFrom) {
    std::error_code ec;
    fs::file_status status = fs::status(p, ec);
    // A path there but not to be looked at (a link in a loop) says why; one
    // not there is said by what it was taken for.
    if (ec && status.type() != fs::file_type::not_found) {
      fail(DiagKind::CannotRead, from, hasFrom, p.string(), unreadable(p, ec));
      return;
    }
    if (fs::is_directory(status)) {
      // Every .ledger entry but a folder: one that can't be read (a broken
      // link) is said, not passed over.
      std::vector<std::string> names;
      fs::directory_iterator it(p, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::error_code ignored;
        if (it->path().extension() == ".ledger" && !it->is_directory(ignored))
          names.push_back(it->path().filename().string());
      }
      if (ec) {
        fail(DiagKind::CannotRead, from, hasFrom, p.string(), unreadable(p, ec));
        return;
      }
      if (names.empty()) {
        fail(DiagKind::CatalogFolderEmpty, from, hasFrom, p.string());
        return;
      }
      std::sort(names.begin(), names.end()); // byte order of name
      for (const std::string &name : names)
        addFile(p / name, FileRole::Catalog, from, hasFrom);
      return;
    }
    if (p.extension() == ".ledger") {
      addFile(p, FileRole::Catalog, from, hasFrom);
      return;
    }
    if (p.extension() == ".catalog") {
      loadList(p, from, hasFrom);
      return;
    }
    fail(DiagKind::CatalogEntryMissing, from, hasFrom, p.string());
  }

  void loadList(const fs::path &p, Loc from, bool hasFrom) {
    std::error_code ec;
    std::string key = fs::weakly_canonical(p, ec).string();
    if (ec) {
      fail(DiagKind::CannotRead, from, hasFrom, p.string(), unreadable(p, ec));
      return;
    }
    if (std::find(openLists_.begin(), openLists_.end(), key) != openLists_.end()) {
      fail(DiagKind::CatalogCycle, from, hasFrom, p.string());
      return;
    }
    std::string text;
    if (!readFile(p, text, from, hasFrom))
      return;
    FileId id = sources_.add(p.lexically_normal().string(), text);
    openLists_.push_back(key);
    eachLine(text, [&](const std::string &line, size_t offset) {
      size_t b = line.find_first_not_of(" \t");
      if (b == std::string::npos)
        return true;
      size_t e = line.find_last_not_of(" \t");
      if (openLists_.size() == 1)
        ++package_;
      loadCatalogPath(p.parent_path() / line.substr(b, e - b + 1),
                      Loc{id, static_cast<uint32_t>(offset + b)}, true);
      return true;
    });
    openLists_.pop_back();
  }

  void loadPlay(const fs::path &p) {
    std::string text;
    if (!readFile(p, text, Loc{}, false))
      return;
    FileId id = sources_.add(p.lexically_normal().string(), text);
    // The catalog line is the file's first statement: `catalog PATH`.
    bool sawStatement = false;
    eachLine(text, [&](const std::string &line, size_t offset) {
      size_t b = line.find_first_not_of(' ');
      if (b == std::string::npos)
        return true;
      sawStatement = true;
      size_t pb = line.compare(b, 8, "catalog ") == 0 ? line.find_first_not_of(' ', b + 8)
                                                       : std::string::npos;
      if (pb == std::string::npos) {
        out_.ok = false;
        diags_.report(DiagKind::PlayNeedsCatalog, Loc{id, static_cast<uint32_t>(offset + b)}, 1);
        return false;
      }
      size_t pe = line.find(' ', pb);
      loadCatalogPath(p.parent_path() / line.substr(pb, pe == std::string::npos ? pe : pe - pb),
                      Loc{id, static_cast<uint32_t>(offset + pb)}, true);
      return false;
    });
    if (!sawStatement) {
      out_.ok = false;
      diags_.report(DiagKind::PlayNeedsCatalog, Loc{id, 0}, 1);
    }
    out_.files.push_back({id, FileRole::Play, package_});
  }

  SourceManager &sources_;
  DiagnosticEngine &diags_;
  Loaded out_;
  std::vector<std::string> openLists_;
  uint32_t package_ = 0;
};

} // namespace

Loaded load(const std::string &path, SourceManager &sources, DiagnosticEngine &diags) {
  return Loader(sources, diags).run(path);
}

Loaded loadText(const std::string &name, std::string text, FileRole role, SourceManager &sources) {
  Loaded out;
  out.files.push_back({sources.add(name, std::move(text)), role});
  return out;
}

} // namespace ledger

// A folder of its own under the machine's temporary folder, for the packs a
// command builds and loads, removed with everything in it when it goes.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace ledger {

struct TempDir {
  std::string path; // empty when none could be made

  explicit TempDir(const char *prefix = "ledger") {
    // $TMPDIR naming no folder leaves the machine's own.
    std::error_code ec;
    std::filesystem::path under = std::filesystem::temp_directory_path(ec);
    std::string base =
        ((ec ? std::filesystem::path("/tmp") : under) / (std::string(prefix) + "-XXXXXX")).string();
    std::vector<char> buf(base.begin(), base.end());
    buf.push_back(0);
    if (mkdtemp(buf.data()))
      path = buf.data();
  }
  ~TempDir() {
    if (!path.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
};

} // namespace ledger

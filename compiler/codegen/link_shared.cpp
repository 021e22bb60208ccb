// The objects linked into a shared object by lld, in process and in memory:
// lld reads each object from an anonymous file and writes the pack into a
// pipe this process drains, each named by its /proc/self/fd path. A full
// disk never meets lld, whose mapped output faults there and whose failed
// write ends the process; the caller writes the pack, whole or not at all.
#include "codegen/internal.h"

#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace ledger::codegen::detail {

namespace {

// A file descriptor, closed as it goes.
struct Descriptor {
  int fd;
  explicit Descriptor(int fd) : fd(fd) {}
  Descriptor(Descriptor &&other) noexcept : fd(std::exchange(other.fd, -1)) {}
  Descriptor &operator=(Descriptor &&) = delete;
  ~Descriptor() { reset(); }
  void reset() {
    if (fd >= 0)
      close(fd);
    fd = -1;
  }
  // The path lld opens it by.
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd); }
};

std::string systemError(const char *what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// An anonymous file holding the bytes; invalid, having said why, if none.
Descriptor inMemory(llvm::ArrayRef<char> bytes, std::string &error) {
  Descriptor file(memfd_create("ledger-object", MFD_CLOEXEC));
  if (file.fd < 0) {
    error = systemError("cannot make an object file in memory");
    return file;
  }
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(file.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = systemError("cannot write an object file in memory");
      file.reset();
      return file;
    }
    done += size_t(n);
  }
  return file;
}

} // namespace

bool linkShared(const std::vector<llvm::ArrayRef<char>> &objects, std::string &image,
                std::string &error) {
  // lld keeps global state: one link at a time, and none after a crash it
  // could not recover from.
  static std::mutex mutex;
  static bool usable = true;
  std::lock_guard<std::mutex> lock(mutex);
  if (!usable) {
    error = "the in-process linker crashed earlier and cannot run again";
    return false;
  }
  std::vector<Descriptor> inputs;
  for (llvm::ArrayRef<char> object : objects) {
    inputs.push_back(inMemory(object, error));
    if (inputs.back().fd < 0)
      return false;
  }
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    error = systemError("cannot make a pipe for the linker's output");
    return false;
  }
  Descriptor drained(ends[0]), output(ends[1]);
  // lld writes the pack only once it has all of it: the pipe is drained as
  // it writes, and ends when this process's end of it is closed after.
  std::thread reader([&] {
    char buffer[1 << 16];
    for (ssize_t n; (n = read(drained.fd, buffer, sizeof buffer)) != 0;)
      if (n > 0)
        image.append(buffer, size_t(n));
      else if (errno != EINTR)
        break;
  });
  // --no-undefined: a pack calls nothing but its kernel and compiler-rt's
  // arithmetic (its machinery's 128-bit divisions), linked in from its
  // archive, so any undefined symbol (a libcall LLVM slipped in) is a bug to
  // catch here, not at dlopen. --eh-frame-hdr: the unwind tables the bodies
  // carry are found by debuggers and profilers only through it.
  std::vector<std::string> paths;
  for (const Descriptor &input : inputs)
    paths.push_back(input.path());
  std::string outPath = output.path();
  std::vector<const char *> args = {"ld.lld",         "-shared", "--no-undefined",
                                    "--eh-frame-hdr", "-z",      "noexecstack"};
  for (const std::string &path : paths)
    args.push_back(path.c_str());
  args.push_back(LEDGER_BUILTINS_ARCHIVE);
  args.push_back("-o");
  args.push_back(outPath.c_str());
  std::string messages;
  llvm::raw_string_ostream out(messages), err(messages);
  lld::Result result = lld::lldMain(args, out, err, {{lld::Gnu, &lld::elf::link}});
  usable = result.canRunAgain;
  output.reset();
  reader.join();
  if (result.retCode != 0) {
    error = "link failed: " + messages;
    return false;
  }
  return true;
}

} // namespace ledger::codegen::detail

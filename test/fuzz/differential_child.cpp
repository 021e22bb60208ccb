#include "differential_child.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ledger::fuzz {

namespace {

constexpr rlim_t kChildBytes = rlim_t(2) << 30;
// A chain nests as deep as its budget lets it (1,000 events), each event a
// frame of every engine function on its way down: about 5 KiB on the
// reference engine, twice that on an unoptimised pack, whose code keeps
// every value in a slot of its own. The 8 MiB a process commonly starts
// with holds the first and not the second, and where a chain reaches the
// end of its thread's stack the engines end it at other depths: the work
// runs on a thread of its own with room to spare, which the runtime finds
// afresh (runtime/thread_stack.h), not the main thread's stack as the
// parent found it before the fork.
constexpr size_t kChildStack = size_t(64) << 20;

// A sanitizer's shadow memory wants more address space than any limit leaves.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEDGER_FUZZ_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(LEDGER_FUZZ_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

Report onBigStack(const std::function<Report()> &work) {
  struct Job {
    const std::function<Report()> *work;
    Report report;
  } job{&work, {}};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, kChildStack) != 0 ||
      pthread_create(&thread, &attr, [](void *at) -> void * {
        Job &j = *static_cast<Job *>(at);
        j.report = (*j.work)();
        return nullptr;
      }, &job) != 0) {
    std::perror("pthread_create");
    std::exit(2);
  }
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
  return std::move(job.report);
}

} // namespace

SharedLog *makeSharedLog() {
  void *at = mmap(nullptr, sizeof(SharedLog), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) {
    std::perror("mmap");
    std::exit(2);
  }
  return static_cast<SharedLog *>(at);
}

void SharedOrderLog::begin() { log_->used = 0; }

void SharedOrderLog::append(const Order &order) {
  std::string s = serializeOrder(order);
  if (log_->used + s.size() > SharedLog::kBytes)
    return;
  std::memcpy(log_->bytes + log_->used, s.data(), s.size());
  log_->used = log_->used + s.size();
}

void SharedOrderLog::engine(int which) {
  log_->engine = which;
  alarm(which == 0 ? kReferenceSeconds : which == 1 ? kCompiledSeconds : kChildSeconds);
}

std::string Report::get(const std::string &key) const {
  auto it = fields_.find(key);
  return it == fields_.end() ? "" : it->second;
}

uint64_t Report::number(const std::string &key) const {
  std::string v = get(key);
  return v.empty() ? 0 : std::stoull(v);
}

std::string Report::bytes() const {
  std::string out;
  for (const auto &[k, v] : fields_)
    out += k + " " + std::to_string(v.size()) + "\n" + v;
  return out;
}

Report Report::parse(const std::string &bytes) {
  Report r;
  size_t at = 0;
  while (at < bytes.size()) {
    size_t space = bytes.find(' ', at), newline = bytes.find('\n', at);
    if (space == std::string::npos || newline == std::string::npos)
      break;
    std::string key = bytes.substr(at, space - at);
    size_t length = std::stoull(bytes.substr(space + 1, newline - space - 1));
    r.fields_[key] = bytes.substr(newline + 1, length);
    at = newline + 1 + length;
  }
  return r;
}

ChildEnd inChild(const std::function<Report()> &work, unsigned timeoutSeconds) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("pipe");
    std::exit(2);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(timeoutSeconds);
    // a catalog that grows its world without end meets bad_alloc, not the machine's limit
    if (!kSanitized) {
      struct rlimit most {kChildBytes, kChildBytes};
      setrlimit(RLIMIT_AS, &most);
    }
    std::string bytes = onBigStack(work).bytes();
    for (size_t at = 0; at < bytes.size();) {
      ssize_t n = write(fds[1], bytes.data() + at, bytes.size() - at);
      if (n <= 0)
        break;
      at += size_t(n);
    }
    close(fds[1]);
    std::fflush(stdout);
    _exit(0);
  }
  close(fds[1]);
  std::string bytes;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    bytes.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ChildEnd end;
  end.report = Report::parse(bytes);
  if (WIFSIGNALED(status))
    end.signal = WTERMSIG(status);
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    end.exitedBadly = true;
  return end;
}

std::string signalName(int sig) {
  if (sig == SIGALRM)
    return "no end in its time (SIGALRM): a hang";
  const char *name = strsignal(sig);
  return std::string("signal ") + std::to_string(sig) + " (" + (name ? name : "?") + ")";
}

std::string deathOf(int sig, int engine) {
  switch (engine) {
  case 0:
    return signalName(sig) + " in the reference engine";
  case 1:
    return signalName(sig) + " in the compiled engine";
  case kCheckingCatalog:
    return signalName(sig) + " checking or lowering the catalog";
  case kBuildingPack:
    return signalName(sig) + " building the compiled pack";
  case kLoadingPack:
    return signalName(sig) + " loading the compiled pack";
  default:
    return signalName(sig) + " making orders up (the fuzzer's own)";
  }
}

} // namespace ledger::fuzz

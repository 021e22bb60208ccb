#include "pack_seal.h"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ledger::rt {

namespace {

constexpr char kMagic[8] = {'L', 'E', 'D', 'G', 'S', 'E', 'A', 'L'};
constexpr size_t kSealSize = sizeof(kMagic) + sizeof(uint64_t);

// FNV-1a: no dependency, and a flipped or missing byte changes it.
uint64_t hashOf(const char *bytes, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= uint8_t(bytes[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

void putLittle(char *out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out[i] = char(uint8_t(v >> (8 * i)));
}

uint64_t getLittle(const char *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(uint8_t(in[i])) << (8 * i);
  return v;
}

// No catalog's pack comes near this: a file past it is no pack, and is not
// read into memory to find that out.
constexpr uint64_t kMaxPackBytes = uint64_t(1) << 30;
constexpr size_t kElfHeaderSize = 64;

// Where a little-endian 64-bit ELF file's section headers end, which lld
// writes last, so its seal follows; 0 when the bytes begin no such header,
// or one placing them past any pack's size.
uint64_t elfEnd(const unsigned char *header) {
  constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (std::memcmp(header, kElfMagic, 4) != 0 || header[4] != 2 /* ELFCLASS64 */ ||
      header[5] != 1 /* ELFDATA2LSB */)
    return 0;
  uint64_t sectionHeaders = getLittle(reinterpret_cast<const char *>(header) + 0x28);
  uint64_t entrySize = header[0x3A] | uint64_t(header[0x3B]) << 8;
  uint64_t entries = header[0x3C] | uint64_t(header[0x3D]) << 8;
  return sectionHeaders > kMaxPackBytes ? 0 : sectionHeaders + entrySize * entries;
}

// What a file that isn't a regular one is, said in a refusal.
const char *notAFile(mode_t mode) {
  if (S_ISDIR(mode))
    return "it is a folder, not a pack";
  if (S_ISFIFO(mode))
    return "it is a FIFO, not a file";
  if (S_ISSOCK(mode))
    return "it is a socket, not a file";
  return "it is a device, not a file";
}

// A file's descriptor, closed as it goes.
struct Opened {
  int fd;
  ~Opened() {
    if (fd >= 0)
      close(fd);
  }
};

// size bytes from offset at; false when the file ends or fails first.
bool readFully(int fd, char *into, size_t size, uint64_t at) {
  while (size > 0) {
    ssize_t n = pread(fd, into, size, off_t(at));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    into += n, size -= size_t(n), at += uint64_t(n);
  }
  return true;
}

// A pack's bytes, once it is known to be a file of a pack's size: a device,
// a FIFO or a folder named as a pack is refused before it is read (/dev/zero
// never ends, a FIFO may never begin), as is a file longer than its header
// says.
bool readPack(const std::string &path, std::string &bytes, std::string &why) {
  // Non-blocking, so a FIFO opens without waiting for a writer, to be refused.
  Opened file{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat status;
  if (file.fd < 0 || fstat(file.fd, &status) != 0) {
    why = std::string("can't read it: ") + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(status.st_mode)) {
    why = notAFile(status.st_mode);
    return false;
  }
  uint64_t size = uint64_t(status.st_size);
  if (size > kMaxPackBytes) {
    why = "it is " + std::to_string(size) + " bytes, more than any pack (1 GiB)";
    return false;
  }
  unsigned char header[kElfHeaderSize];
  if (size >= kElfHeaderSize &&
      readFully(file.fd, reinterpret_cast<char *>(header), sizeof header, 0))
    if (uint64_t end = elfEnd(header); end && end + kSealSize < size) {
      why = "it is " + std::to_string(size) + " bytes, more than its header and seal say (" +
            std::to_string(end + kSealSize) + ")";
      return false;
    }
  bytes.resize(size);
  if (!readFully(file.fd, bytes.data(), size, 0)) {
    why = "it could not be read whole";
    return false;
  }
  return true;
}

} // namespace

void seal(std::string &image) {
  char seal[kSealSize];
  std::memcpy(seal, kMagic, sizeof(kMagic));
  putLittle(seal + sizeof(kMagic), hashOf(image.data(), image.size()));
  image.append(seal, kSealSize);
}

bool readSealed(const std::string &path, std::string &bytes, std::string &why) {
  return readPack(path, bytes, why) && sealHoldsOn(bytes, why);
}

namespace {
constexpr char kPortableMagic[8] = {'L', 'E', 'D', 'G', 'P', 'O', 'R', 'T'};
} // namespace

std::string portableImage(std::string_view blob) {
  std::string image(kPortableMagic, sizeof kPortableMagic);
  image.append(blob);
  seal(image);
  return image;
}

bool portableBlob(std::string_view image, std::string_view &blob) {
  if (image.size() < sizeof kPortableMagic + kSealSize ||
      std::memcmp(image.data(), kPortableMagic, sizeof kPortableMagic) != 0)
    return false;
  blob = image.substr(sizeof kPortableMagic, image.size() - sizeof kPortableMagic - kSealSize);
  return true;
}

bool sealHoldsOn(std::string_view bytes, std::string &why) {
  if (bytes.size() < kSealSize ||
      std::memcmp(bytes.data() + bytes.size() - kSealSize, kMagic, sizeof(kMagic)) != 0) {
    why = "it is no sealed ledger pack: `ledger build` seals every pack it makes";
    return false;
  }
  size_t body = bytes.size() - kSealSize;
  if (getLittle(bytes.data() + body + sizeof(kMagic)) != hashOf(bytes.data(), body)) {
    why = "it is damaged: its bytes don't match the seal `ledger build` gave them";
    return false;
  }
  return true;
}

} // namespace ledger::rt

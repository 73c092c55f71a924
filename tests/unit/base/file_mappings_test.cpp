// Releasing the pages this process maps from a bundle's files: a private file mapping under the directory drops its
// resident pages and still reads the file's bytes; a mapping holding a page copied on write, and one outside the
// directory, keep theirs.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "modelkit/base/file_mappings.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

constexpr size_t kBytes = size_t{4} << 20;

// The byte at `offset` of every test file.
char Pattern(size_t offset) { return static_cast<char>('a' + offset * 7 % 26); }

// A file of kBytes, mapped as ONNX Runtime maps external data (private, readable and writable), every page read.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
    std::string content(kBytes, '\0');
    for (size_t i = 0; i < kBytes; ++i) content[i] = Pattern(i);
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
    const int fd = ::open(path.c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    data_ = static_cast<volatile char*>(mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
    ::close(fd);
    EXPECT_NE(const_cast<char*>(data_), MAP_FAILED);
    ReadAll();
  }
  ~MappedFile() { ::munmap(const_cast<char*>(data_), kBytes); }

  // Whether every byte still is the file's (reading maps every page again).
  bool ReadAll() const {
    bool same = true;
    for (size_t i = 0; i < kBytes; i += 512) same = same && data_[i] == Pattern(i);
    return same;
  }
  volatile char* data() const { return data_; }

  // Resident KiB of this mapping (its smaps "Rss:" line).
  size_t ResidentKib() const {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    const auto begin = reinterpret_cast<uintptr_t>(data_);
    bool mine = false;
    while (std::getline(smaps, line)) {
      unsigned long long from = 0, to = 0;
      if (std::sscanf(line.c_str(), "%llx-%llx ", &from, &to) == 2 && line.find(' ') > line.find('-')) {
        mine = from == begin;
      } else if (mine && line.rfind("Rss:", 0) == 0) {
        size_t kib = 0;
        std::sscanf(line.c_str(), "Rss: %zu", &kib);
        return kib;
      }
    }
    return 0;
  }

 private:
  volatile char* data_ = nullptr;
};

TEST(FileMappingsTest, DropsCleanPrivateMappingsUnderTheDirectoryOnly) {
  test::TempDir tmp;
  const MappedFile clean(tmp.path() / "bundle" / "model.onnx.data");
  const MappedFile written(tmp.path() / "bundle" / "other.onnx.data");
  const MappedFile outside(tmp.path() / "elsewhere" / "model.onnx.data");
  written.data()[4096] = '#';  // a private copy of one page: dropping it would lose the write

  const size_t clean_before = clean.ResidentKib();
  ASSERT_GE(clean_before, kBytes / 1024);
  const size_t written_before = written.ResidentKib(), outside_before = outside.ResidentKib();
  const size_t released = ReleaseFileMappingsUnder(tmp.path() / "bundle");

  EXPECT_EQ(released, clean_before * 1024);  // the clean mapping's pages, and nothing else
  EXPECT_EQ(clean.ResidentKib(), 0u);
  EXPECT_EQ(written.ResidentKib(), written_before);
  EXPECT_EQ(outside.ResidentKib(), outside_before);
  EXPECT_EQ(written.data()[4096], '#');
  EXPECT_TRUE(clean.ReadAll()) << "the dropped pages read the file again";
  EXPECT_GT(clean.ResidentKib(), 0u);
}

TEST(FileMappingsTest, MissingDirectoryReleasesNothing) {
  EXPECT_EQ(ReleaseFileMappingsUnder("/nonexistent/modelkit-bundle"), 0u);
}

}  // namespace
}  // namespace modelkit

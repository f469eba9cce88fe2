#include "tests/integration/random_file_ops.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <gtest/gtest.h>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kMaxReadBytes = 256 << 10;
constexpr size_t kMaxMappedWriteOffset = 4 << 20;
constexpr size_t kMaxMappedWriteBytes = 200000;

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// A read of [offset, offset + size) found `got` where the model holds `want`:
// "" when equal, else where they first differ.
std::string Mismatch(const char* got, const std::string& want, size_t offset, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (got[i] != want[offset + i]) {
      return "first difference at byte " + std::to_string(offset + i) + " (read " +
             std::to_string(static_cast<unsigned char>(got[i])) + ", model " +
             std::to_string(static_cast<unsigned char>(want[offset + i])) + ") of a read of " +
             std::to_string(size) + " at " + std::to_string(offset) + ", file size " +
             std::to_string(want.size());
    }
  }
  return "";
}

// fsx's mapped read: [offset, offset + size) of `fd` through a MAP_SHARED mapping.
void MappedRead(int fd, size_t offset, size_t size, const std::string& model) {
  const size_t start = offset / PageSize() * PageSize();
  const size_t length = offset + size - start;
  void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  ASSERT_NE(map, MAP_FAILED) << "mmap PROT_READ of " << length << " at " << start << ": "
                             << strerror(errno);
  const std::string got(static_cast<const char*>(map) + (offset - start), size);
  EXPECT_EQ(munmap(map, length), 0) << strerror(errno);
  const std::string why = Mismatch(got.data(), model, offset, size);
  ASSERT_EQ(why, "") << "mapped read differs from the model";
}

// fsx's mapped write: `data` to `offset` of `fd` through a MAP_SHARED mapping;
// the file must already reach offset + data.size().
void MappedWrite(int fd, size_t offset, const std::string& data, bool sync) {
  const size_t start = offset / PageSize() * PageSize();
  const size_t length = offset + data.size() - start;
  void* map = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                   static_cast<off_t>(start));
  ASSERT_NE(map, MAP_FAILED) << "mmap PROT_WRITE of " << length << " at " << start << ": "
                             << strerror(errno);
  std::memcpy(static_cast<char*>(map) + (offset - start), data.data(), data.size());
  if (sync) {
    EXPECT_EQ(msync(map, length, MS_SYNC), 0) << "msync: " << strerror(errno);
  }
  ASSERT_EQ(munmap(map, length), 0) << strerror(errno);
}

// A pread(2) of [offset, offset + size) of `fd`, compared with the model.
void CheckedRead(int fd, size_t offset, size_t size, const std::string& model) {
  std::string got(size, '\0');
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd, got.data() + done, size - done, static_cast<off_t>(offset + done));
    ASSERT_GT(n, 0) << "pread of " << size << " at " << offset << " (file size " << model.size()
                    << "): " << (n == 0 ? "end of file" : strerror(errno));
    done += static_cast<size_t>(n);
  }
  const std::string why = Mismatch(got.data(), model, offset, size);
  ASSERT_EQ(why, "") << "pread differs from the model";
}

}  // namespace

void PwriteAll(int fd, const char* from, size_t size, off_t offset) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, from + done, size - done, offset + static_cast<off_t>(done));
    ASSERT_GT(n, 0) << "pwrite: " << strerror(errno);
    done += static_cast<size_t>(n);
  }
}

void RunRandomFileOps(const std::string& mnt, int a, int b, int ops, uint32_t seed,
                      const RandomWriter& write, const RandomFileOpsOptions& options,
                      std::string* model, RandomFileOpsCounts* counts) {
  std::mt19937 rng(seed);
  for (int op = 0; op < ops; ++op) {
    SCOPED_TRACE("operation " + std::to_string(op));
    const unsigned kind = rng() % 20;
    // Drawn only with the option, so that the mix without it stays as it was.
    const unsigned mapped = options.mmap && kind < 16 ? rng() % 8 : 7;
    const int fd = kind % 2 ? a : b;
    if (mapped < 2 || mapped == 4) {  // a read, through a mapping or pread
      if (model->empty()) continue;
      const size_t offset = rng() % model->size();
      const size_t size = 1 + rng() % std::min(kMaxReadBytes, model->size() - offset);
      if (mapped < 2) {
        ASSERT_NO_FATAL_FAILURE(MappedRead(fd, offset, size, *model));
        ++counts->mapped_reads;
      } else {
        ASSERT_NO_FATAL_FAILURE(CheckedRead(fd, offset, size, *model));
        ++counts->reads;
      }
    } else if (mapped < 4) {  // a write through a mapping
      const size_t offset = rng() % kMaxMappedWriteOffset;
      const std::string data =
          RandomBytes(1 + rng() % kMaxMappedWriteBytes, static_cast<uint32_t>(op) ^ 0x6d6d6170);
      const bool sync = rng() % 2 == 0;
      if (model->size() < offset + data.size()) {  // a mapping cannot extend a file
        ASSERT_EQ(ftruncate(fd, static_cast<off_t>(offset + data.size())), 0) << strerror(errno);
        model->resize(offset + data.size(), '\0');
        ++counts->extends;
      }
      ASSERT_NO_FATAL_FAILURE(MappedWrite(fd, offset, data, sync));
      std::copy(data.begin(), data.end(), model->begin() + static_cast<long>(offset));
      ++counts->mapped_writes;
      counts->msyncs += sync ? 1 : 0;
    } else if (kind < 16) {
      RandomWrite w = write(op, kind, rng);
      if (::testing::Test::HasFatalFailure()) return;
      if (model->size() < w.offset + w.data.size()) model->resize(w.offset + w.data.size(), '\0');
      std::copy(w.data.begin(), w.data.end(), model->begin() + static_cast<long>(w.offset));
    } else if (kind < 17) {
      const size_t size = rng() % (4u << 20);
      ASSERT_EQ(ftruncate(a, static_cast<off_t>(size)), 0);
      model->resize(size, '\0');
    } else if (kind < 19) {
      ASSERT_EQ(fsync(kind % 2 ? a : b), 0);
    } else {  // every page the kernel holds goes to the daemon, then it moves
      ASSERT_EQ(fsync(a), 0);
      CommandResult r = RunCommand({Tool("fsppadm"), "enforce", mnt});
      EXPECT_EQ(r.exit_code, 0) << r.output;
      ++counts->enforces;
    }
  }
}

void RunRandomFileOps(const std::string& mnt, int a, int b, int ops, uint32_t seed,
                      const RandomWriter& write, std::string* model, int* enforces) {
  RandomFileOpsCounts counts;
  RunRandomFileOps(mnt, a, b, ops, seed, write, RandomFileOpsOptions{}, model, &counts);
  *enforces += counts.enforces;
}

}  // namespace tierfs::testing

#include "tests/integration/random_file_ops.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <gtest/gtest.h>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {

void PwriteAll(int fd, const char* from, size_t size, off_t offset) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, from + done, size - done, offset + static_cast<off_t>(done));
    ASSERT_GT(n, 0) << "pwrite: " << strerror(errno);
    done += static_cast<size_t>(n);
  }
}

void RunRandomFileOps(const std::string& mnt, int a, int b, int ops, uint32_t seed,
                      const RandomWriter& write, std::string* model, int* enforces) {
  std::mt19937 rng(seed);
  for (int op = 0; op < ops; ++op) {
    SCOPED_TRACE("operation " + std::to_string(op));
    const unsigned kind = rng() % 20;
    if (kind < 16) {
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
      ++*enforces;
    }
  }
}

}  // namespace tierfs::testing

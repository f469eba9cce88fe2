// The database's space reserve: with its volume filled to the last byte by
// something else, commits still succeed, by giving back reserve slices.
#include "meta/space_reserve.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "meta/database.h"
#include "meta/database_vfs.h"

namespace tierfs::meta {
namespace {

class SpaceReserveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
    char tmpl[] = "/tmp/tierfs-reserve-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=8m"), 0) << strerror(errno);
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_ && umount(dir_.c_str()) != 0) umount2(dir_.c_str(), MNT_DETACH);
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  // Fills the tmpfs with a file that is not the database's.
  void Fill() {
    int fd = open((dir_ + "/filler").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ASSERT_GE(fd, 0);
    std::string block(4096, 'f');
    while (write(fd, block.data(), block.size()) > 0) {
    }
    close(fd);
  }
  std::string dir_;
  bool mounted_ = false;
};

TEST_F(SpaceReserveTest, CommitsSucceedOnAFullVolumeAndTheReserveGrowsBack) {
  ASSERT_TRUE(RegisterDatabaseVfs().ok());
  auto db = Database::Open(dir_ + "/meta.db", Database::OpenMode::kReadWrite, {});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  {
    auto lock = db->Lock();
    ASSERT_TRUE(db->Exec("CREATE TABLE t(x BLOB)").ok());
  }
  auto reserve = SpaceReserve::Install(dir_ + "/meta.reserve", 2 << 20);
  ASSERT_TRUE(reserve.ok()) << reserve.status().ToString();
  EXPECT_EQ((*reserve)->held_bytes(), 2u << 20);
  EXPECT_FALSE((*reserve)->depleted());

  Fill();
  const std::string blob(4000, 'b');
  for (int i = 0; i < 100; ++i) {  // about 1.2 MiB of WAL: within the reserve
    auto lock = db->Lock();
    auto txn = Transaction::Begin(&*db);
    ASSERT_TRUE(txn.ok()) << i << ": " << txn.status().ToString();
    Statement st = db->Prepare("INSERT INTO t(x) VALUES (?)");
    st.BindBlob(1, blob);
    ASSERT_TRUE(st.Run().ok()) << i;
    ASSERT_TRUE(txn->Commit().ok()) << "commit " << i << " on a full volume";
  }
  EXPECT_GT((*reserve)->releases(), 0u);
  EXPECT_TRUE((*reserve)->depleted());

  // Still full: a refill gets nothing back, and says so without an error.
  EXPECT_TRUE((*reserve)->Refill().ok());
  EXPECT_TRUE((*reserve)->depleted());
  // Room again: the reserve is whole again.
  ASSERT_EQ(unlink((dir_ + "/filler").c_str()), 0);
  EXPECT_TRUE((*reserve)->Refill().ok());
  EXPECT_FALSE((*reserve)->depleted());
  EXPECT_EQ((*reserve)->held_bytes(), 2u << 20);
}

TEST(DefaultReserveBytes, IsAQuarterOfTheDatabaseWithinBounds) {
  constexpr uint64_t kMiB = 1 << 20;
  EXPECT_EQ(DefaultReserveBytes(1 * kMiB, 0), 16 * kMiB);             // the minimum
  EXPECT_EQ(DefaultReserveBytes(1000 * kMiB, 0), 250 * kMiB);         // a quarter
  EXPECT_EQ(DefaultReserveBytes(1 * kMiB, 64 * kMiB), 8 * kMiB);      // an eighth of a small volume
  EXPECT_EQ(DefaultReserveBytes(1000 * kMiB, 100000 * kMiB), 250 * kMiB);
}

}  // namespace
}  // namespace tierfs::meta

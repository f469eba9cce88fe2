// The database backup helpers (fs/check/db_backup.h) and the daemon lock (fs/volume/daemon_lock.h).
#include "fs/check/db_backup.h"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "fs/volume/daemon_lock.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs {
namespace {

using meta::testing::TempDir;

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

TEST(BackupDestination, RefusesTheMountAndTheLiveDatabase) {
  EXPECT_TRUE(CheckBackupDestination("/backups/meta.db", "/mnt/t", "/ssd/.tierfs/meta.db").ok());
  EXPECT_TRUE(CheckBackupDestination("/mnt/tx/b.db", "/mnt/t", "/ssd/.tierfs/meta.db").ok());
  for (const char* bad : {"/mnt/t/b.db", "/mnt/t", "/ssd/.tierfs/meta.db",
                          "/ssd/.tierfs/meta.db-wal", "/ssd/.tierfs/meta.db-shm", "rel/b.db", ""}) {
    EXPECT_EQ(CheckBackupDestination(bad, "/mnt/t", "/ssd/.tierfs/meta.db").code(), EINVAL) << bad;
  }
  // The live database under another name (a hard link) is refused too.
  TempDir dir;
  const std::string db = dir.path() + "/meta.db", alias = dir.path() + "/alias.db";
  std::ofstream(db) << "x";
  ASSERT_EQ(link(db.c_str(), alias.c_str()), 0);
  EXPECT_EQ(CheckBackupDestination(alias, "/mnt/t", db).code(), EINVAL);
}

TEST(BackupDatabase, WritesACompleteCopyAtomically) {
  TempDir dir;
  const std::string db = dir.path() + "/meta.db";
  ASSERT_TRUE(meta::Metadata::Format(db, meta::testing::TestFsInfo(),
                                     meta::testing::TwoVolumes(dir.path()), 0, 0,
                                     SystemClock::Get())
                  .ok());
  auto meta = meta::Metadata::Open(db, meta::MetadataOptions{});
  ASSERT_TRUE(meta.ok());
  const std::string dest = dir.path() + "/backup.db";
  std::ofstream(dest) << "an older backup";
  uint64_t last_done = 0, last_total = 0;
  auto result = BackupDatabase(**meta, dest, [&](uint64_t done, uint64_t total) {
    last_done = done;
    last_total = total;
  });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->path, dest);
  EXPECT_GT(result->bytes, 0u);
  EXPECT_EQ(last_done, last_total);
  struct stat st;
  ASSERT_EQ(stat(dest.c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), result->bytes);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto copy = meta::Metadata::OpenForCheck(dest);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ((*copy)->GetFsInfo()->uuid, meta::testing::TestFsInfo().uuid);
  // No temporary is left beside it, and a missing directory is an error naming it.
  int entries = 0;
  for (const char* name : {"/meta.db", "/backup.db"}) entries += Exists(dir.path() + name);
  EXPECT_EQ(entries, 2);
  auto failed = BackupDatabase(**meta, dir.path() + "/no/such/dir/b.db", nullptr);
  EXPECT_EQ(failed.status().code(), ENOENT);
}

TEST(BackupDatabase, DefaultPathIsOnTheSecondVolumeWithAGoodLabel) {
  TempDir dir;
  std::vector<meta::Volume> volumes = meta::testing::TwoVolumes(dir.path());
  volumes[0].id = 1;  // as ListVolumes returns them
  volumes[1].id = 2;
  const std::string uuid = meta::testing::TestFsInfo().uuid;
  ASSERT_EQ(mkdir(volumes[1].path.c_str(), 0755), 0);
  EXPECT_EQ(DefaultBackupPath(volumes, uuid).status().code(), ENOENT);  // not mounted?
  ASSERT_TRUE(WriteVolumeLabel(volumes[1].path, {uuid, "testfs", 2, "vol2"}).ok());
  auto path = DefaultBackupPath(volumes, uuid);
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, volumes[1].path + "/.tierfs/meta.db.backup");
  EXPECT_EQ(DefaultBackupPath(volumes, "other-uuid").status().code(), EINVAL);
  EXPECT_EQ(DefaultBackupPath({volumes[0]}, uuid).status().code(), EINVAL);
}

TEST(DaemonLock, InspectWritesNothingAndSeesTheHolder) {
  TempDir dir;
  ASSERT_EQ(mkdir(TierfsDir(dir.path()).c_str(), 0700), 0);
  {
    auto free = DaemonLock::Acquire(dir.path(), DaemonLock::Mode::kInspect);
    ASSERT_TRUE(free.ok());
    EXPECT_FALSE(free->held());
    EXPECT_FALSE(Exists(DaemonLockPath(dir.path())));  // not created
  }
  auto holder = DaemonLock::Acquire(dir.path(), DaemonLock::Mode::kExclusive);
  ASSERT_TRUE(holder.ok());
  EXPECT_TRUE(holder->held());
  auto second = DaemonLock::Acquire(dir.path(), DaemonLock::Mode::kInspect);
  EXPECT_EQ(second.status().code(), EBUSY);
  EXPECT_NE(second.status().message().find("pid " + std::to_string(getpid())), std::string::npos)
      << second.status().message();
  *holder = DaemonLock();  // released
  auto inspect = DaemonLock::Acquire(dir.path(), DaemonLock::Mode::kInspect);
  ASSERT_TRUE(inspect.ok());
  EXPECT_TRUE(inspect->held());
  // A daemon cannot take it while a check holds it.
  int fd = open(DaemonLockPath(dir.path()).c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  EXPECT_NE(flock(fd, LOCK_EX | LOCK_NB), 0);
  close(fd);
}

}  // namespace
}  // namespace tierfs

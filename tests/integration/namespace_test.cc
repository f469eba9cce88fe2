// The mounted namespace behaves like a local file system and survives remounts.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class NamespaceTest : public TierfsFixture {};

std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  EXPECT_NE(d, nullptr) << dir;
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) names.insert(e->d_name);
  closedir(d);
  return names;
}

TEST_F(NamespaceTest, FilesDirectoriesAndLinksSurviveRemount) {
  const std::string big = RandomBytes(3 * 1024 * 1024 + 17, 1);
  ASSERT_EQ(mkdir(Path("dir").c_str(), 0750), 0);
  ASSERT_EQ(mkdir(Path("dir/sub").c_str(), 0700), 0);
  WriteFile(Path("dir/big.bin"), big);
  WriteFile(Path("dir/sub/small.txt"), "hello tierfs\n");
  ASSERT_EQ(link(Path("dir/big.bin").c_str(), Path("hardlink.bin").c_str()), 0);
  ASSERT_EQ(symlink("dir/sub/small.txt", Path("symlink").c_str()), 0);
  ASSERT_EQ(chmod(Path("dir/sub/small.txt").c_str(), 0640), 0);
  timespec times[2] = {{1000000000, 123456789}, {1200000000, 987654321}};
  ASSERT_EQ(utimensat(AT_FDCWD, Path("dir/sub/small.txt").c_str(), times, 0), 0);
  ASSERT_EQ(setxattr(Path("dir/big.bin").c_str(), "user.color", "blue", 4, 0), 0);

  Remount();

  // Attributes first: reading updates atime (relatime, as on ext4).
  struct stat st;
  ASSERT_EQ(stat(Path("dir/big.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 2u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(big.size()));
  struct stat st2;
  ASSERT_EQ(stat(Path("hardlink.bin").c_str(), &st2), 0);
  EXPECT_EQ(st.st_ino, st2.st_ino);
  ASSERT_EQ(stat(Path("dir/sub/small.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1200000000);
  EXPECT_EQ(st.st_mtim.tv_nsec, 987654321);
  EXPECT_EQ(st.st_atim.tv_sec, 1000000000);
  ASSERT_EQ(stat(Path("dir").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_EQ(st.st_nlink, 3u);  // ".", "dir" in the root, ".." of sub
  char target[256] = {0};
  ASSERT_GT(readlink(Path("symlink").c_str(), target, sizeof target - 1), 0);
  EXPECT_STREQ(target, "dir/sub/small.txt");
  char value[16] = {0};
  ASSERT_EQ(getxattr(Path("dir/big.bin").c_str(), "user.color", value, sizeof value), 4);
  EXPECT_STREQ(value, "blue");
  EXPECT_EQ(ListDir(Path("dir")), (std::set<std::string>{".", "..", "big.bin", "sub"}));
  EXPECT_EQ(ReadFile(Path("dir/big.bin")), big);
  EXPECT_EQ(ReadFile(Path("hardlink.bin")), big);
  EXPECT_EQ(ReadFile(Path("symlink")), "hello tierfs\n");
  ASSERT_EQ(stat(Path("dir/sub/small.txt").c_str(), &st), 0);
  EXPECT_GT(st.st_atim.tv_sec, 1000000000);  // relatime: a read of a day-old atime updates it
}

TEST_F(NamespaceTest, RenameReplacesTargetsAndMovesDirectories) {
  WriteFile(Path("a"), "AAAA");
  WriteFile(Path("b"), "BB");
  ASSERT_EQ(rename(Path("a").c_str(), Path("b").c_str()), 0);
  EXPECT_EQ(ReadFile(Path("b")), "AAAA");
  struct stat st;
  EXPECT_EQ(stat(Path("a").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);

  ASSERT_EQ(mkdir(Path("d1").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(Path("d2").c_str(), 0755), 0);
  WriteFile(Path("d1/f"), "in d1");
  ASSERT_EQ(rename(Path("d1").c_str(), Path("d2/moved").c_str()), 0);
  EXPECT_EQ(ReadFile(Path("d2/moved/f")), "in d1");
  ASSERT_EQ(mkdir(Path("d3").c_str(), 0755), 0);
  WriteFile(Path("d3/x"), "x");
  ASSERT_EQ(rename(Path("d2").c_str(), Path("d3").c_str()), -1);
  EXPECT_EQ(errno, ENOTEMPTY);
  ASSERT_EQ(rmdir(Path("d3").c_str()), -1);
  EXPECT_EQ(errno, ENOTEMPTY);

  Remount();
  EXPECT_EQ(ReadFile(Path("d2/moved/f")), "in d1");
  EXPECT_EQ(ReadFile(Path("b")), "AAAA");
}

TEST_F(NamespaceTest, UnlinkedOpenFileStaysReadableUntilLastClose) {
  const std::string data = RandomBytes(200000, 2);
  WriteFile(Path("doomed"), data);
  int fd = open(Path("doomed").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(unlink(Path("doomed").c_str()), 0);
  struct stat st;
  EXPECT_EQ(stat(Path("doomed").c_str(), &st), -1);
  std::string back(data.size(), '\0');
  ASSERT_EQ(pread(fd, back.data(), back.size(), 0), static_cast<ssize_t>(data.size()));
  EXPECT_EQ(back, data);
  ASSERT_EQ(pwrite(fd, "tail", 4, data.size()), 4);
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(data.size() + 4));
  close(fd);
  // The object is reclaimed after the last close (allow the kernel's forget to arrive).
  Unmount();
  size_t objects = 0;
  for (const std::string& vol : {ssd_, hdd_}) {
    for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
      if (e.is_regular_file()) objects++;
    }
  }
  EXPECT_EQ(objects, 0u);
  Mount();
}

// The daemon stopped (SIGTERM, as systemd stops it) while a process still holds an
// unlinked file open: the kernel ends the connection without a FORGET for that
// inode, and the daemon must not leave its object and row for the next mount.
TEST_F(NamespaceTest, UnlinkedFileOpenWhenTheDaemonStopsLeavesNothing) {
  WriteFile(Path("held"), RandomBytes(100000, 3));
  int fd = open(Path("held").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(unlink(Path("held").c_str()), 0);
  StopDaemon();
  close(fd);  // its connection is gone: nothing more to read through it
  size_t objects = 0;
  for (const std::string& vol : {ssd_, hdd_}) {
    for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects")) {
      if (e.is_regular_file()) objects++;
    }
  }
  EXPECT_EQ(objects, 0u) << "the unlinked file's object outlived the daemon";
  CommandResult check = Tool("tierfs", {"check", ssd_});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  Mount();
  EXPECT_EQ(ListDir(mnt_), (std::set<std::string>{".", ".."}));
}

TEST_F(NamespaceTest, TruncateMmapFsyncAndStatfs) {
  WriteFile(Path("f"), std::string(10000, 'x'));
  ASSERT_EQ(truncate(Path("f").c_str(), 100), 0);
  EXPECT_EQ(ReadFile(Path("f")), std::string(100, 'x'));
  ASSERT_EQ(truncate(Path("f").c_str(), 8192), 0);
  std::string expect = std::string(100, 'x') + std::string(8092, '\0');
  EXPECT_EQ(ReadFile(Path("f")), expect);

  int fd = open(Path("f").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  void* map = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  std::memcpy(static_cast<char*>(map) + 4096, "mapped", 6);
  ASSERT_EQ(msync(map, 8192, MS_SYNC), 0);
  munmap(map, 8192);
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
  Remount();
  std::string after = ReadFile(Path("f"));
  ASSERT_EQ(after.size(), 8192u);
  EXPECT_EQ(after.substr(4096, 6), "mapped");

  struct statvfs fs_st, ssd_st;
  ASSERT_EQ(statvfs(mnt_.c_str(), &fs_st), 0);
  ASSERT_EQ(statvfs(ssd_.c_str(), &ssd_st), 0);
  // Both demo volumes live on one disk: the sum is twice that disk.
  const double fs_bytes = double(fs_st.f_blocks) * fs_st.f_frsize;
  const double disk_bytes = double(ssd_st.f_blocks) * ssd_st.f_frsize;
  EXPECT_NEAR(fs_bytes / disk_bytes, 2.0, 0.01);
}

TEST_F(NamespaceTest, ErrorsMatchLocalFileSystems) {
  struct stat st;
  EXPECT_EQ(stat(Path("missing").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
  WriteFile(Path("file"), "x");
  EXPECT_EQ(mkdir(Path("file").c_str(), 0755), -1);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(open(Path("file/below").c_str(), O_RDONLY), -1);
  EXPECT_EQ(errno, ENOTDIR);
  EXPECT_EQ(open(Path(std::string(256, 'n')).c_str(), O_CREAT | O_WRONLY, 0644), -1);
  EXPECT_EQ(errno, ENAMETOOLONG);
  EXPECT_EQ(open(Path("file").c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644), -1);
  EXPECT_EQ(errno, EEXIST);
  ASSERT_EQ(mkdir(Path("dir").c_str(), 0755), 0);
  EXPECT_EQ(unlink(Path("dir").c_str()), -1);
  EXPECT_EQ(errno, EISDIR);
  EXPECT_EQ(rmdir(Path("file").c_str()), -1);
  EXPECT_EQ(errno, ENOTDIR);
  EXPECT_EQ(rename(Path("dir").c_str(), Path("dir/inside").c_str()), -1);
  EXPECT_EQ(errno, EINVAL);
  char v[8];
  EXPECT_EQ(getxattr(Path("file").c_str(), "user.none", v, sizeof v), -1);
  EXPECT_EQ(errno, ENODATA);
}

}  // namespace
}  // namespace tierfs::testing

// Timestamps move exactly when they move on ext4 (POSIX, plus Linux's relatime):
// for every operation, on the object and on its parent directories; explicit times
// keep their nanoseconds, UTIME_NOW and UTIME_OMIT behave as documented.
#include <dirent.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <string>

#include "tests/integration/posix_compare.h"

namespace tierfs::testing {
namespace {

class PosixTimesTest : public PosixFixture {};

void Touch(const std::string& path, const std::string& data = "") { WriteFile(path, data); }

// Runs `op` after a tick and records which times of each path moved.
void Step(Observations& o, const std::string& label, const std::vector<std::string>& paths,
          const std::function<long()>& op, const std::vector<std::string>& names = {}) {
  std::vector<Snap> before;
  for (const std::string& p : paths) before.push_back(TakeSnap(p));
  Tick();
  o.Call(label.c_str(), op());
  for (size_t i = 0; i < paths.size(); ++i) {
    TimesMoved(o, label + ": " + (i < names.size() ? names[i] : std::to_string(i)), before[i],
               paths[i]);
  }
}

TEST_F(PosixTimesTest, NamespaceOperationsStampObjectsAndParents) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string d = b + "/d", e = b + "/e";
    mkdir(d.c_str(), 0755);
    mkdir(e.c_str(), 0755);
    Touch(d + "/keep", "k");
    Step(o, "create", {d},
         [&] { return Opened(open((d + "/f").c_str(), O_CREAT | O_WRONLY, 0644)); }, {"parent"});
    Step(o, "open existing with O_CREAT", {d, d + "/f"},
         [&] { return Opened(open((d + "/f").c_str(), O_CREAT | O_WRONLY, 0644)); },
         {"parent", "file"});
    Step(o, "mkdir", {d}, [&] { return mkdir((d + "/sub").c_str(), 0755); }, {"parent"});
    Step(o, "symlink", {d}, [&] { return symlink("f", (d + "/ln").c_str()); }, {"parent"});
    Step(o, "mkfifo", {d}, [&] { return mkfifo((d + "/fifo").c_str(), 0644); }, {"parent"});
    Step(o, "link", {d + "/f", e}, [&] { return link((d + "/f").c_str(), (e + "/f2").c_str()); },
         {"file", "new parent"});
    Step(o, "unlink one of two links", {d + "/f", e}, [&] { return unlink((e + "/f2").c_str()); },
         {"file", "parent"});
    Step(o, "rename in place", {d, d + "/f"},
         [&] { return rename((d + "/f").c_str(), (d + "/g").c_str()); }, {"parent", "file"});
    Step(o, "rename across parents", {d, e, d + "/g"},
         [&] { return rename((d + "/g").c_str(), (e + "/g").c_str()); },
         {"old parent", "new parent", "file"});
    Step(o, "rename dir across parents", {d, e, d + "/sub"},
         [&] { return rename((d + "/sub").c_str(), (e + "/sub").c_str()); },
         {"old parent", "new parent", "dir"});
    Touch(d + "/victim", "v");
    link((d + "/victim").c_str(), (b + "/victim2").c_str());
    Step(o, "rename over a file", {e, d, b + "/victim2"},
         [&] { return rename((e + "/g").c_str(), (d + "/victim").c_str()); },
         {"old parent", "new parent", "replaced"});
    Touch(d + "/x", "x");
    Touch(e + "/y", "y");
    {
      // The names swap inodes: follow each inode to its new name.
      Snap x = TakeSnap(d + "/x"), y = TakeSnap(e + "/y");
      Step(o, "exchange", {d, e},
           [&] {
             return renameat2(AT_FDCWD, (d + "/x").c_str(), AT_FDCWD, (e + "/y").c_str(),
                              RENAME_EXCHANGE);
           },
           {"first parent", "second parent"});
      TimesMoved(o, "exchange: first", x, e + "/y");
      TimesMoved(o, "exchange: second", y, d + "/x");
    }
    Step(o, "failed rename", {d, e},
         [&] { return rename((d + "/missing").c_str(), (e + "/z").c_str()); },
         {"old parent", "new parent"});
    Step(o, "rmdir", {e}, [&] { return rmdir((e + "/sub").c_str()); }, {"parent"});
    Step(o, "unlink", {d}, [&] { return unlink((d + "/ln").c_str()); }, {"parent"});
    Step(o, "setxattr", {d + "/keep"},
         [&] { return setxattr((d + "/keep").c_str(), "user.k", "v", 1, 0); }, {"file"});
    Step(o, "removexattr", {d + "/keep"},
         [&] { return removexattr((d + "/keep").c_str(), "user.k"); }, {"file"});
    Step(o, "failed removexattr", {d + "/keep"},
         [&] { return removexattr((d + "/keep").c_str(), "user.k"); }, {"file"});
    Step(o, "getxattr", {d + "/keep"},
         [&] {
           char v[8];
           return getxattr((d + "/keep").c_str(), "user.none", v, sizeof v) < 0 ? 0L : 0L;
         },
         {"file"});
  });
  EXPECT_EQ(o.Get("create: parent mtime moved"), "yes");
  EXPECT_EQ(o.Get("create: parent ctime moved"), "yes");
  EXPECT_EQ(o.Get("link: file ctime moved"), "yes");
  EXPECT_EQ(o.Get("link: file mtime moved"), "no");
  EXPECT_EQ(o.Get("rename in place: file ctime moved"), "yes");
  EXPECT_EQ(o.Get("rename across parents: old parent mtime moved"), "yes");
  EXPECT_EQ(o.Get("failed rename: old parent mtime moved"), "no");
  EXPECT_EQ(o.Get("setxattr: file ctime moved"), "yes");
}

TEST_F(PosixTimesTest, AttributeChangesAndData) {
  MountWithoutWritebackCache();  // ext4's times, blocks and holes: see posix_compare.h
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f";
    Touch(f, "0123456789");
    Step(o, "chmod", {f}, [&] { return chmod(f.c_str(), 0600); }, {"file"});
    Step(o, "chmod to same mode", {f}, [&] { return chmod(f.c_str(), 0600); }, {"file"});
    Step(o, "chown to same owner", {f}, [&] { return chown(f.c_str(), 0, 0); }, {"file"});
    Step(o, "chown -1 -1", {f}, [&] { return chown(f.c_str(), -1, -1); }, {"file"});
    Step(o, "truncate to same size", {f}, [&] { return truncate(f.c_str(), 10); }, {"file"});
    Step(o, "truncate shorter", {f}, [&] { return truncate(f.c_str(), 5); }, {"file"});
    Step(o, "ftruncate to same size", {f},
         [&] {
           int fd = open(f.c_str(), O_WRONLY);
           long rc = ftruncate(fd, 5);
           close(fd);
           return rc;
         },
         {"file"});
    Step(o, "open O_TRUNC", {f}, [&] { return Opened(open(f.c_str(), O_WRONLY | O_TRUNC)); },
         {"file"});
    Step(o, "open O_TRUNC of an empty file", {f},
         [&] { return Opened(open(f.c_str(), O_WRONLY | O_TRUNC)); }, {"file"});
    Step(o, "open for writing without writing", {f},
         [&] { return Opened(open(f.c_str(), O_WRONLY)); }, {"file"});
    Step(o, "write", {f},
         [&] {
           int fd = open(f.c_str(), O_WRONLY);
           long rc = write(fd, "abc", 3);
           close(fd);
           return rc < 0 ? -1L : 0L;
         },
         {"file"});
    Step(o, "zero-length write", {f},
         [&] {
           int fd = open(f.c_str(), O_WRONLY);
           long rc = write(fd, "", 0);
           close(fd);
           return rc;
         },
         {"file"});
    Step(o, "first read after write", {f},
         [&] {
           char buf[8];
           int fd = open(f.c_str(), O_RDONLY);
           long rc = read(fd, buf, sizeof buf);
           close(fd);
           return rc < 0 ? -1L : 0L;
         },
         {"file"});
    Step(o, "second read", {f},
         [&] {
           char buf[8];
           int fd = open(f.c_str(), O_RDONLY);
           long rc = read(fd, buf, sizeof buf);
           close(fd);
           return rc < 0 ? -1L : 0L;
         },
         {"file"});
    Step(o, "fallocate inside the size", {f},
         [&] {
           int fd = open(f.c_str(), O_RDWR);
           long rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 2);
           close(fd);
           return rc;
         },
         {"file"});
    Step(o, "fallocate growing", {f},
         [&] {
           int fd = open(f.c_str(), O_RDWR);
           long rc = fallocate(fd, 0, 0, 8192);
           close(fd);
           return rc;
         },
         {"file"});
    Step(o, "punch hole", {f},
         [&] {
           int fd = open(f.c_str(), O_RDWR);
           long rc = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096);
           close(fd);
           return rc;
         },
         {"file"});
    auto copy = [&] {
      int in = open((b + "/src").c_str(), O_RDONLY);
      int out = open(f.c_str(), O_WRONLY);
      long rc = copy_file_range(in, nullptr, out, nullptr, 6, 0);
      close(in);
      close(out);
      return rc < 0 ? -1L : 0L;
    };
    Touch(b + "/src", "source bytes");
    // The source's atime (which this copy moves) is checked by
    // CopyFileRangeMovesTheSourceAtime: the kernel caches the source's attributes
    // until the daemon can notify it (fuse_ops.h, FuseContext::session).
    Step(o, "copy_file_range, source atime stale", {f}, copy, {"destination"});
    Tick();
    {
      char c;
      int fd = open((b + "/src").c_str(), O_RDONLY);
      (void)!read(fd, &c, 1);  // atime now after mtime: the next access leaves it
      close(fd);
    }
    Step(o, "copy_file_range, source atime fresh", {b + "/src", f}, copy,
         {"source", "destination"});
    const std::string d = b + "/d";
    mkdir(d.c_str(), 0755);
    Touch(d + "/entry");
    Step(o, "first listing", {d},
         [&] {
           DIR* dir = opendir(d.c_str());
           while (readdir(dir) != nullptr) {
           }
           return closedir(dir);
         },
         {"dir"});
    Step(o, "second listing", {d},
         [&] {
           DIR* dir = opendir(d.c_str());
           while (readdir(dir) != nullptr) {
           }
           return closedir(dir);
         },
         {"dir"});
    Step(o, "chmod dir", {d}, [&] { return chmod(d.c_str(), 0700); }, {"dir"});
  });
  EXPECT_EQ(o.Get("chmod: file ctime moved"), "yes");
  EXPECT_EQ(o.Get("chmod: file mtime moved"), "no");
  EXPECT_EQ(o.Get("truncate to same size: file ctime moved"), "yes");  // ext4 stamps it
  EXPECT_EQ(o.Get("truncate shorter: file mtime moved"), "yes");
  EXPECT_EQ(o.Get("open O_TRUNC of an empty file: file mtime moved"), "yes");
  EXPECT_EQ(o.Get("write: file mtime moved"), "yes");
  EXPECT_EQ(o.Get("first read after write: file atime moved"), "yes");
  EXPECT_EQ(o.Get("second read: file atime moved"), "no");
  EXPECT_EQ(o.Get("first listing: dir atime moved"), "yes");
  EXPECT_EQ(o.Get("second listing: dir atime moved"), "no");
}

TEST_F(PosixTimesTest, CopyFileRangeMovesTheSourceAtime) {
  // ext4 reads the source through splice, which is an access (relatime).
  WriteFile(Path("src"), "source bytes");
  WriteFile(Path("dst"), "");
  struct stat before;
  ASSERT_EQ(stat(Path("src").c_str(), &before), 0);
  Tick();
  int in = open(Path("src").c_str(), O_RDONLY);
  int out = open(Path("dst").c_str(), O_WRONLY);
  ASSERT_EQ(copy_file_range(in, nullptr, out, nullptr, 6, 0), 6);
  close(in);
  close(out);
  Remount();  // the daemon's own record, whatever the kernel had cached
  struct stat after;
  ASSERT_EQ(stat(Path("src").c_str(), &after), 0);
  EXPECT_FALSE(SameTime(before.st_atim, after.st_atim));
  EXPECT_TRUE(SameTime(before.st_mtim, after.st_mtim));
  EXPECT_EQ(ReadFile(Path("dst")), "source");
}

TEST_F(PosixTimesTest, ExplicitTimesNowAndOmit) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f";
    Touch(f, "x");
    symlink("f", (b + "/l").c_str());
    auto record = [&](const std::string& label, const std::string& path) {
      struct stat st;
      lstat(path.c_str(), &st);
      o.Value((label + " atime sec").c_str(), st.st_atim.tv_sec);
      o.Value((label + " atime nsec").c_str(), st.st_atim.tv_nsec);
      o.Value((label + " mtime sec").c_str(), st.st_mtim.tv_sec);
      o.Value((label + " mtime nsec").c_str(), st.st_mtim.tv_nsec);
    };
    timespec set[2] = {{1000000000, 123456789}, {1200000000, 987654321}};
    Step(o, "utimensat explicit", {f}, [&] { return utimensat(AT_FDCWD, f.c_str(), set, 0); },
         {"file"});
    record("explicit", f);
    timespec omit_atime[2] = {{0, UTIME_OMIT}, {1300000000, 1}};
    Step(o, "omit atime", {f}, [&] { return utimensat(AT_FDCWD, f.c_str(), omit_atime, 0); },
         {"file"});
    record("omit atime", f);
    timespec omit_both[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
    Step(o, "omit both", {f}, [&] { return utimensat(AT_FDCWD, f.c_str(), omit_both, 0); },
         {"file"});
    timespec now_mtime[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    Step(o, "now mtime only", {f}, [&] { return utimensat(AT_FDCWD, f.c_str(), now_mtime, 0); },
         {"file"});
    Step(o, "both now (NULL)", {f}, [&] { return utimensat(AT_FDCWD, f.c_str(), nullptr, 0); },
         {"file"});
    timespec before_epoch[2] = {{-1, 500000000}, {-86400 * 365, 0}};
    o.Call("times before 1970", utimensat(AT_FDCWD, f.c_str(), before_epoch, 0));
    record("before 1970", f);
    timespec far[2] = {{4102444800LL, 5}, {7258118400LL, 999999999}};  // 2100, 2200
    o.Call("times far ahead", utimensat(AT_FDCWD, f.c_str(), far, 0));
    record("far ahead", f);
    timespec bad[2] = {{0, 1000000000}, {0, 0}};
    o.Call("nanoseconds out of range", utimensat(AT_FDCWD, f.c_str(), bad, 0));
    Step(o, "times of a symlink itself", {b + "/l", f},
         [&] { return utimensat(AT_FDCWD, (b + "/l").c_str(), set, AT_SYMLINK_NOFOLLOW); },
         {"link", "target"});
    record("symlink", b + "/l");
    int fd = open(f.c_str(), O_RDONLY);
    Step(o, "futimens", {f}, [&] { return futimens(fd, set); }, {"file"});
    close(fd);
    record("futimens", f);
  });
  EXPECT_EQ(o.Get("explicit mtime nsec"), "987654321");
  EXPECT_EQ(o.Get("omit atime atime nsec"), "123456789");
  EXPECT_EQ(o.Get("omit both: file ctime moved"), "no");
  EXPECT_EQ(o.Get("omit atime: file ctime moved"), "yes");
  EXPECT_EQ(o.Get("before 1970 atime sec"), "-1");
  EXPECT_EQ(o.Get("before 1970 atime nsec"), "500000000");
  EXPECT_EQ(o.Get("nanoseconds out of range"), "EINVAL");
}

}  // namespace
}  // namespace tierfs::testing

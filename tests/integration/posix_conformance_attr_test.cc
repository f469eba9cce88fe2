// The attribute-changing calls of a POSIX conformance sweep, each check run on
// plain ext4 and on the mount: chmod, chown/lchown, truncate/ftruncate, utimensat
// and posix_fallocate, with their errnos (as root and as unprivileged users), the
// setuid/setgid rules and which times move. Namespace calls are in
// posix_conformance_test.cc.
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "tests/integration/posix_compare.h"

namespace tierfs::testing {
namespace {

class PosixConformanceAttrTest : public PosixFixture {};

void Touch(const std::string& path, const std::string& data = "") { WriteFile(path, data); }

std::string Describe(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return ErrnoName(errno);
  char buf[128];
  snprintf(buf, sizeof buf, "type=%o mode=%04o uid=%u gid=%u nlink=%lu size=%lld",
           st.st_mode & S_IFMT, st.st_mode & 07777, st.st_uid, st.st_gid,
           static_cast<unsigned long>(st.st_nlink), static_cast<long long>(st.st_size));
  return buf;
}

long long Blocks(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_blocks) : -1;
}

// st_blocks of a file that posix_fallocate grew, without ext4's extent-tree
// blocks: from 512 KiB on, counted in 32 KiB. A file whose extents no longer fit
// in its inode takes a 4 KiB index block, or not, depending on how fragmented
// the free space was when each of the two files compared (the host's and the
// mount's object, both on the root ext4) was allocated: 4096 against 4104
// sectors, seen once in a few hundred runs.
long long FallocatedBlocks(const std::string& path) {
  const long long blocks = Blocks(path);
  return blocks < 1024 ? blocks : blocks / 64 * 64;
}

std::string TooLongPath(const std::string& b) {
  std::string p = b;
  while (p.size() <= PATH_MAX) p += "/" + std::string(200, 'p');
  return p;
}

void PrepareCommon(const std::string& b) {
  Touch(b + "/file", "data");
  symlink("loop2", (b + "/loop1").c_str());
  symlink("loop1", (b + "/loop2").c_str());
}

void CommonPathErrors(Observations& o, const std::string& what, const std::string& b,
                      const std::function<long(const std::string&)>& call) {
  o.Call((what + ": missing").c_str(), call(b + "/missing"));
  o.Call((what + ": missing parent").c_str(), call(b + "/missing/x"));
  o.Call((what + ": file in the path").c_str(), call(b + "/file/x"));
  o.Call((what + ": 256-byte component").c_str(), call(b + "/" + std::string(256, 'n')));
  o.Call((what + ": path over PATH_MAX").c_str(), call(TooLongPath(b)));
  o.Call((what + ": symlink loop").c_str(), call(b + "/loop1"));
  o.Call((what + ": symlink loop in the path").c_str(), call(b + "/loop1/x"));
}

// Runs `op` after a tick; records its outcome and which times of `path` moved.
void Step(Observations& o, const std::string& label, const std::string& path,
          const std::function<long()>& op) {
  Snap before = TakeSnap(path);
  Tick();
  o.Call(label.c_str(), op());
  TimesMoved(o, label, before, path);
}

TEST_F(PosixConformanceAttrTest, Chmod) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    PrepareCommon(b);
    CommonPathErrors(o, "chmod", b, [](const std::string& p) { return chmod(p.c_str(), 0644); });
    const std::string f = b + "/file";
    for (mode_t mode : {mode_t{0}, mode_t{07777}, mode_t{01644}, mode_t{04711}, mode_t{02755}}) {
      char label[32];
      snprintf(label, sizeof label, "chmod %04o", mode);
      Step(o, label, f, [&] { return chmod(f.c_str(), mode); });
      o.Text((std::string(label) + " gives").c_str(), Describe(f));
    }
    mkdir((b + "/d").c_str(), 0755);
    Step(o, "chmod dir 07777", b + "/d", [&] { return chmod((b + "/d").c_str(), 07777); });
    o.Text("dir after chmod 07777", Describe(b + "/d"));
    mkfifo((b + "/fifo").c_str(), 0644);
    Step(o, "chmod fifo 0600", b + "/fifo", [&] { return chmod((b + "/fifo").c_str(), 0600); });
    o.Text("fifo after chmod", Describe(b + "/fifo"));
    {
      int fd = open(f.c_str(), O_RDONLY);
      Step(o, "fchmod on an O_RDONLY fd", f, [&] { return fchmod(fd, 0640); });
      close(fd);
      int pfd = open(f.c_str(), O_PATH);
      o.Call("fchmod on an O_PATH fd", fchmod(pfd, 0600));
      close(pfd);
    }
    Touch(b + "/own", "o");
    chown((b + "/own").c_str(), kUser, kGroup);
    chmod((b + "/own").c_str(), 0644);
    Touch(b + "/own-other-group", "o");
    chown((b + "/own-other-group").c_str(), kUser, kOtherGroup);
    mkdir((b + "/owndir").c_str(), 0755);
    chown((b + "/owndir").c_str(), kUser, kOtherGroup);
    mkdir((b + "/nosearch").c_str(), 0700);
    Touch(b + "/nosearch/f", "x");
    chown((b + "/nosearch/f").c_str(), kUser, kGroup);
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("chmod root's file", chmod((b + "/file").c_str(), 0777));
                     u.Call("chmod own file 01755", chmod((b + "/own").c_str(), 01755));
                     u.Text("own file after 01755", Describe(b + "/own"));
                     u.Call("chmod own file 06755", chmod((b + "/own").c_str(), 06755));
                     u.Text("own file after 06755 (own group)", Describe(b + "/own"));
                     u.Call("chmod own file 02755, group not held",
                            chmod((b + "/own-other-group").c_str(), 02755));
                     u.Text("after 02755, group not held", Describe(b + "/own-other-group"));
                     u.Call("chmod own dir 02755, group not held",
                            chmod((b + "/owndir").c_str(), 02755));
                     u.Text("own dir after 02755", Describe(b + "/owndir"));
                     u.Call("chmod own file in a dir without search",
                            chmod((b + "/nosearch/f").c_str(), 0600));
                   }),
            "user: ");
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("chmod 02755 with the group as a supplementary group",
                            chmod((b + "/own-other-group").c_str(), 02755));
                     u.Text("after 02755 with the group", Describe(b + "/own-other-group"));
                   },
                   {kOtherGroup}),
            "user in group: ");
  });
  EXPECT_EQ(o.Get("chmod: missing parent"), "ENOENT");
  EXPECT_EQ(o.Get("chmod: symlink loop"), "ELOOP");
  EXPECT_EQ(o.Get("chmod 7777 gives"), "type=100000 mode=7777 uid=0 gid=0 nlink=1 size=4");
  EXPECT_EQ(o.Get("chmod 0000 ctime moved"), "yes");
  EXPECT_EQ(o.Get("chmod 0000 mtime moved"), "no");
  EXPECT_EQ(o.Get("user: chmod root's file"), "EPERM");
  EXPECT_EQ(o.Get("user: after 02755, group not held"),
            "type=100000 mode=0755 uid=65534 gid=65533 nlink=1 size=1");
  EXPECT_EQ(o.Get("user in group: after 02755 with the group"),
            "type=100000 mode=2755 uid=65534 gid=65533 nlink=1 size=1");
}

TEST_F(PosixConformanceAttrTest, ChownAndLchown) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    PrepareCommon(b);
    CommonPathErrors(o, "chown", b, [](const std::string& p) { return chown(p.c_str(), 1, 1); });
    CommonPathErrors(o, "lchown", b, [](const std::string& p) {
      return p.ends_with("loop1") ? 0L : lchown(p.c_str(), 1, 1);
    });
    const std::string f = b + "/file";
    Step(o, "chown to 65534:65534", f, [&] { return chown(f.c_str(), kUser, kGroup); });
    o.Text("after chown", Describe(f));
    Step(o, "chown -1 -1", f, [&] { return chown(f.c_str(), -1, -1); });
    Step(o, "chown uid only", f, [&] { return chown(f.c_str(), kOther, -1); });
    Step(o, "chown gid only", f, [&] { return chown(f.c_str(), -1, kOtherGroup); });
    o.Text("after uid then gid", Describe(f));
    // setuid/setgid as root changes owners (files and directories), per mode.
    for (mode_t mode : {mode_t{06755}, mode_t{06745}, mode_t{04700}, mode_t{02710}, mode_t{02700},
                        mode_t{07777}}) {
      char label[64];
      const std::string p = b + "/s" + std::to_string(mode);
      Touch(p, "s");
      chmod(p.c_str(), mode);
      snprintf(label, sizeof label, "%04o after root's chown", mode);
      chown(p.c_str(), kUser, -1);
      o.Text(label, Describe(p));
      chmod(p.c_str(), mode);
      snprintf(label, sizeof label, "%04o after root's chown -1 -1", mode);
      chown(p.c_str(), -1, -1);
      o.Text(label, Describe(p));
      chmod(p.c_str(), mode);
      snprintf(label, sizeof label, "%04o after root's chgrp", mode);
      chown(p.c_str(), -1, kGroup);
      o.Text(label, Describe(p));
    }
    mkdir((b + "/sd").c_str(), 0755);
    chmod((b + "/sd").c_str(), 06755);
    chown((b + "/sd").c_str(), kUser, kGroup);
    o.Text("setuid/setgid dir after chown", Describe(b + "/sd"));
    // lchown of a symlink; fchown through O_RDONLY and O_PATH fds.
    symlink("file", (b + "/l").c_str());
    Step(o, "lchown of a symlink", b + "/l", [&] { return lchown((b + "/l").c_str(), 1, 2); });
    o.Text("symlink after lchown", Describe(b + "/l"));
    o.Text("target after lchown", Describe(f));
    {
      int fd = open(f.c_str(), O_RDONLY);
      o.Call("fchown on an O_RDONLY fd", fchown(fd, 3, 4));
      close(fd);
      int pfd = open(f.c_str(), O_PATH);
      o.Call("fchown on an O_PATH fd", fchown(pfd, 3, 4));
      close(pfd);
      o.Call("fchownat AT_EMPTY_PATH",
             [&] {
               int p2 = open((b + "/l").c_str(), O_PATH | O_NOFOLLOW);
               long rc = fchownat(p2, "", 5, 6, AT_EMPTY_PATH);
               close(p2);
               return rc;
             }());
      o.Text("symlink after AT_EMPTY_PATH", Describe(b + "/l"));
    }
    // Unprivileged owners.
    for (const char* name : {"u1", "u2", "u3", "u4"}) {
      Touch(b + "/" + name, "u");
      chown((b + "/" + name).c_str(), kUser, kGroup);
      chmod((b + "/" + name).c_str(), 06755);
    }
    symlink("u1", (b + "/ul").c_str());
    lchown((b + "/ul").c_str(), kUser, kGroup);
    Touch(b + "/rootf", "r");
    chmod((b + "/rootf").c_str(), 0666);
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("chown own file to another user", chown((b + "/u1").c_str(), kOther, -1));
                     u.Call("chown own file to own uid", chown((b + "/u1").c_str(), kUser, -1));
                     u.Text("after chown to own uid", Describe(b + "/u1"));
                     u.Call("chgrp own file to a group not held",
                            chown((b + "/u2").c_str(), -1, kOtherGroup));
                     u.Call("chgrp own file to own group", chown((b + "/u2").c_str(), -1, kGroup));
                     u.Text("after chgrp to own group", Describe(b + "/u2"));
                     u.Call("chown -1 -1 own file", chown((b + "/u3").c_str(), -1, -1));
                     u.Text("after own chown -1 -1", Describe(b + "/u3"));
                     u.Call("chown root's file", chown((b + "/rootf").c_str(), kUser, -1));
                     u.Call("chgrp root's writable file", chown((b + "/rootf").c_str(), -1, kGroup));
                     u.Call("chown -1 -1 root's file", chown((b + "/rootf").c_str(), -1, -1));
                     u.Call("lchown own symlink to own group", lchown((b + "/ul").c_str(), -1, kGroup));
                     u.Call("lchown own symlink to another user",
                            lchown((b + "/ul").c_str(), kOther, -1));
                   }),
            "user: ");
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("chgrp to a supplementary group",
                            chown((b + "/u4").c_str(), -1, kOtherGroup));
                     u.Text("after chgrp to a supplementary group", Describe(b + "/u4"));
                   },
                   {kOtherGroup}),
            "user in group: ");
  });
  EXPECT_EQ(o.Get("chown: missing"), "ENOENT");
  EXPECT_EQ(o.Get("chown -1 -1 ctime moved"), "yes");
  EXPECT_EQ(o.Get("6755 after root's chown"), "type=100000 mode=0755 uid=65534 gid=0 nlink=1 size=1");
  EXPECT_EQ(o.Get("2700 after root's chown"), "type=100000 mode=2700 uid=65534 gid=0 nlink=1 size=1");
  EXPECT_EQ(o.Get("setuid/setgid dir after chown"),
            "type=40000 mode=6755 uid=65534 gid=65534 nlink=2 size=4096");
  EXPECT_EQ(o.Get("symlink after lchown"), "type=120000 mode=0777 uid=1 gid=2 nlink=1 size=4");
  EXPECT_EQ(o.Get("user: chown own file to another user"), "EPERM");
  EXPECT_EQ(o.Get("user: chgrp own file to a group not held"), "EPERM");
  EXPECT_EQ(o.Get("user: chown root's file"), "EPERM");
  EXPECT_EQ(o.Get("user in group: chgrp to a supplementary group"), "ok");
}

TEST_F(PosixConformanceAttrTest, TruncateAndFtruncate) {
  MountWithoutWritebackCache();  // ext4's times, blocks and holes: see posix_compare.h
  Observations o = Compare([](const std::string& b, Observations& o) {
    PrepareCommon(b);
    CommonPathErrors(o, "truncate", b, [](const std::string& p) { return truncate(p.c_str(), 0); });
    const std::string f = b + "/file";
    Step(o, "truncate to grow", f, [&] { return truncate(f.c_str(), 10000); });
    o.Text("grown", Describe(f));
    o.Flag("grown tail reads as zeros", ReadFile(f) == "data" + std::string(9996, '\0'));
    Step(o, "truncate to shrink", f, [&] { return truncate(f.c_str(), 2); });
    o.Text("shrunk content", ReadFile(f));
    Step(o, "truncate to the same size", f, [&] { return truncate(f.c_str(), 2); });
    o.Call("truncate to -1", truncate(f.c_str(), -1));
    o.Call("truncate beyond ext4's limit", truncate(f.c_str(), 1LL << 50));
    o.Text("size after failed truncates", Describe(f));
    mkdir((b + "/d").c_str(), 0755);
    o.Call("truncate a directory", truncate((b + "/d").c_str(), 0));
    mkfifo((b + "/fifo").c_str(), 0644);
    o.Call("truncate a fifo", truncate((b + "/fifo").c_str(), 0));
    symlink("file", (b + "/l").c_str());
    o.Call("truncate through a symlink", truncate((b + "/l").c_str(), 7));
    o.Text("target after truncate through a symlink", Describe(f));
    // ftruncate: which descriptors may.
    auto ftrunc = [&](const char* label, const std::string& path, int flags, off_t len) {
      int fd = open(path.c_str(), flags);
      if (fd < 0) {
        o.Text(label, "open " + ErrnoName(errno));
        return;
      }
      o.Call(label, ftruncate(fd, len));
      close(fd);
    };
    ftrunc("ftruncate O_RDONLY fd", f, O_RDONLY, 1);
    ftrunc("ftruncate O_WRONLY fd", f, O_WRONLY, 3);
    ftrunc("ftruncate O_RDWR fd", f, O_RDWR, 4);
    ftrunc("ftruncate O_WRONLY|O_APPEND fd", f, O_WRONLY | O_APPEND, 5);
    ftrunc("ftruncate O_PATH fd", f, O_PATH, 1);
    ftrunc("ftruncate negative", f, O_RDWR, -1);
    ftrunc("ftruncate a dir fd", b + "/d", O_RDONLY | O_DIRECTORY, 0);
    ftrunc("ftruncate a fifo fd", b + "/fifo", O_RDWR, 0);
    o.Text("after the ftruncates", Describe(f));
    {
      int fd = open(f.c_str(), O_RDWR);
      Step(o, "ftruncate to the same size", f, [&] { return ftruncate(fd, 5); });
      Step(o, "ftruncate to grow", f, [&] { return ftruncate(fd, 8192); });
      close(fd);
    }
    // Users: write permission decides for truncate; the descriptor for ftruncate.
    Touch(b + "/ro", "0123456789");
    chmod((b + "/ro").c_str(), 0644);
    Touch(b + "/rw", "0123456789");
    chmod((b + "/rw").c_str(), 0666);
    Touch(b + "/own", "0123456789");
    chown((b + "/own").c_str(), kUser, kGroup);
    chmod((b + "/own").c_str(), 0644);
    mkdir((b + "/nosearch").c_str(), 0700);
    Touch(b + "/nosearch/f", "x");
    chmod((b + "/nosearch/f").c_str(), 0666);
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("truncate without write permission", truncate((b + "/ro").c_str(), 1));
                     u.Call("truncate another's 0666 file", truncate((b + "/rw").c_str(), 1));
                     u.Call("truncate in a dir without search",
                            truncate((b + "/nosearch/f").c_str(), 0));
                     int fd = open((b + "/own").c_str(), O_WRONLY);
                     chmod((b + "/own").c_str(), 0444);
                     u.Call("ftruncate after chmod 0444", ftruncate(fd, 2));
                     close(fd);
                     u.Call("truncate own 0444 file", truncate((b + "/own").c_str(), 1));
                     u.Text("own file", Describe(b + "/own"));
                   }),
            "user: ");
    o.Call("root truncates a 0444 file", truncate((b + "/own").c_str(), 0));
  });
  EXPECT_EQ(o.Get("truncate: missing"), "ENOENT");
  EXPECT_EQ(o.Get("truncate to the same size mtime moved"), "yes");
  EXPECT_EQ(o.Get("truncate to the same size ctime moved"), "yes");
  EXPECT_EQ(o.Get("truncate to -1"), "EINVAL");
  EXPECT_EQ(o.Get("truncate beyond ext4's limit"), "EFBIG");
  EXPECT_EQ(o.Get("truncate a directory"), "EISDIR");
  EXPECT_EQ(o.Get("ftruncate O_RDONLY fd"), "EINVAL");
  EXPECT_EQ(o.Get("ftruncate O_PATH fd"), "EBADF");
  EXPECT_EQ(o.Get("user: truncate without write permission"), "EACCES");
  EXPECT_EQ(o.Get("user: ftruncate after chmod 0444"), "ok");
}

TEST_F(PosixConformanceAttrTest, Utimensat) {
  MountWithoutWritebackCache();  // ext4's times, blocks and holes: see posix_compare.h
  Observations o = Compare([](const std::string& b, Observations& o) {
    PrepareCommon(b);
    timespec set[2] = {{100, 1}, {200, 2}};
    CommonPathErrors(o, "utimensat", b, [&](const std::string& p) {
      return utimensat(AT_FDCWD, p.c_str(), set, 0);
    });
    const std::string f = b + "/file";
    o.Call("utimensat bad flag", utimensat(AT_FDCWD, f.c_str(), set, 0x4000));
    timespec bad[2] = {{0, -1}, {0, 0}};
    o.Call("negative nanoseconds", utimensat(AT_FDCWD, f.c_str(), bad, 0));
    Step(o, "utimensat explicit", f, [&] { return utimensat(AT_FDCWD, f.c_str(), set, 0); });
    // Times up to the end of int64 nanoseconds (2262) and before ext4's first
    // second (1901), which clamps. (Later ones: TimesBeyond2262Saturate.)
    for (long long sec : {0LL, 1LL << 31, 1LL << 32, (1LL << 33) + 7, 9223372035LL, -(1LL << 31),
                          -(1LL << 31) + 1, -(1LL << 31) - 1, -(1LL << 40)}) {
      timespec ts[2] = {{static_cast<time_t>(sec), 999999999}, {static_cast<time_t>(sec), 1}};
      const std::string label = "utimensat to " + std::to_string(sec);
      o.Call(label.c_str(), utimensat(AT_FDCWD, f.c_str(), ts, 0));
      struct stat st;
      lstat(f.c_str(), &st);
      o.Text((label + " gives").c_str(),
             std::to_string(st.st_atim.tv_sec) + "." + std::to_string(st.st_atim.tv_nsec) + " " +
                 std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec));
    }
    mkdir((b + "/d").c_str(), 0755);
    Step(o, "utimensat of a dir", b + "/d",
         [&] { return utimensat(AT_FDCWD, (b + "/d").c_str(), set, 0); });
    mkfifo((b + "/fifo").c_str(), 0644);
    Step(o, "utimensat of a fifo", b + "/fifo",
         [&] { return utimensat(AT_FDCWD, (b + "/fifo").c_str(), nullptr, 0); });
    {
      int fd = open(f.c_str(), O_RDONLY);
      Step(o, "futimens UTIME_NOW on an O_RDONLY fd", f, [&] { return futimens(fd, nullptr); });
      close(fd);
    }
    // Who may set which times.
    Touch(b + "/rw", "x");
    chmod((b + "/rw").c_str(), 0666);
    Touch(b + "/ro", "x");
    chmod((b + "/ro").c_str(), 0644);
    Touch(b + "/own", "x");
    chown((b + "/own").c_str(), kUser, kGroup);
    chmod((b + "/own").c_str(), 0444);
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     auto ut = [&](const char* label, const char* name, long nsec_a, long nsec_m) {
                       timespec ts[2] = {{300, nsec_a}, {400, nsec_m}};
                       const std::string p = b + "/" + name;
                       Snap before = TakeSnap(p);
                       Tick();
                       u.Call(label, utimensat(AT_FDCWD, p.c_str(), ts, 0));
                       TimesMoved(u, label, before, p);
                     };
                     u.Call("NULL times, writable non-owner",
                            utimensat(AT_FDCWD, (b + "/rw").c_str(), nullptr, 0));
                     ut("both UTIME_NOW, writable non-owner", "rw", UTIME_NOW, UTIME_NOW);
                     ut("UTIME_NOW + UTIME_OMIT, writable non-owner", "rw", UTIME_NOW, UTIME_OMIT);
                     ut("both UTIME_OMIT, writable non-owner", "rw", UTIME_OMIT, UTIME_OMIT);
                     ut("explicit, writable non-owner", "rw", 0, 0);
                     ut("explicit + UTIME_OMIT, writable non-owner", "rw", 5, UTIME_OMIT);
                     u.Call("NULL times, read-only non-owner",
                            utimensat(AT_FDCWD, (b + "/ro").c_str(), nullptr, 0));
                     ut("both UTIME_NOW, read-only non-owner", "ro", UTIME_NOW, UTIME_NOW);
                     ut("both UTIME_OMIT, read-only non-owner", "ro", UTIME_OMIT, UTIME_OMIT);
                     ut("explicit, read-only non-owner", "ro", 0, 0);
                     ut("explicit, owner of a 0444 file", "own", 7, 8);
                     u.Call("NULL times, owner of a 0444 file",
                            utimensat(AT_FDCWD, (b + "/own").c_str(), nullptr, 0));
                   }),
            "user: ");
  });
  EXPECT_EQ(o.Get("utimensat: missing"), "ENOENT");
  EXPECT_EQ(o.Get("utimensat bad flag"), "EINVAL");
  EXPECT_EQ(o.Get("utimensat to -2147483649 gives"), "-2147483648.0 -2147483648.0");
  EXPECT_EQ(o.Get("utimensat to 9223372035 gives"), "9223372035.999999999 9223372035.1");
  EXPECT_EQ(o.Get("utimensat explicit ctime moved"), "yes");
  EXPECT_EQ(o.Get("user: both UTIME_NOW, writable non-owner"), "ok");
  EXPECT_EQ(o.Get("user: explicit, writable non-owner"), "EPERM");
  EXPECT_EQ(o.Get("user: NULL times, read-only non-owner"), "EACCES");
  EXPECT_EQ(o.Get("user: explicit, owner of a 0444 file"), "ok");
}

// ext4 keeps times up to 2446-05-10 and clamps later ones there; tierfs keeps
// int64 nanoseconds (meta/records.h), so from 2262-04-11T23:47:16.854775807Z on
// it shows that last representable time instead (never a wrapped-around value).
TEST_F(PosixConformanceAttrTest, TimesBeyond2262Saturate) {
  MountWithoutWritebackCache();  // ext4's times, blocks and holes: see posix_compare.h
  const std::string f = Path("f");
  WriteFile(f, "x");
  for (long long sec : {9223372036LL, 9223372037LL, 15032385535LL, 1LL << 40, 1LL << 62}) {
    timespec ts[2] = {{static_cast<time_t>(sec), 999999999}, {static_cast<time_t>(sec), 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, f.c_str(), ts, 0), 0) << sec;
    struct stat st;
    ASSERT_EQ(stat(f.c_str(), &st), 0);
    EXPECT_EQ(st.st_atim.tv_sec, 9223372036) << sec;
    EXPECT_EQ(st.st_atim.tv_nsec, 854775807) << sec;
    EXPECT_EQ(st.st_mtim.tv_sec, 9223372036) << sec;
  }
  Remount();  // the database keeps the same value
  struct stat st;
  ASSERT_EQ(stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 9223372036);
  EXPECT_EQ(st.st_mtim.tv_nsec, 854775807);
}

TEST_F(PosixConformanceAttrTest, PosixFallocate) {
  MountWithoutWritebackCache();  // ext4's times, blocks and holes: see posix_compare.h
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f";
    Touch(f, "abc");
    // posix_fallocate returns the error number instead of setting errno.
    auto pf = [&](const char* label, const std::string& path, int flags, off_t off, off_t len) {
      int fd = open(path.c_str(), flags);
      if (fd < 0) {
        o.Text(label, "open " + ErrnoName(errno));
        return;
      }
      Snap before = TakeSnap(path);
      Tick();
      o.Text(label, ErrnoName(posix_fallocate(fd, off, len)));
      TimesMoved(o, label, before, path);
      close(fd);
      o.Text((std::string(label) + ": file").c_str(), Describe(path));
      o.Value((std::string(label) + ": blocks").c_str(), FallocatedBlocks(path));
    };
    pf("beyond the end", f, O_RDWR, 0, 10000);
    o.Flag("contents after growth", ReadFile(f) == "abc" + std::string(9997, '\0'));
    pf("far beyond the end", f, O_WRONLY, 1 << 20, 4096);
    pf("inside the file", f, O_RDWR, 0, 100);
    pf("O_RDONLY fd", f, O_RDONLY, 0, 1 << 21);
    pf("O_APPEND fd", f, O_WRONLY | O_APPEND, 0, 1 << 21);
    pf("zero length", f, O_RDWR, 0, 0);
    pf("negative offset", f, O_RDWR, -1, 10);
    pf("negative length", f, O_RDWR, 0, -10);
    pf("beyond ext4's limit", f, O_RDWR, 1LL << 50, 4096);
    mkfifo((b + "/fifo").c_str(), 0644);
    pf("on a fifo", b + "/fifo", O_RDWR, 0, 10);
    mkdir((b + "/d").c_str(), 0755);
    pf("on a dir fd", b + "/d", O_RDONLY | O_DIRECTORY, 0, 10);
  });
  EXPECT_EQ(o.Get("beyond the end"), "ok");
  EXPECT_EQ(o.Get("beyond the end: file"), "type=100000 mode=0644 uid=0 gid=0 nlink=1 size=10000");
  EXPECT_EQ(o.Get("beyond the end mtime moved"), "yes");
  EXPECT_EQ(o.Get("O_RDONLY fd"), "EBADF");
  EXPECT_EQ(o.Get("zero length"), "EINVAL");
  EXPECT_EQ(o.Get("on a fifo"), "ESPIPE");
}

}  // namespace
}  // namespace tierfs::testing

// Permission semantics as the kernel applies them to ext4, for unprivileged
// callers (child processes that drop to uid/gid 65534 or 65533): mode bits,
// sticky and setgid directories, setuid/setgid clearing on write, truncate and
// chown, ownership changes, times by non-owners, device nodes and xattr
// namespaces. The mount is allow_other (mounted by root) with default_permissions.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "tests/integration/posix_compare.h"

namespace tierfs::testing {
namespace {

class PosixPermTest : public PosixFixture {};

long long ModeOf(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : -1;
}
long long GidOf(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_gid : -1;
}

void Make(const std::string& path, mode_t mode, uid_t uid, gid_t gid,
          const std::string& data = "") {
  WriteFile(path, data);
  chown(path.c_str(), uid, gid);
  chmod(path.c_str(), mode);  // after chown, which clears setuid/setgid
}
// One aligned 4 KiB O_DIRECT write at offset 0: bytes written, or -1.
long long DirectWrite(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_DIRECT);
  if (fd < 0) return -1;
  void* block = nullptr;
  long long n = -1;
  if (posix_memalign(&block, 4096, 4096) == 0) {
    std::memset(block, 'd', 4096);
    n = pwrite(fd, block, 4096, 0);
    free(block);
  }
  close(fd);
  return n;
}

void MakeDir(const std::string& path, mode_t mode, uid_t uid, gid_t gid) {
  mkdir(path.c_str(), 0700);
  chown(path.c_str(), uid, gid);
  chmod(path.c_str(), mode);
}

TEST_F(PosixPermTest, ModeBitsOwnerGroupOther) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    MakeDir(b + "/ro", 0755, 0, 0);
    Make(b + "/ro/secret", 0600, 0, 0, "s");
    Make(b + "/ro/public", 0644, 0, 0, "p");
    Make(b + "/ro/group", 0640, 0, kGroup, "g");
    Make(b + "/ro/groupw", 0660, 0, kGroup, "g");
    Make(b + "/ro/exec", 0711, 0, 0, "#!/bin/sh\n");
    MakeDir(b + "/noexec", 0744, 0, 0);
    Make(b + "/noexec/inside", 0644, 0, 0, "i");
    MakeDir(b + "/mine", 0755, kUser, kGroup);
    auto probe = [b](Observations& u) {
      u.Call("create in root's dir",
             Opened(open((b + "/ro/new").c_str(), O_CREAT | O_WRONLY, 0644)));
      u.Call("mkdir in root's dir", mkdir((b + "/ro/newdir").c_str(), 0755));
      u.Call("read 0600 of root", Opened(open((b + "/ro/secret").c_str(), O_RDONLY)));
      u.Call("read 0644", Opened(open((b + "/ro/public").c_str(), O_RDONLY)));
      u.Call("write 0644 of root", Opened(open((b + "/ro/public").c_str(), O_WRONLY)));
      u.Call("read 0640 group", Opened(open((b + "/ro/group").c_str(), O_RDONLY)));
      u.Call("write 0660 group", Opened(open((b + "/ro/groupw").c_str(), O_WRONLY)));
      u.Call("access X_OK 0711", access((b + "/ro/exec").c_str(), X_OK));
      u.Call("access R_OK 0711", access((b + "/ro/exec").c_str(), R_OK));
      u.Call("access W_OK 0644", access((b + "/ro/public").c_str(), W_OK));
      u.Call("traverse dir without x", access((b + "/noexec/inside").c_str(), F_OK));
      u.Call("list dir without x", Opened(open((b + "/noexec").c_str(), O_RDONLY | O_DIRECTORY)));
      u.Call("unlink in root's dir", unlink((b + "/ro/public").c_str()));
      u.Call("rename into root's dir", rename((b + "/mine").c_str(), (b + "/ro/mine").c_str()));
      u.Call("create in own dir", Opened(open((b + "/mine/f").c_str(), O_CREAT | O_WRONLY, 0600)));
      u.Call("chmod own file", chmod((b + "/mine/f").c_str(), 0640));
      u.Call("chmod root's file", chmod((b + "/ro/public").c_str(), 0666));
      u.Call("chown own file to other user", chown((b + "/mine/f").c_str(), kOther, -1));
      u.Call("chgrp own file to a group not held", chown((b + "/mine/f").c_str(), -1, 0));
      u.Call("chgrp own file to own group", chown((b + "/mine/f").c_str(), -1, kGroup));
      u.Call("chown -1 -1 of root's file", chown((b + "/ro/public").c_str(), -1, -1));
      u.Call("mknod char device", mknod((b + "/mine/dev").c_str(), S_IFCHR | 0600, makedev(1, 3)));
      u.Call("mkfifo", mkfifo((b + "/mine/fifo").c_str(), 0600));
      u.Call("link to root's 0600 file (protected_hardlinks)",
             link((b + "/ro/secret").c_str(), (b + "/mine/l").c_str()));
      u.Call("rmdir in root's dir", rmdir((b + "/noexec").c_str()));
    };
    o.Merge(AsUser(kUser, kGroup, probe), "member: ");
    o.Merge(AsUser(kOther, kOtherGroup, probe), "other: ");
  });
  EXPECT_EQ(o.Get("member: create in root's dir"), "EACCES");
  EXPECT_EQ(o.Get("member: read 0600 of root"), "EACCES");
  EXPECT_EQ(o.Get("member: read 0640 group"), "ok");
  EXPECT_EQ(o.Get("other: read 0640 group"), "EACCES");
  EXPECT_EQ(o.Get("member: chmod root's file"), "EPERM");
  EXPECT_EQ(o.Get("member: chown own file to other user"), "EPERM");
  EXPECT_EQ(o.Get("member: mknod char device"), "EPERM");
  EXPECT_EQ(o.Get("member: traverse dir without x"), "EACCES");
}

TEST_F(PosixPermTest, StickyDirectories) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    MakeDir(b + "/tmp", 01777, 0, 0);
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("create own",
                            Opened(open((b + "/tmp/a").c_str(), O_CREAT | O_WRONLY, 0666)));
                     u.Call("mkdir own", mkdir((b + "/tmp/ad").c_str(), 0777));
                     chmod((b + "/tmp/a").c_str(), 0666);
                   }),
            "owner: ");
    o.Merge(AsUser(kOther, kOtherGroup,
                   [b](Observations& u) {
                     u.Call("write another's 0666 file",
                            Opened(open((b + "/tmp/a").c_str(), O_WRONLY)));
                     u.Call("unlink another's file", unlink((b + "/tmp/a").c_str()));
                     u.Call("rename another's file",
                            rename((b + "/tmp/a").c_str(), (b + "/tmp/b").c_str()));
                     u.Call("rmdir another's dir", rmdir((b + "/tmp/ad").c_str()));
                     u.Call("create own",
                            Opened(open((b + "/tmp/c").c_str(), O_CREAT | O_WRONLY, 0600)));
                     u.Call("rename own over another's",
                            rename((b + "/tmp/c").c_str(), (b + "/tmp/a").c_str()));
                     u.Call("unlink own", unlink((b + "/tmp/c").c_str()));
                   }),
            "other: ");
    o.Call("root unlinks anyone's", unlink((b + "/tmp/a").c_str()));
  });
  EXPECT_EQ(o.Get("other: unlink another's file"), "EPERM");
  EXPECT_EQ(o.Get("other: rename another's file"), "EPERM");
  EXPECT_EQ(o.Get("other: rmdir another's dir"), "EPERM");
  EXPECT_EQ(o.Get("other: unlink own"), "ok");
}

TEST_F(PosixPermTest, SetgidDirectoriesPassTheirGroup) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    MakeDir(b + "/shared", 02777, 0, kGroup);
    o.Value("mode of setgid dir", ModeOf(b + "/shared"));
    WriteFile(b + "/shared/by-root", "r");
    o.Value("root's file gid", GidOf(b + "/shared/by-root"));
    mkdir((b + "/shared/sub").c_str(), 0755);
    o.Value("subdir gid", GidOf(b + "/shared/sub"));
    o.Value("subdir mode (setgid inherited)", ModeOf(b + "/shared/sub"));
    symlink("x", (b + "/shared/link").c_str());
    o.Value("symlink gid", GidOf(b + "/shared/link"));
    mkfifo((b + "/shared/fifo").c_str(), 0644);
    o.Value("fifo gid", GidOf(b + "/shared/fifo"));
    o.Merge(AsUser(kOther, kOtherGroup,
                   [b](Observations& u) {
                     u.Call("create by a non-member",
                            Opened(open((b + "/shared/other").c_str(), O_CREAT | O_WRONLY, 02755)));
                     u.Value("non-member's file gid", GidOf(b + "/shared/other"));
                     u.Value("non-member's setgid request dropped", ModeOf(b + "/shared/other"));
                     u.Call("mkdir by a non-member", mkdir((b + "/shared/otherdir").c_str(), 0755));
                     u.Value("non-member's dir mode", ModeOf(b + "/shared/otherdir"));
                     u.Call("chmod g+s of own file, group not held",
                            chmod((b + "/shared/other").c_str(), 02755));
                     u.Value("mode after chmod g+s", ModeOf(b + "/shared/other"));
                   }),
            "user: ");
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("create by a member", Opened(open((b + "/shared/member").c_str(),
                                                              O_CREAT | O_WRONLY, 02755)));
                     u.Value("member's file mode", ModeOf(b + "/shared/member"));
                   }),
            "member: ");
  });
  EXPECT_EQ(o.Get("root's file gid"), std::to_string(kGroup));
  EXPECT_EQ(o.Get("subdir mode (setgid inherited)"), std::to_string(02755));
  EXPECT_EQ(o.Get("user: non-member's file gid"), std::to_string(kGroup));
  EXPECT_EQ(o.Get("user: non-member's setgid request dropped"), std::to_string(0755));
}

TEST_F(PosixPermTest, SetuidAndSetgidBitsAreClearedLikeExt4) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    MakeDir(b + "/d", 0777, 0, 0);
    for (const char* name : {"w", "t", "o", "c", "g", "nogx", "root", "dw", "droot"}) {
      Make(b + "/d/" + name, 06777, kUser, kGroup, "0123456789");
    }
    Make(b + "/d/nogx", 06767, kUser, kGroup, "0123456789");
    Make(b + "/d/nogx-t", 02767, kUser, kGroup, "0123456789");
    Make(b + "/d/nogx-c", 02767, kUser, 0, "0123456789");
    Make(b + "/d/nogx-m", 02767, kUser, kGroup, "0123456789");
    o.Merge(AsUser(kOther, kOtherGroup,
                   [b](Observations& u) {
                     int fd = open((b + "/d/w").c_str(), O_WRONLY);
                     u.Count("write by another user", write(fd, "x", 1));
                     close(fd);
                     u.Value("mode after write", ModeOf(b + "/d/w"));
                     u.Call("truncate by another user (write permission)",
                            truncate((b + "/d/t").c_str(), 3));
                     u.Value("mode after truncate", ModeOf(b + "/d/t"));
                     u.Call("O_TRUNC by another user",
                            Opened(open((b + "/d/o").c_str(), O_WRONLY | O_TRUNC)));
                     u.Value("mode after O_TRUNC", ModeOf(b + "/d/o"));
                     fd = open((b + "/d/nogx").c_str(), O_WRONLY);
                     u.Count("write to setgid without group exec", write(fd, "x", 1));
                     close(fd);
                     u.Value("mode of setgid without group exec", ModeOf(b + "/d/nogx"));
                     u.Call("truncate setgid without group exec",
                            truncate((b + "/d/nogx-t").c_str(), 1));
                     u.Value("mode after that truncate", ModeOf(b + "/d/nogx-t"));
                     u.Call("utimes NULL with write permission",
                            utimensat(AT_FDCWD, (b + "/d/w").c_str(), nullptr, 0));
                     timespec ts[2] = {{1, 0}, {2, 0}};
                     u.Call("explicit utimes of another's file",
                            utimensat(AT_FDCWD, (b + "/d/w").c_str(), ts, 0));
                     // Past the page cache: the kernel marks the WRITE itself.
                     u.Count("O_DIRECT write by another user", DirectWrite(b + "/d/dw"));
                     u.Value("mode after O_DIRECT write", ModeOf(b + "/d/dw"));
                   }),
            "other: ");
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     u.Call("owner chgrp to own group", chown((b + "/d/c").c_str(), -1, kGroup));
                     u.Value("mode after owner chgrp", ModeOf(b + "/d/c"));
                     int fd = open((b + "/d/g").c_str(), O_WRONLY);
                     u.Count("write by the owner", write(fd, "x", 1));
                     close(fd);
                     u.Value("mode after owner's write", ModeOf(b + "/d/g"));
                     u.Call("owner chgrp from a group not held",
                            chown((b + "/d/nogx-c").c_str(), -1, kGroup));
                     u.Value("mode after that chgrp", ModeOf(b + "/d/nogx-c"));
                     fd = open((b + "/d/nogx-m").c_str(), O_WRONLY);
                     u.Count("member writes setgid without group exec", write(fd, "x", 1));
                     close(fd);
                     u.Value("mode after member's write", ModeOf(b + "/d/nogx-m"));
                   }),
            "owner: ");
    int fd = open((b + "/d/root").c_str(), O_WRONLY);
    o.Count("write by root", write(fd, "x", 1));
    close(fd);
    o.Value("mode after root's write", ModeOf(b + "/d/root"));
    o.Count("O_DIRECT write by root", DirectWrite(b + "/d/droot"));
    o.Value("mode after root's O_DIRECT write", ModeOf(b + "/d/droot"));
    o.Call("chown by root", chown((b + "/d/root").c_str(), kOther, -1));
    o.Value("mode after root's chown", ModeOf(b + "/d/root"));
  });
  EXPECT_EQ(o.Get("other: mode after write"), std::to_string(0777));
  EXPECT_EQ(o.Get("other: mode after truncate"), std::to_string(0777));
  EXPECT_EQ(o.Get("other: mode after O_TRUNC"), std::to_string(0777));
  EXPECT_EQ(o.Get("other: explicit utimes of another's file"), "EPERM");
  EXPECT_EQ(o.Get("other: mode of setgid without group exec"), std::to_string(0767));
  EXPECT_EQ(o.Get("other: mode after that truncate"), std::to_string(0767));
  EXPECT_EQ(o.Get("owner: mode after that chgrp"), std::to_string(0767));
  EXPECT_EQ(o.Get("owner: mode after member's write"), std::to_string(02767));
  EXPECT_EQ(o.Get("mode after root's write"), std::to_string(06777));
  EXPECT_EQ(o.Get("other: mode after O_DIRECT write"), std::to_string(0777));
  EXPECT_EQ(o.Get("mode after root's O_DIRECT write"), std::to_string(06777));
  EXPECT_EQ(o.Get("mode after root's chown"), std::to_string(0777));
}

TEST_F(PosixPermTest, ExtendedAttributeNamespaces) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    Make(b + "/f", 0644, 0, 0, "x");
    Make(b + "/own", 0644, kUser, kGroup, "x");
    setxattr((b + "/f").c_str(), "user.u", "1", 1, 0);
    setxattr((b + "/f").c_str(), "trusted.t", "2", 1, 0);
    setxattr((b + "/f").c_str(), "security.s", "3", 1, 0);
    o.Merge(AsUser(kUser, kGroup,
                   [b](Observations& u) {
                     char buf[64];
                     u.Count("get user.* readable file",
                             getxattr((b + "/f").c_str(), "user.u", buf, sizeof buf));
                     u.Call("set user.* without write permission",
                            setxattr((b + "/f").c_str(), "user.x", "1", 1, 0));
                     u.Call("set user.* on own file",
                            setxattr((b + "/own").c_str(), "user.x", "1", 1, 0));
                     u.Call("get trusted.*",
                            getxattr((b + "/f").c_str(), "trusted.t", buf, sizeof buf));
                     u.Call("set trusted.* on own file",
                            setxattr((b + "/own").c_str(), "trusted.x", "1", 1, 0));
                     u.Count("get security.*",
                             getxattr((b + "/f").c_str(), "security.s", buf, sizeof buf));
                     u.Call("set security.* on own file",
                            setxattr((b + "/own").c_str(), "security.x", "1", 1, 0));
                     u.Call("remove user.* without write permission",
                            removexattr((b + "/f").c_str(), "user.u"));
                     char list[256];
                     ssize_t n = listxattr((b + "/f").c_str(), list, sizeof list);
                     std::set<std::string> sorted;  // the order of the list is not specified
                     for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(strlen(list + i)) + 1) {
                       sorted.insert(list + i);
                     }
                     std::string names;
                     for (const std::string& name : sorted) names += name + " ";
                     u.Text("names listed to a user", names);
                   }),
            "user: ");
  });
  EXPECT_EQ(o.Get("user: set user.* without write permission"), "EACCES");
  EXPECT_EQ(o.Get("user: get trusted.*"), "ENODATA");
  EXPECT_EQ(o.Get("user: set trusted.* on own file"), "EPERM");
  EXPECT_EQ(o.Get("user: names listed to a user"), "security.s user.u ");
}

}  // namespace
}  // namespace tierfs::testing

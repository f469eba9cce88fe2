// Namespace operations answer exactly as on ext4: errors, link counts, rename
// flags, file types and what stat(2) shows, and the kernel's cached view after
// every change. Each check runs on a plain ext4 directory and on the mount.
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <set>
#include <string>

#include "tests/integration/posix_compare.h"

namespace tierfs::testing {
namespace {

class PosixNamespaceTest : public PosixFixture {};

void Touch(const std::string& path, const std::string& data = "") { WriteFile(path, data); }

long Nlink(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_nlink) : -1;
}

ino_t Ino(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST_F(PosixNamespaceTest, ErrnosOfNamespaceOperations) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string d = b + "/d", f = b + "/f";
    o.Call("mkdir d", mkdir(d.c_str(), 0755));
    o.Call("mkdir d again", mkdir(d.c_str(), 0755));
    Touch(f, "data");
    o.Call("mkdir over file", mkdir(f.c_str(), 0755));
    o.Call("open below a file", Opened(open((f + "/x").c_str(), O_RDONLY)));
    o.Call("mkdir below a file", mkdir((f + "/x").c_str(), 0755));
    o.Call("open file with trailing slash", Opened(open((f + "/").c_str(), O_RDONLY)));
    o.Call("stat missing", access((b + "/missing").c_str(), F_OK));
    o.Call("stat below missing", access((b + "/missing/x").c_str(), F_OK));
    o.Call("create 255-byte name",
           Opened(open((b + "/" + std::string(255, 'n')).c_str(), O_CREAT | O_WRONLY, 0644)));
    o.Call("create 256-byte name",
           Opened(open((b + "/" + std::string(256, 'n')).c_str(), O_CREAT | O_WRONLY, 0644)));
    o.Call("stat 256-byte name", access((b + "/" + std::string(256, 'm')).c_str(), F_OK));
    o.Call("mkdir 256-byte name", mkdir((b + "/" + std::string(256, 'm')).c_str(), 0755));
    o.Call("unlink a directory", unlink(d.c_str()));
    o.Call("rmdir a file", rmdir(f.c_str()));
    Touch(d + "/x");
    o.Call("rmdir non-empty", rmdir(d.c_str()));
    o.Call("rmdir d/.", rmdir((d + "/.").c_str()));
    o.Call("rmdir d/..", rmdir((d + "/..").c_str()));
    o.Call("rmdir file with slash", rmdir((d + "/x/").c_str()));
    o.Call("rename dir into itself", rename(d.c_str(), (d + "/sub").c_str()));
    o.Call("rename file over dir", rename(f.c_str(), d.c_str()));
    o.Call("rename dir over file", rename(d.c_str(), f.c_str()));
    o.Call("mkdir e", mkdir((b + "/e").c_str(), 0755));
    o.Call("rename dir over non-empty dir", rename((b + "/e").c_str(), d.c_str()));
    o.Call("rename missing", rename((b + "/missing").c_str(), (b + "/m2").c_str()));
    o.Call("rename into missing dir", rename(f.c_str(), (b + "/missing/f").c_str()));
    o.Call("link a directory", link(d.c_str(), (b + "/dlink").c_str()));
    o.Call("link over existing", link(f.c_str(), (d + "/x").c_str()));
    o.Call("link missing", link((b + "/missing").c_str(), (b + "/l").c_str()));
    o.Call("symlink over existing", symlink("target", f.c_str()));
    o.Call("create O_EXCL existing", Opened(open(f.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644)));
    o.Call("open dir for writing", Opened(open(d.c_str(), O_WRONLY)));
    o.Call("open file O_DIRECTORY", Opened(open(f.c_str(), O_RDONLY | O_DIRECTORY)));
    o.Call("unlink missing", unlink((b + "/missing").c_str()));
    o.Call("rmdir missing", rmdir((b + "/missing").c_str()));
    o.Call("truncate a directory", truncate(d.c_str(), 0));
    char buf[64];
    o.Call("readlink a file", readlink(f.c_str(), buf, sizeof buf));
    o.Call("mkdir with trailing slash", mkdir((b + "/t/").c_str(), 0755));
    // Symlink loops: ELOOP from path resolution, O_NOFOLLOW on a link.
    o.Call("symlink loop1", symlink("loop2", (b + "/loop1").c_str()));
    o.Call("symlink loop2", symlink("loop1", (b + "/loop2").c_str()));
    o.Call("symlink self", symlink("self", (b + "/self").c_str()));
    o.Call("open loop", Opened(open((b + "/loop1").c_str(), O_RDONLY)));
    o.Call("stat self loop", access((b + "/self").c_str(), F_OK));
    o.Call("create through loop", Opened(open((b + "/loop1").c_str(), O_CREAT | O_WRONLY, 0644)));
    o.Call("lstat loop", [&] {
      struct stat st;
      return lstat((b + "/loop1").c_str(), &st);
    }());
    o.Call("symlink to f", symlink("f", (b + "/lf").c_str()));
    o.Call("open O_NOFOLLOW of a link", Opened(open((b + "/lf").c_str(), O_RDONLY | O_NOFOLLOW)));
    o.Call("dangling symlink", symlink("nowhere", (b + "/dangling").c_str()));
    o.Call("create O_EXCL through dangling link",
           Opened(open((b + "/dangling").c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644)));
    o.Call("symlink with empty target", symlink("", (b + "/empty").c_str()));
    // Within one mount, rename and link across directories never give EXDEV.
    o.Call("mkdir far", mkdir((b + "/far").c_str(), 0755));
    o.Call("mkdir far/deep", mkdir((b + "/far/deep").c_str(), 0755));
    o.Call("rename across directories", rename(f.c_str(), (b + "/far/deep/f").c_str()));
    o.Call("link across directories", link((b + "/far/deep/f").c_str(), (d + "/f2").c_str()));
    o.Call("rename dir across directories", rename((b + "/e").c_str(), (b + "/far/e").c_str()));
  });
  EXPECT_EQ(o.Get("mkdir d again"), "EEXIST");
  EXPECT_EQ(o.Get("open below a file"), "ENOTDIR");
  EXPECT_EQ(o.Get("create 256-byte name"), "ENAMETOOLONG");
  EXPECT_EQ(o.Get("rmdir non-empty"), "ENOTEMPTY");
  EXPECT_EQ(o.Get("rename dir into itself"), "EINVAL");
  EXPECT_EQ(o.Get("rename file over dir"), "EISDIR");
  EXPECT_EQ(o.Get("rename dir over file"), "ENOTDIR");
  EXPECT_EQ(o.Get("link a directory"), "EPERM");
  EXPECT_EQ(o.Get("open loop"), "ELOOP");
  EXPECT_EQ(o.Get("open O_NOFOLLOW of a link"), "ELOOP");
  EXPECT_EQ(o.Get("rename across directories"), "ok");
  EXPECT_EQ(o.Get("link across directories"), "ok");
}

TEST_F(PosixNamespaceTest, LinkCountsOfFilesAndDirectories) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string a = b + "/a", c = b + "/c";
    mkdir(a.c_str(), 0755);
    mkdir(c.c_str(), 0755);
    o.Value("base after two mkdirs", Nlink(b));
    o.Value("new dir", Nlink(a));
    mkdir((a + "/sub").c_str(), 0755);
    mkdir((a + "/sub2").c_str(), 0755);
    o.Value("a with two subdirs", Nlink(a));
    o.Call("move sub to c", rename((a + "/sub").c_str(), (c + "/sub").c_str()));
    o.Value("a after move", Nlink(a));
    o.Value("c after move", Nlink(c));
    o.Value("sub after move", Nlink(c + "/sub"));
    o.Call("replace empty dir c/sub with a/sub2",
           rename((a + "/sub2").c_str(), (c + "/sub").c_str()));
    o.Value("a after replace", Nlink(a));
    o.Value("c after replace", Nlink(c));
    o.Call("rmdir c/sub", rmdir((c + "/sub").c_str()));
    o.Value("c after rmdir", Nlink(c));

    const std::string f = b + "/f";
    Touch(f, "x");
    o.Value("file", Nlink(f));
    o.Call("link f a/g", link(f.c_str(), (a + "/g").c_str()));
    o.Value("f after link", Nlink(f));
    o.Value("a/g after link", Nlink(a + "/g"));
    o.Call("link f c/h", link(f.c_str(), (c + "/h").c_str()));
    o.Value("f after second link", Nlink(f));
    // Two names of one inode: rename succeeds and changes nothing.
    o.Call("rename onto own hard link", rename(f.c_str(), (a + "/g").c_str()));
    o.Flag("f still there", access(f.c_str(), F_OK) == 0);
    o.Value("a/g nlink", Nlink(a + "/g"));
    o.Call("unlink c/h", unlink((c + "/h").c_str()));
    o.Value("f after unlink of c/h", Nlink(f));
    // Renaming another file over one name drops the inode's count as seen by the rest.
    Touch(b + "/other", "o");
    o.Call("rename other over a/g", rename((b + "/other").c_str(), (a + "/g").c_str()));
    o.Value("f after its link was replaced", Nlink(f));
    o.Flag("same inode f vs a/g", Ino(f) == Ino(a + "/g"));
    // Exchange of a directory and a file in different parents moves one ".." link.
    mkdir((a + "/x").c_str(), 0755);
    Touch(c + "/y");
    o.Value("a before exchange", Nlink(a));
    o.Value("c before exchange", Nlink(c));
    o.Call("exchange a/x c/y",
           renameat2(AT_FDCWD, (a + "/x").c_str(), AT_FDCWD, (c + "/y").c_str(), RENAME_EXCHANGE));
    o.Value("a after exchange", Nlink(a));
    o.Value("c after exchange", Nlink(c));
    o.Flag("c/y is a directory now", [&] {
      struct stat st;
      return lstat((c + "/y").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    }());
  });
  EXPECT_EQ(o.Get("new dir"), "2");
  EXPECT_EQ(o.Get("a with two subdirs"), "4");
  EXPECT_EQ(o.Get("a after move"), "3");
  EXPECT_EQ(o.Get("c after move"), "3");
  EXPECT_EQ(o.Get("a after replace"), "2");
  EXPECT_EQ(o.Get("c after replace"), "3");
  EXPECT_EQ(o.Get("f after second link"), "3");
  EXPECT_EQ(o.Get("f still there"), "yes");
  EXPECT_EQ(o.Get("f after unlink of c/h"), "2");
  EXPECT_EQ(o.Get("f after its link was replaced"), "1");
  EXPECT_EQ(o.Get("a after exchange"), "2");
  EXPECT_EQ(o.Get("c after exchange"), "3");
}

TEST_F(PosixNamespaceTest, RenameNoreplaceAndExchange) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    Touch(b + "/a", "AAA");
    Touch(b + "/b", "B");
    mkdir((b + "/d").c_str(), 0755);
    mkdir((b + "/d/inner").c_str(), 0755);
    auto rn2 = [&](const std::string& from, const std::string& to, unsigned flags) {
      return renameat2(AT_FDCWD, (b + "/" + from).c_str(), AT_FDCWD, (b + "/" + to).c_str(), flags);
    };
    o.Call("noreplace onto existing", rn2("a", "b", RENAME_NOREPLACE));
    o.Call("noreplace onto itself", rn2("a", "a", RENAME_NOREPLACE));
    o.Call("noreplace to a new name", rn2("a", "a2", RENAME_NOREPLACE));
    o.Call("exchange with missing", rn2("a2", "missing", RENAME_EXCHANGE));
    o.Call("both flags", rn2("a2", "b", RENAME_EXCHANGE | RENAME_NOREPLACE));
    o.Call("unknown flag", rn2("a2", "b", 1u << 7));
    const ino_t ia = Ino(b + "/a2"), ib = Ino(b + "/b");
    o.Call("exchange two files", rn2("a2", "b", RENAME_EXCHANGE));
    o.Text("a2 now holds", ReadFile(b + "/a2"));
    o.Text("b now holds", ReadFile(b + "/b"));
    o.Flag("inodes swapped", Ino(b + "/a2") == ib && Ino(b + "/b") == ia);
    o.Call("exchange file and dir", rn2("b", "d", RENAME_EXCHANGE));
    o.Flag("b is the directory", access((b + "/b/inner").c_str(), F_OK) == 0);
    o.Text("d holds", ReadFile(b + "/d"));
    o.Call("exchange dir with its own child", rn2("b", "b/inner", RENAME_EXCHANGE));
    o.Call("exchange child with its parent", rn2("b/inner", "b", RENAME_EXCHANGE));
  });
  EXPECT_EQ(o.Get("noreplace onto existing"), "EEXIST");
  EXPECT_EQ(o.Get("exchange with missing"), "ENOENT");
  EXPECT_EQ(o.Get("both flags"), "EINVAL");
  EXPECT_EQ(o.Get("a2 now holds"), "B");
  EXPECT_EQ(o.Get("inodes swapped"), "yes");
}

TEST_F(PosixNamespaceTest, StatOfEveryFileType) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    auto record = [&](const std::string& label, const std::string& path) {
      struct stat st;
      if (lstat(path.c_str(), &st) != 0) {
        o.Text(label.c_str(), ErrnoName(errno));
        return;
      }
      o.Value((label + " type").c_str(), st.st_mode & S_IFMT);
      o.Value((label + " perms").c_str(), st.st_mode & 07777);
      o.Value((label + " size").c_str(), st.st_size);
      o.Value((label + " blocks").c_str(), st.st_blocks);
      o.Value((label + " nlink").c_str(), st.st_nlink);
      o.Value((label + " rdev").c_str(), st.st_rdev);
      o.Value((label + " blksize").c_str(), st.st_blksize);
      o.Value((label + " uid").c_str(), st.st_uid);
    };
    const mode_t old = umask(022);
    Touch(b + "/empty");
    record("empty file", b + "/empty");
    Touch(b + "/one", "1");
    record("1-byte file", b + "/one");
    Touch(b + "/five", std::string(5000, 'x'));
    record("5000-byte file", b + "/five");
    mkdir((b + "/dir").c_str(), 0777);
    record("directory", b + "/dir");
    mkdir((b + "/sticky").c_str(), 01777);
    record("sticky directory", b + "/sticky");
    symlink("short", (b + "/short").c_str());
    record("short symlink", b + "/short");
    symlink(std::string(100, 'l').c_str(), (b + "/long").c_str());
    record("long symlink", b + "/long");
    o.Call("mkfifo", mkfifo((b + "/fifo").c_str(), 0640));
    record("fifo", b + "/fifo");
    o.Call("mknod socket", mknod((b + "/sock").c_str(), S_IFSOCK | 0600, 0));
    record("socket", b + "/sock");
    o.Call("mknod char device", mknod((b + "/null").c_str(), S_IFCHR | 0666, makedev(1, 3)));
    record("char device", b + "/null");
    o.Call("mknod block device", mknod((b + "/loop").c_str(), S_IFBLK | 0660, makedev(7, 200)));
    record("block device", b + "/loop");
    o.Call("mknod regular", mknod((b + "/reg").c_str(), S_IFREG | 0600, 0));
    record("mknod regular", b + "/reg");
    o.Call("mknod no type", mknod((b + "/reg0").c_str(), 0600, 0));
    record("mknod no type", b + "/reg0");
    o.Call("mknod bad type", mknod((b + "/bad").c_str(), 0170000 | 0600, 0));
    o.Call("open fifo nonblocking for read", [&] {
      int fd = open((b + "/fifo").c_str(), O_RDONLY | O_NONBLOCK);
      if (fd >= 0) close(fd);
      return fd;
    }());
    // A UNIX socket bound at a path inside the file system.
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock_path = b + "/bound";
    if (sock_path.size() < sizeof addr.sun_path) {
      std::strcpy(addr.sun_path, sock_path.c_str());
      o.Call("bind unix socket", bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr));
      record("bound socket", sock_path);
    }
    close(s);
    umask(old);
  });
  EXPECT_EQ(o.Get("directory size"), "4096");
  EXPECT_EQ(o.Get("directory blocks"), "8");
  EXPECT_EQ(o.Get("short symlink size"), "5");
  EXPECT_EQ(o.Get("char device rdev"), std::to_string(makedev(1, 3)));
  EXPECT_EQ(o.Get("1-byte file blocks"), "8");
  EXPECT_EQ(o.Get("sticky directory perms"), std::to_string(01755));
}

TEST_F(PosixNamespaceTest, KernelCacheStaysTrueAfterEveryChange) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f", g = b + "/g";
    Touch(f, "12345");
    // Prime the kernel's caches: entry and attributes of f, negative entry of g.
    o.Value("f nlink", Nlink(f));
    o.Flag("g absent", access(g.c_str(), F_OK) != 0);
    o.Call("link f g", link(f.c_str(), g.c_str()));
    o.Value("f nlink after link", Nlink(f));
    o.Value("g nlink after link", Nlink(g));
    o.Call("chmod through g", chmod(g.c_str(), 0600));
    struct stat st;
    lstat(f.c_str(), &st);
    o.Value("f perms after chmod of g", st.st_mode & 07777);
    o.Call("unlink g", unlink(g.c_str()));
    o.Value("f nlink after unlink of g", Nlink(f));
    o.Flag("g gone", access(g.c_str(), F_OK) != 0);
    o.Call("rename f g", rename(f.c_str(), g.c_str()));
    o.Flag("f gone after rename", access(f.c_str(), F_OK) != 0);
    o.Text("g holds", ReadFile(g));
    o.Call("recreate f", Opened(open(f.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644)) >= 0 ? 0 : -1);
    o.Flag("f and g differ", Ino(f) != Ino(g));
    mkdir((b + "/d").c_str(), 0755);
    o.Value("d nlink", Nlink(b + "/d"));
    o.Value("base nlink", Nlink(b));
    o.Call("rmdir d", rmdir((b + "/d").c_str()));
    o.Flag("d gone", access((b + "/d").c_str(), F_OK) != 0);
    o.Value("base nlink after rmdir", Nlink(b));
    o.Call("truncate g", truncate(g.c_str(), 2));
    lstat(g.c_str(), &st);
    o.Value("g size after truncate", st.st_size);
    o.Text("g holds after truncate", ReadFile(g));
    // Overwrite a cached file with O_TRUNC: no stale tail may survive.
    WriteFile(g, "9");
    o.Text("g holds after rewrite", ReadFile(g));
    lstat(g.c_str(), &st);
    o.Value("g size after rewrite", st.st_size);
  });
  EXPECT_EQ(o.Get("f nlink after unlink of g"), "1");
  EXPECT_EQ(o.Get("g holds after rewrite"), "9");
}

TEST_F(PosixNamespaceTest, ReaddirReportsInodesTypesAndParent) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    mkdir((b + "/d").c_str(), 0755);
    Touch(b + "/d/file");
    mkdir((b + "/d/sub").c_str(), 0755);
    symlink("file", (b + "/d/link").c_str());
    mkfifo((b + "/d/fifo").c_str(), 0644);
    DIR* dir = opendir((b + "/d").c_str());
    std::map<std::string, std::pair<ino_t, unsigned>> seen;
    while (dirent* e = readdir(dir)) seen[e->d_name] = {e->d_ino, e->d_type};
    closedir(dir);
    for (const auto& [name, v] : seen) {
      o.Value(("type of " + name).c_str(), v.second);
      o.Flag(("d_ino of " + name + " matches stat").c_str(),
             v.first == Ino(b + "/d/" + (name == ".." ? std::string("..") : name)));
    }
    o.Flag(".. is the parent", seen[".."].first == Ino(b));
    o.Value("entries", static_cast<long long>(seen.size()));
  });
  EXPECT_EQ(o.Get(".. is the parent"), "yes");
  EXPECT_EQ(o.Get("entries"), "6");
}

// Entries that exist throughout a listing are returned exactly once while others
// are created and removed around the reader's position; telldir/seekdir resume at
// the same entry. ext4 orders by hash, so this checks properties, not order.
TEST_F(PosixNamespaceTest, ReaddirOffsetsStayStableWhileEntriesComeAndGo) {
  for (const std::string& base : {plain_, mnt_}) {
    SCOPED_TRACE(base);
    const std::string d = base + "/list";
    ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
    std::set<std::string> stable;
    for (int i = 0; i < 300; ++i) {
      std::string name = "keep" + std::to_string(i);
      Touch(d + "/" + name);
      stable.insert(name);
      Touch(d + "/drop" + std::to_string(i));
    }
    DIR* dir = opendir(d.c_str());
    ASSERT_NE(dir, nullptr);
    std::multiset<std::string> got;
    long resume_at = -1;
    std::string resume_name;
    for (int i = 0; i < 150; ++i) {
      if (i == 100) resume_at = telldir(dir);
      dirent* e = readdir(dir);
      ASSERT_NE(e, nullptr);
      if (i == 100) resume_name = e->d_name;
      got.insert(e->d_name);
    }
    for (int i = 0; i < 300; ++i) {
      unlink((d + "/drop" + std::to_string(i)).c_str());
      Touch(d + "/new" + std::to_string(i));
    }
    while (dirent* e = readdir(dir)) got.insert(e->d_name);
    for (const std::string& name : stable) EXPECT_EQ(got.count(name), 1u) << name;
    for (const std::string& name : got) EXPECT_EQ(got.count(name), 1u) << name << " twice";
    seekdir(dir, resume_at);
    dirent* e = readdir(dir);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(resume_name, e->d_name);
    closedir(dir);
  }
}

TEST_F(PosixNamespaceTest, ExtendedAttributes) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/f", d = b + "/d", l = b + "/l";
    Touch(f);
    mkdir(d.c_str(), 0755);
    symlink("f", l.c_str());
    char buf[256];
    o.Call("set user.a", setxattr(f.c_str(), "user.a", "alpha", 5, 0));
    o.Count("get user.a", getxattr(f.c_str(), "user.a", buf, sizeof buf));
    o.Text("user.a value", std::string(buf, 5));
    o.Count("size of user.a", getxattr(f.c_str(), "user.a", nullptr, 0));
    o.Count("get user.a small buffer", getxattr(f.c_str(), "user.a", buf, 2));
    o.Call("create existing", setxattr(f.c_str(), "user.a", "x", 1, XATTR_CREATE));
    o.Call("replace missing", setxattr(f.c_str(), "user.b", "x", 1, XATTR_REPLACE));
    o.Call("replace existing", setxattr(f.c_str(), "user.a", "beta", 4, XATTR_REPLACE));
    o.Count("get replaced", getxattr(f.c_str(), "user.a", buf, sizeof buf));
    o.Call("both flags", setxattr(f.c_str(), "user.a", "x", 1, XATTR_CREATE | XATTR_REPLACE));
    o.Call("empty value", setxattr(f.c_str(), "user.empty", "", 0, 0));
    o.Count("get empty value", getxattr(f.c_str(), "user.empty", buf, sizeof buf));
    const std::string binary("\0\1\2\377", 4);
    o.Call("binary value", setxattr(f.c_str(), "user.bin", binary.data(), binary.size(), 0));
    o.Count("get binary", getxattr(f.c_str(), "user.bin", buf, sizeof buf));
    o.Flag("binary intact", std::string(buf, 4) == binary);
    o.Call("trusted as root", setxattr(f.c_str(), "trusted.t", "t", 1, 0));
    o.Call("security", setxattr(f.c_str(), "security.s", "s", 1, 0));
    o.Call("unknown namespace", setxattr(f.c_str(), "other.x", "x", 1, 0));
    o.Call("no namespace", setxattr(f.c_str(), "plain", "x", 1, 0));
    o.Call("get unknown namespace", getxattr(f.c_str(), "other.x", buf, sizeof buf));
    o.Call("get missing", getxattr(f.c_str(), "user.missing", buf, sizeof buf));
    o.Call("name of 256 bytes",
           setxattr(f.c_str(), ("user." + std::string(251, 'n')).c_str(), "x", 1, 0));
    o.Call("user.* on a directory", setxattr(d.c_str(), "user.dir", "d", 1, 0));
    o.Call("user.* on a symlink", lsetxattr(l.c_str(), "user.link", "l", 1, 0));
    o.Call("trusted.* on a symlink", lsetxattr(l.c_str(), "trusted.link", "l", 1, 0));
    o.Call("user.* through a symlink", setxattr(l.c_str(), "user.via", "v", 1, 0));
    char list[1024];
    ssize_t n = listxattr(f.c_str(), list, sizeof list);
    std::set<std::string> names;
    for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(strlen(list + i)) + 1)
      names.insert(list + i);
    std::string joined;
    for (const std::string& name : names) joined += name + " ";
    o.Text("list", joined);
    o.Count("list size query", listxattr(f.c_str(), nullptr, 0));
    o.Count("list small buffer", listxattr(f.c_str(), list, 3));
    o.Call("remove user.a", removexattr(f.c_str(), "user.a"));
    o.Call("remove again", removexattr(f.c_str(), "user.a"));
    o.Call("get removed", getxattr(f.c_str(), "user.a", buf, sizeof buf));
    o.Call("large value",
           setxattr(f.c_str(), "user.large", std::string(2000, 'v').data(), 2000, 0));
    o.Count("get large", getxattr(f.c_str(), "user.large", nullptr, 0));
  });
  EXPECT_EQ(o.Get("create existing"), "EEXIST");
  EXPECT_EQ(o.Get("replace missing"), "ENODATA");
  EXPECT_EQ(o.Get("get user.a small buffer"), "ERANGE");
  EXPECT_EQ(o.Get("user.* on a symlink"), "EPERM");
  EXPECT_EQ(o.Get("remove again"), "ENODATA");
}

}  // namespace
}  // namespace tierfs::testing

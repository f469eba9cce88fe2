// Lifetimes: unlinked-but-open files work until the last close and their object
// goes away then, or at the next mount after a daemon crash; inode numbers survive
// remounts; lookup counts survive the kernel dropping its caches; locks conflict
// between processes; concurrent namespace changes leave consistent link counts.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "tests/integration/posix_compare.h"

namespace tierfs::testing {
namespace {

class PosixLifecycleTest : public PosixFixture {
 protected:
  // Whether any volume holds an object for inode `ino` (<ino>.<generation>).
  bool ObjectExists(ino_t ino) const {
    const std::string prefix = std::to_string(ino) + ".";
    for (const std::string& vol : {ssd_, hdd_}) {
      std::error_code ec;
      for (auto& e : std::filesystem::recursive_directory_iterator(vol + "/.tierfs/objects", ec)) {
        if (e.is_regular_file() && e.path().filename().string().rfind(prefix, 0) == 0) return true;
      }
    }
    return false;
  }
  // Waits (bounded) for the object of `ino` to be gone.
  bool ObjectGoneSoon(ino_t ino) const {
    for (int i = 0; i < 100; ++i) {
      if (!ObjectExists(ino)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  static void DropKernelCaches() {
    sync();
    std::ofstream("/proc/sys/vm/drop_caches") << "2\n";  // dentries and inodes
  }
};

TEST_F(PosixLifecycleTest, UnlinkedOpenFileWorksUntilLastClose) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/doomed";
    WriteFile(f, "0123456789");
    int fd = open(f.c_str(), O_RDWR);
    int fd2 = open(f.c_str(), O_RDONLY);
    o.Call("unlink while open", unlink(f.c_str()));
    o.Call("name is gone", access(f.c_str(), F_OK));
    struct stat st;
    fstat(fd, &st);
    o.Value("nlink of the open file", st.st_nlink);
    o.Count("write after unlink", pwrite(fd, "abc", 3, 10));
    o.Call("ftruncate after unlink", ftruncate(fd, 12));
    o.Call("fchmod after unlink", fchmod(fd, 0600));
    fstat(fd, &st);
    o.Value("size", st.st_size);
    o.Value("mode", st.st_mode & 07777);
    char buf[32] = {0};
    o.Count("read through the second fd", pread(fd2, buf, sizeof buf, 0));
    o.Text("contents", buf);
    o.Call("fsync after unlink", fsync(fd));
    o.Call("recreate the name", Opened(open(f.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644)));
    struct stat fresh;
    stat(f.c_str(), &fresh);
    o.Flag("new file is another inode", fresh.st_ino != st.st_ino);
    o.Value("new file size", fresh.st_size);
    close(fd);
    o.Count("read after the first close", pread(fd2, buf, 4, 0));
    close(fd2);
  });
  EXPECT_EQ(o.Get("nlink of the open file"), "0");
  EXPECT_EQ(o.Get("contents"), "0123456789ab");

  // The object goes away once the last descriptor is closed.
  const std::string f = Path("gone");
  WriteFile(f, RandomBytes(100000, 4));
  int fd = open(f.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_TRUE(ObjectExists(st.st_ino));
  ASSERT_EQ(unlink(f.c_str()), 0);
  EXPECT_TRUE(ObjectExists(st.st_ino)) << "reclaimed while still open";
  close(fd);
  EXPECT_TRUE(ObjectGoneSoon(st.st_ino)) << "object of an unlinked file survived its last close";
}

TEST_F(PosixLifecycleTest, CrashReclaimsUnlinkedOpenFilesAtNextMount) {
  const std::string keep_data = RandomBytes(50000, 5);
  WriteFileSynced(Path("keep"), keep_data);
  WriteFile(Path("doomed"), RandomBytes(70000, 6));
  int fd = open(Path("doomed").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  ASSERT_EQ(unlink(Path("doomed").c_str()), 0);
  ASSERT_TRUE(ObjectExists(st.st_ino));
  FsyncDir(mnt_);  // the creates and the unlink are durable now

  // kill -9 of the daemon this test mounted (its pid is in the daemon lock file).
  std::ifstream lock(ssd_ + "/.tierfs/daemon.lock");
  pid_t pid = 0;
  lock >> pid;
  ASSERT_GT(pid, 1);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  for (int i = 0; i < 200 && kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  close(fd);  // the connection is gone: no release reaches anyone
  EXPECT_TRUE(ObjectExists(st.st_ino)) << "nothing could have removed it yet";

  Unmount();  // detaches the dead mount
  Mount();
  EXPECT_FALSE(ObjectExists(st.st_ino)) << "the orphan's object survived the next mount";
  EXPECT_EQ(ReadFile(Path("keep")), keep_data);
  EXPECT_NE(access(Path("doomed").c_str(), F_OK), 0);
}

TEST_F(PosixLifecycleTest, InodeNumbersSurviveRemount) {
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
  WriteFile(Path("d/f"), "f");
  ASSERT_EQ(symlink("f", Path("d/l").c_str()), 0);
  ASSERT_EQ(mkfifo(Path("d/p").c_str(), 0644), 0);
  ASSERT_EQ(link(Path("d/f").c_str(), Path("h").c_str()), 0);
  std::map<std::string, ino_t> before;
  for (const char* name : {"d", "d/f", "d/l", "d/p", "h", ""}) {
    struct stat st;
    ASSERT_EQ(lstat(Path(name).c_str(), &st), 0) << name;
    before[name] = st.st_ino;
  }
  EXPECT_EQ(before[""], 1u);  // the root is FUSE_ROOT_ID
  Remount();
  for (const auto& [name, ino] : before) {
    struct stat st;
    ASSERT_EQ(lstat(Path(name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_ino, ino) << name;
  }
  DIR* dir = opendir(Path("d").c_str());
  ASSERT_NE(dir, nullptr);
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name == ".") {
      EXPECT_EQ(e->d_ino, before["d"]);
    } else if (name == "..") {
      EXPECT_EQ(e->d_ino, before[""]);
    } else if (name == "f") {
      EXPECT_EQ(e->d_ino, before["d/f"]);
    }
  }
  closedir(dir);
}

TEST_F(PosixLifecycleTest, LookupCountsSurviveCacheDrops) {
  // Many lookups and readdirplus entries, then the kernel forgets them all; every
  // name must still resolve to the same inode, and removals must reclaim.
  ASSERT_EQ(mkdir(Path("tree").c_str(), 0755), 0);
  std::map<std::string, ino_t> inos;
  for (int i = 0; i < 300; ++i) {
    const std::string name = "tree/f" + std::to_string(i);
    WriteFile(Path(name), std::to_string(i));
    struct stat st;
    ASSERT_EQ(stat(Path(name).c_str(), &st), 0);
    inos[name] = st.st_ino;
  }
  for (int round = 0; round < 3; ++round) {
    DIR* dir = opendir(Path("tree").c_str());
    ASSERT_NE(dir, nullptr);
    int n = 0;
    while (readdir(dir) != nullptr) n++;
    closedir(dir);
    EXPECT_EQ(n, 302);
    DropKernelCaches();
    for (const auto& [name, ino] : inos) {
      struct stat st;
      ASSERT_EQ(stat(Path(name).c_str(), &st), 0) << name;
      ASSERT_EQ(st.st_ino, ino) << name;
    }
  }
  int fd = open(Path("tree/f7").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(unlink(Path("tree/f7").c_str()), 0);
  DropKernelCaches();  // the open file keeps its inode; the others are forgotten
  char c;
  EXPECT_EQ(pread(fd, &c, 1, 0), 1);
  EXPECT_EQ(c, '7');
  close(fd);
  EXPECT_TRUE(ObjectGoneSoon(inos["tree/f7"]));
  for (int i = 0; i < 300; i += 2) ASSERT_EQ(unlink(Path("tree/f" + std::to_string(i)).c_str()), 0);
  DropKernelCaches();
  for (int i = 0; i < 300; i += 2) EXPECT_TRUE(ObjectGoneSoon(inos["tree/f" + std::to_string(i)]));
  EXPECT_EQ(ReadFile(Path("tree/f9")), "9");
}

TEST_F(PosixLifecycleTest, LocksConflictBetweenProcesses) {
  Observations o = Compare([](const std::string& b, Observations& o) {
    const std::string f = b + "/locked";
    WriteFile(f, std::string(1000, 'l'));
    int to_child[2], to_parent[2];
    ASSERT_EQ(pipe(to_child), 0);
    ASSERT_EQ(pipe(to_parent), 0);
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(f.c_str(), O_RDWR);
      struct flock fl {};
      fl.l_type = F_WRLCK;
      fl.l_whence = SEEK_SET;
      fl.l_start = 0;
      fl.l_len = 100;
      int ok = fcntl(fd, F_SETLK, &fl) == 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
      int fd2 = open(f.c_str(), O_RDWR);
      struct flock ofd {};
      ofd.l_type = F_WRLCK;
      ofd.l_whence = SEEK_SET;
      ofd.l_start = 500;
      ofd.l_len = 10;
      ok = ok && fcntl(fd2, F_OFD_SETLK, &ofd) == 0;
      char c = ok ? 'y' : 'n';
      (void)!write(to_parent[1], &c, 1);
      (void)!read(to_child[0], &c, 1);  // hold the locks until told
      _exit(0);
    }
    char c = 0;
    (void)!read(to_parent[0], &c, 1);
    o.Text("child took its locks", std::string(1, c));
    int fd = open(f.c_str(), O_RDWR);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 50;
    fl.l_len = 10;
    o.Call("conflicting fcntl lock", fcntl(fd, F_SETLK, &fl));
    struct flock probe = fl;
    o.Call("F_GETLK", fcntl(fd, F_GETLK, &probe));
    o.Flag("F_GETLK names the holder", probe.l_type == F_WRLCK && probe.l_pid == pid);
    fl.l_start = 200;
    o.Call("fcntl lock elsewhere", fcntl(fd, F_SETLK, &fl));
    o.Call("conflicting flock", flock(fd, LOCK_EX | LOCK_NB));
    o.Call("shared flock", flock(fd, LOCK_SH | LOCK_NB));
    struct flock ofd {};
    ofd.l_type = F_RDLCK;
    ofd.l_whence = SEEK_SET;
    ofd.l_start = 505;
    ofd.l_len = 1;
    o.Call("conflicting OFD lock", fcntl(fd, F_OFD_SETLK, &ofd));
    (void)!write(to_child[1], &c, 1);
    int status;
    waitpid(pid, &status, 0);
    fl.l_start = 50;
    o.Call("fcntl lock after the holder exited", fcntl(fd, F_SETLKW, &fl));
    o.Call("flock after the holder exited", flock(fd, LOCK_EX | LOCK_NB));
    o.Call("OFD lock after the holder exited", fcntl(fd, F_OFD_SETLK, &ofd));
    close(fd);
    for (int p : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) close(p);
  });
  EXPECT_EQ(o.Get("child took its locks"), "y");
  EXPECT_EQ(o.Get("conflicting fcntl lock"), "EAGAIN");
  EXPECT_EQ(o.Get("F_GETLK names the holder"), "yes");
  EXPECT_EQ(o.Get("conflicting flock"), "EAGAIN");  // EWOULDBLOCK is EAGAIN on Linux
  EXPECT_EQ(o.Get("conflicting OFD lock"), "EAGAIN");
}

// Several processes create, link, rename and unlink in one directory at once;
// afterwards every inode's st_nlink equals the names that point at it.
TEST_F(PosixLifecycleTest, ConcurrentNamespaceChangesKeepLinkCountsTrue) {
  ASSERT_EQ(mkdir(Path("busy").c_str(), 0755), 0);
  const std::string dir = Path("busy");
  constexpr int kWorkers = 4, kOps = 300;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWorkers; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      unsigned seed = 1234u + w;
      for (int i = 0; i < kOps; ++i) {
        auto name = [&] { return dir + "/n" + std::to_string(rand_r(&seed) % 40); };
        switch (rand_r(&seed) % 5) {
          case 0:
            close(open(name().c_str(), O_CREAT | O_WRONLY, 0644));
            break;
          case 1:
            link(name().c_str(), name().c_str());
            break;
          case 2:
            rename(name().c_str(), name().c_str());
            break;
          case 3:
            unlink(name().c_str());
            break;
          case 4: {
            struct stat st;
            stat(name().c_str(), &st);
            break;
          }
        }
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  std::map<ino_t, int> names;
  std::map<ino_t, nlink_t> nlinks;
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    ASSERT_EQ(lstat((dir + "/" + name).c_str(), &st), 0) << name;
    names[st.st_ino]++;
    nlinks[st.st_ino] = st.st_nlink;
  }
  closedir(d);
  for (const auto& [ino, count] : names) EXPECT_EQ(nlinks[ino], static_cast<nlink_t>(count)) << ino;
  // The daemon's view after a remount (the database) agrees with what it served.
  Remount();
  d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  std::map<ino_t, int> names_after;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    ASSERT_EQ(lstat((dir + "/" + name).c_str(), &st), 0) << name;
    names_after[st.st_ino]++;
    EXPECT_EQ(st.st_nlink, nlinks[st.st_ino]) << name;
  }
  closedir(d);
  EXPECT_EQ(names_after, names);
}

}  // namespace
}  // namespace tierfs::testing

// PosixFixture: checks that tierfs answers like ext4 by running the same check on
// a plain directory of the host's file system and on the tierfs mount.
//
// A check is a function of a base directory that performs system calls and records
// what it saw in an Observations list ("mkdir twice" -> "EEXIST", "st_nlink" -> "3",
// "mtime moved" -> "yes"). Compare() runs it on <tmp>/plain/cN (ext4 here: /tmp is
// ext4, mounted relatime, like the default ext4 mount) and on <mnt>/cN, expects the
// two lists to be equal item by item, and returns the mount's list, on which a test
// also asserts the exact values it cares about. AsUser() runs part of a check in a
// child process with unprivileged credentials (the mount has allow_other since the
// tests run as root), and returns what the child observed.
//
// Single-threaded test code; AsUser forks, which is safe here (no threads in the
// test process besides the main one).
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {

// "ENOENT" for ENOENT; "ok" for 0.
inline std::string ErrnoName(int err) {
  if (err == 0) return "ok";
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : "errno" + std::to_string(err);
}

// For open(2) calls whose only interest is their outcome: closes a valid fd (so no
// test keeps the mount busy) and returns 0, or -1 with errno untouched.
inline int Opened(int fd) {
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

// What one run of a check saw, in order. Methods take the label as a C string and
// read errno first thing, so that a syscall written as an argument keeps its errno.
class Observations {
 public:
  // A syscall that returns -1 on error: "ok" or the errno name.
  void Call(const char* what, long rc) {
    const int err = errno;
    Add(what, rc < 0 ? ErrnoName(err) : "ok");
  }
  // A syscall that returns a count or a value: the value, or the errno name.
  void Count(const char* what, long rc) {
    const int err = errno;
    Add(what, rc < 0 ? ErrnoName(err) : std::to_string(rc));
  }
  void Value(const char* what, long long v) { Add(what, std::to_string(v)); }
  void Text(const char* what, std::string_view v) { Add(what, std::string(v)); }
  void Flag(const char* what, bool v) { Add(what, v ? "yes" : "no"); }
  // Appends another list (e.g. what an AsUser child saw), labels prefixed.
  void Merge(const Observations& other, const std::string& prefix = "") {
    for (const auto& [k, v] : other.items) items.emplace_back(prefix + k, v);
  }

  // The value recorded under `what` (the last one); fails the test if absent.
  std::string Get(const std::string& what) const {
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      if (it->first == what) return it->second;
    }
    ADD_FAILURE() << "nothing observed as '" << what << "'";
    return "<missing>";
  }

  std::string ToString() const {
    std::string s;
    for (const auto& [k, v] : items) s += "  " + k + " = " + v + "\n";
    return s;
  }
  // Line-based transport between processes (labels and values have no newline/tab).
  std::string Serialize() const {
    std::string s;
    for (const auto& [k, v] : items) s += k + "\t" + v + "\n";
    return s;
  }
  static Observations Parse(const std::string& text) {
    Observations o;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      size_t tab = line.find('\t');
      if (tab != std::string::npos) o.items.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    return o;
  }

  std::vector<std::pair<std::string, std::string>> items;

 private:
  void Add(const char* what, std::string value) { items.emplace_back(what, std::move(value)); }
};

// Timestamps and identity of a path, for "did it change" observations.
struct Snap {
  struct stat st {};
  bool ok = false;
};
inline Snap TakeSnap(const std::string& path) {
  Snap s;
  s.ok = lstat(path.c_str(), &s.st) == 0;
  return s;
}
inline bool SameTime(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}
// Records whether atime/mtime/ctime of `path` moved since `before`, as
// "<label> atime" -> yes/no, and so on.
inline void TimesMoved(Observations& o, const std::string& label, const Snap& before,
                       const std::string& path) {
  Snap after = TakeSnap(path);
  const std::string a = label + " atime moved", m = label + " mtime moved",
                    c = label + " ctime moved";
  o.Flag(a.c_str(), !SameTime(before.st.st_atim, after.st.st_atim));
  o.Flag(m.c_str(), !SameTime(before.st.st_mtim, after.st.st_mtim));
  o.Flag(c.c_str(), !SameTime(before.st.st_ctim, after.st.st_ctim));
}
// ext4 stamps times from a coarse clock (a tick of a few ms): wait long enough
// that a change shows as a different value.
inline void Tick() { std::this_thread::sleep_for(std::chrono::milliseconds(15)); }

using Check = std::function<void(const std::string& base, Observations& obs)>;

class PosixFixture : public TierfsFixture {
 protected:
  void SetUp() override {
    TierfsFixture::SetUp();
    if (HasFatalFailure()) return;
    // Unprivileged children must be able to reach both trees.
    ASSERT_EQ(chmod(root_.c_str(), 0755), 0);
    plain_ = root_ + "/plain";
    ASSERT_EQ(mkdir(plain_.c_str(), 0755), 0);
  }

  // For the few checks where the FUSE writeback cache (the default) makes the
  // kernel, not tierfs, answer differently from ext4: the kernel keeps size and
  // times of a cached regular file itself (a time outside tierfs's range shows as
  // set until the inode leaves the cache; truncate(2) to the same size moves no
  // time; a failing fallocate has already stamped them), and blocks and
  // SEEK_DATA/SEEK_HOLE cannot see pages not yet written back. Each such check
  // has its writeback-cache counterpart in writeback_cache_test.cc.
  void MountWithoutWritebackCache() {
    Unmount();
    Mount({"--writeback_cache=false"});
  }

  // Runs `check` in a fresh directory on the host file system and on the mount;
  // expects both to observe the same; returns the mount's observations.
  Observations Compare(const Check& check) {
    const std::string name = "c" + std::to_string(next_++);
    const std::string on_plain = plain_ + "/" + name, on_mount = mnt_ + "/" + name;
    EXPECT_EQ(mkdir(on_plain.c_str(), 0755), 0);
    EXPECT_EQ(mkdir(on_mount.c_str(), 0755), 0);
    Observations plain, mount;
    check(on_plain, plain);
    check(on_mount, mount);
    ExpectSame(plain, mount);
    // POSIX_COMPARE_DUMP=1 prints what the mount answered, to review a check.
    if (getenv("POSIX_COMPARE_DUMP") != nullptr) printf("%s", mount.ToString().c_str());
    return mount;
  }

  static void ExpectSame(const Observations& plain, const Observations& mount) {
    bool same = plain.items.size() == mount.items.size();
    for (size_t i = 0; same && i < plain.items.size(); ++i) {
      same = plain.items[i] == mount.items[i];
    }
    if (same) return;
    std::string diff;
    for (size_t i = 0; i < std::max(plain.items.size(), mount.items.size()); ++i) {
      std::string p =
          i < plain.items.size() ? plain.items[i].first + " = " + plain.items[i].second : "(none)";
      std::string m =
          i < mount.items.size() ? mount.items[i].first + " = " + mount.items[i].second : "(none)";
      diff += (p == m ? "    " : " >> ") + p + (p == m ? "" : "   |   tierfs: " + m) + "\n";
    }
    ADD_FAILURE() << "tierfs differs from the host file system (ext4):\n" << diff;
  }

  // Runs `body` in a child process with uid/gid (and the supplementary groups
  // given) and returns what it observed. The child never returns into gtest.
  static Observations AsUser(uid_t uid, gid_t gid, const std::function<void(Observations&)>& body,
                             const std::vector<gid_t>& groups = {}) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) {
      ADD_FAILURE() << "pipe: " << strerror(errno);
      return {};
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(pipe_fds[0]);
      Observations o;
      if (setgroups(groups.size(), groups.data()) != 0 || setresgid(gid, gid, gid) != 0 ||
          setresuid(uid, uid, uid) != 0) {
        o.Text("credentials", "could not switch");
      } else {
        body(o);
      }
      std::string out = o.Serialize();
      size_t off = 0;
      while (off < out.size()) {
        ssize_t n = write(pipe_fds[1], out.data() + off, out.size() - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
      _exit(0);
    }
    close(pipe_fds[1]);
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child failed";
    return Observations::Parse(text);
  }

  static constexpr uid_t kUser = 65534;   // nobody
  static constexpr gid_t kGroup = 65534;  // nogroup
  static constexpr uid_t kOther = 65533;  // a second unprivileged user
  static constexpr gid_t kOtherGroup = 65533;

  std::string plain_;
  int next_ = 0;
};

}  // namespace tierfs::testing

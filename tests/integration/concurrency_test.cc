// Sixteen threads change one namespace at once, on the mount, while the
// relocator moves the files underneath, and every result is checked against a
// model: what the daemon promises of parallel namespace changes, at 16 threads.
//
// The workers create (O_CREAT|O_EXCL, contents that name the object), rename
// (within and across directories, over an existing name, with RENAME_NOREPLACE
// and RENAME_EXCHANGE), unlink, hard-link, list, stat and read files in 8
// shared directories of 8 names each, so that they collide on names all the
// time. Meanwhile a relocator thread assigns a policy that moves every file to
// the other class and runs `fsppadm enforce`, again and again, so relocations
// commit underneath the namespace changes and the reads.
//
// Why the model is sound under concurrency: the test holds a mutex per
// directory across each system call and its update of the model (a call on
// two directories, link or rename, takes both, lower index first). So the
// model of a directory changes exactly when the file system's does, and the
// result of each call (its errno included) is known exactly from the model
// before the call: the directories it names are this thread's alone for that
// time. Calls on different directories run in parallel in the file system,
// which is the point: the daemon sees up to 8 namespace changes at once, plus
// links and renames between them, plus the relocator. The one thing a lock per
// directory cannot pin is a file's link count mid-run (its other names may be
// in a directory another thread holds), so st_nlink is checked at the end,
// when everything is still, together with the whole tree: every name, the
// inode of every name (links of one file share one st_ino), every link count,
// every file's bytes, and what readdir lists (names and d_ino). Then again
// after an unmount and a mount, and `tierfs check` of the unmounted file
// system must find it clean. One kernel behaviour is told apart rather than
// failed (KernelLostALink below): the FUSE client's cached link count can drop
// one too low, and link(2) then fails with ENOENT in the kernel; the test
// counts it, checks at the end that no such link(2) reached the daemon (its
// LINK requests equal the link(2)s that succeeded), and checks the daemon's
// link counts (TIERFS_CONCURRENCY_STRICT_NLINK=1 fails on it instead). The
// mount is the default one, passthrough included where the kernel allows it.
//
// Each worker draws its operations from a seed of its own (kBaseSeed + thread,
// or $TIERFS_CONCURRENCY_SEED + thread), printed with any failure; the
// interleaving is the scheduler's, so a failure names the call, the model's
// expectation and what the file system did. Every loop and wait is bounded:
// each worker does kOpsPerThread operations or stops at kWorkerDeadline, the
// relocator stops when the workers are done or at the same deadline.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kThreads = 16;
constexpr int kDirs = 8;
constexpr int kNames = 8;
constexpr int kOpsPerThread = 4000;
constexpr uint32_t kBaseSeed = 4004;
constexpr auto kWorkerDeadline = std::chrono::seconds(40);

std::string ErrnoName(int e) {
  if (e == 0) return "success";
  const char* name = strerrorname_np(e);
  return name != nullptr ? name : std::to_string(e);
}

// A file of the model: what its contents are (fixed at creation), the inode
// the file system gave it, and how many names it has.
struct Object {
  std::string content;
  ino_t ino = 0;
  int nlink = 0;
  std::vector<std::string> history;  // the calls that changed its names
};

// The call the worker on this thread is making, for an object's history.
thread_local const std::string* current_call = nullptr;

class ConcurrencyTest : public TierfsFixture {
 protected:
  // The daemon writes its metrics here at unmount: the LINK requests it
  // answered tell the kernel's lost-link race apart (KernelLostALink).
  std::vector<std::string> FixtureMountArgs() const override {
    return {"--metrics_textfile", MetricsFile()};
  }
  std::string MetricsFile() const { return root_ + "/metrics.prom"; }

  std::string Dir(int d) const { return Path("d" + std::to_string(d)); }
  std::string Name(int d, const std::string& name) const { return Dir(d) + "/" + name; }

  // The object `name` in directory `d` refers to, or 0. The caller holds dir_mu_[d].
  uint64_t At(int d, const std::string& name) {
    auto it = dirs_[d].find(name);
    return it == dirs_[d].end() ? 0 : it->second;
  }
  Object ObjectOf(uint64_t id) {
    std::lock_guard lock(objects_mu_);
    return objects_.at(id);
  }
  void AddLink(uint64_t id, int delta) {
    std::lock_guard lock(objects_mu_);
    Object& o = objects_.at(id);
    o.nlink += delta;
    if (o.nlink == 0) objects_.erase(id);
    else if (current_call != nullptr) o.history.push_back(*current_call);
  }
  void Note(uint64_t id) {
    std::lock_guard lock(objects_mu_);
    if (current_call != nullptr) objects_.at(id).history.push_back(*current_call);
  }

  // The contents of object `id`: its id in text (so that a file read under the
  // wrong name says whose it is), then pseudo-random bytes; mostly a few KiB,
  // one in eight up to 128 KiB, sometimes empty past the id.
  static std::string Contents(uint64_t id, std::mt19937& rng) {
    const size_t size = rng() % 8 == 0 ? rng() % (128 << 10) : rng() % 4096;
    return "object " + std::to_string(id) + "\n" +
           RandomBytes(size, static_cast<uint32_t>(id * 2654435761u));
  }

  // One worker: `ops` operations drawn from `seed`. Returns "" or the first
  // mismatch with the model (then it stops; so do the others, via stop_).
  std::string Work(int thread, uint32_t seed, int ops) {
    std::mt19937 rng(seed);
    uint64_t next = 1;
    const auto deadline = Clock::now() + kWorkerDeadline;
    for (int i = 0; i < ops && !stop_.load(); ++i) {
      if (Clock::now() > deadline) break;
      Call call = Draw(thread, rng, &next);
      const std::string what = "thread " + std::to_string(thread) + " op " + std::to_string(i) +
                               ": " + call.what;
      current_call = &what;
      const std::string failure = call.run();
      current_call = nullptr;
      done_ops_.fetch_add(1);
      if (!failure.empty()) {
        stop_.store(true);
        return what + " (seed " + std::to_string(seed) + "): " + failure;
      }
    }
    return "";
  }

  // The next operation of a worker: what it is, in words, and the call.
  struct Call {
    std::string what;
    std::function<std::string()> run;
  };
  Call Draw(int thread, std::mt19937& rng, uint64_t* next) {
    const int kind = static_cast<int>(rng() % 100);
    const int d = static_cast<int>(rng() % kDirs);
    const std::string n = "n" + std::to_string(rng() % kNames);
    const int d2 = static_cast<int>(rng() % kDirs);
    const std::string n2 = "n" + std::to_string(rng() % kNames);
    const std::string one = "d" + std::to_string(d) + "/" + n;
    const std::string two = one + " -> d" + std::to_string(d2) + "/" + n2;
    if (kind < 22) {
      const uint64_t id = (static_cast<uint64_t>(thread + 1) << 32) | (*next)++;
      std::string content = Contents(id, rng);
      return {"create " + one + " as object " + std::to_string(id),
              [=, this] { return Create(d, n, id, content); }};
    }
    if (kind < 36) return {"unlink " + one, [=, this] { return Unlink(d, n); }};
    if (kind < 46) return {"link " + two, [=, this] { return Link(d, n, d2, n2); }};
    if (kind < 58) return {"rename " + two, [=, this] { return Rename(d, n, d2, n2, 0); }};
    if (kind < 62) {
      return {"rename(NOREPLACE) " + two,
              [=, this] { return Rename(d, n, d2, n2, RENAME_NOREPLACE); }};
    }
    if (kind < 66) {
      return {"rename(EXCHANGE) " + two,
              [=, this] { return Rename(d, n, d2, n2, RENAME_EXCHANGE); }};
    }
    if (kind < 74) {
      return {"readdir d" + std::to_string(d), [=, this] {
                std::lock_guard lock(dir_mu_[d]);
                Tally(kReaddir, 0);
                return ListMatches(d);
              }};
    }
    if (kind < 86) return {"stat " + one, [=, this] { return Stat(d, n); }};
    return {"read " + one, [=, this] { return Read(d, n); }};
  }

  std::string Create(int d, const std::string& name, uint64_t id, const std::string& content) {
    std::lock_guard lock(dir_mu_[d]);
    const int want = At(d, name) != 0 ? EEXIST : 0;
    const int fd = open(Name(d, name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    const int got = fd < 0 ? errno : 0;
    if (got != want) {
      if (fd >= 0) close(fd);
      return "got " + ErrnoName(got) + ", model wants " + ErrnoName(want);
    }
    Tally(kCreate, got);
    if (fd < 0) return "";
    std::string failure;
    size_t done = 0;
    while (done < content.size()) {
      const ssize_t w = write(fd, content.data() + done, content.size() - done);
      if (w <= 0) {
        failure = "write: " + ErrnoName(errno);
        break;
      }
      done += static_cast<size_t>(w);
    }
    struct stat st;
    if (failure.empty() && fstat(fd, &st) != 0) failure = "fstat: " + ErrnoName(errno);
    if (close(fd) != 0 && failure.empty()) failure = "close: " + ErrnoName(errno);
    if (!failure.empty()) return failure;
    {
      std::lock_guard objects(objects_mu_);
      objects_[id] = Object{content, st.st_ino, 1, {*current_call}};
    }
    dirs_[d][name] = id;
    return "";
  }

  std::string Unlink(int d, const std::string& name) {
    std::lock_guard lock(dir_mu_[d]);
    const uint64_t id = At(d, name);
    const int want = id != 0 ? 0 : ENOENT;
    const int got = unlink(Name(d, name).c_str()) == 0 ? 0 : errno;
    if (got != want) return "got " + ErrnoName(got) + ", model wants " + ErrnoName(want);
    Tally(kUnlink, got);
    if (id != 0) {
      dirs_[d].erase(name);
      AddLink(id, -1);
    }
    return "";
  }

  // Locks the directories of a call on two of them, lower index first.
  struct TwoDirs {
    TwoDirs(ConcurrencyTest* t, int a, int b) {
      first = std::unique_lock(t->dir_mu_[std::min(a, b)]);
      if (a != b) second = std::unique_lock(t->dir_mu_[std::max(a, b)]);
    }
    std::unique_lock<std::mutex> first, second;
  };

  std::string Link(int sd, const std::string& sn, int dd, const std::string& dn) {
    TwoDirs lock(this, sd, dd);
    const uint64_t src = At(sd, sn), dst = At(dd, dn);
    const int want = src == 0 ? ENOENT : dst != 0 ? EEXIST : 0;
    const int got = link(Name(sd, sn).c_str(), Name(dd, dn).c_str()) == 0 ? 0 : errno;
    if (got == ENOENT && want == 0 && !strict_nlink_ && KernelLostALink(sd, sn, dd, dn)) {
      kernel_nlink_races_.fetch_add(1);
      return "";
    }
    if (got != want) {
      return "got " + ErrnoName(got) + ", model wants " + ErrnoName(want) + Describe(sd, sn, src);
    }
    Tally(kLink, got);
    if (got != 0) return "";
    dirs_[dd][dn] = src;
    AddLink(src, +1);
    return SameInode(dd, dn, src);
  }

  // rename(2) with renameat2's `flags` (0, RENAME_NOREPLACE or RENAME_EXCHANGE).
  // Linux looks up the source first (ENOENT), then the destination (EEXIST with
  // NOREPLACE, ENOENT with EXCHANGE); a rename between two links of one file
  // succeeds and changes nothing.
  std::string Rename(int sd, const std::string& sn, int dd, const std::string& dn,
                     unsigned flags) {
    TwoDirs lock(this, sd, dd);
    const uint64_t src = At(sd, sn), dst = At(dd, dn);
    int want = 0;
    if (src == 0) {
      want = ENOENT;
    } else if (flags == RENAME_NOREPLACE && dst != 0) {
      want = EEXIST;
    } else if (flags == RENAME_EXCHANGE && dst == 0) {
      want = ENOENT;
    }
    const int got =
        renameat2(AT_FDCWD, Name(sd, sn).c_str(), AT_FDCWD, Name(dd, dn).c_str(), flags) == 0
            ? 0
            : errno;
    if (got != want) return "got " + ErrnoName(got) + ", model wants " + ErrnoName(want);
    Tally(flags == RENAME_NOREPLACE ? kNoReplace : flags == RENAME_EXCHANGE ? kExchange : kRename,
          got);
    if (got != 0 || src == dst) return "";
    Note(src);
    if (flags == RENAME_EXCHANGE) {
      Note(dst);
      dirs_[sd][sn] = dst;
      dirs_[dd][dn] = src;
      std::string failure = SameInode(sd, sn, dst);
      return failure.empty() ? SameInode(dd, dn, src) : failure;
    }
    dirs_[sd].erase(sn);
    dirs_[dd][dn] = src;
    if (dst != 0) AddLink(dst, -1);
    std::string failure = SameInode(dd, dn, src);
    if (!failure.empty()) return failure;
    struct stat st;
    if (lstat(Name(sd, sn).c_str(), &st) == 0 || errno != ENOENT) {
      return "the old name is still there (" + ErrnoName(errno) + ")";
    }
    return "";
  }

  // The kernel's FUSE client can count a file's links one too low, down to 0
  // while it has a name (seen on Linux 6.18; docs/design.md, "Kernel caches and
  // what the kernel enforces", has a reproduction): at the end of an unlink, or of a
  // rename over a name, it decrements the cached st_nlink of the inode that
  // lost the name (fuse_entry_unlinked: drop_nlink), also when a reply that
  // carried the count after the unlink (a READDIRPLUS or LOOKUP of another of
  // its names, served by the daemon after the unlink committed) set it
  // meanwhile; the attribute version guards against older replies only. With
  // the count at 0, link(2) of the file fails with ENOENT in the VFS
  // (vfs_link), without a LINK request, and stat says 0 until the cached
  // attributes expire. Whether the ENOENT of link(sd/sn, dd/dn) is that: the
  // kernel says sd/sn has no links, and no dd/dn was made. The daemon's count
  // is checked at the end (after dropping the kernel's caches where they
  // disagree). $TIERFS_CONCURRENCY_STRICT_NLINK=1 fails the test instead.
  // Whether a link(2) that failed with ENOENT, where the model says it
  // succeeds, may be the kernel's lost link: the source still names a file and
  // the destination is still free. Counted, and proven at the end: the daemon
  // must have answered exactly as many LINK requests as link(2)s succeeded, so
  // none of these reached it (the kernel refused them itself). The count the
  // kernel caches is not asked: on a passthrough mount lstat often reads the
  // right count by then (each passthrough read marks the cached atime stale,
  // most likely why, so the stat asks the daemon again).
  bool KernelLostALink(int sd, const std::string& sn, int dd, const std::string& dn) {
    struct stat st;
    if (lstat(Name(sd, sn).c_str(), &st) != 0) return false;
    return lstat(Name(dd, dn).c_str(), &st) != 0 && errno == ENOENT;
  }

  // The value of the daemon's counter `name{op="<op>"}` in the textfile it
  // wrote at its last unmount, or -1 when the file or the sample is missing.
  double DaemonRequests(const std::string& op) const {
    std::ifstream in(MetricsFile());
    const std::string prefix = "tierfs_fuse_requests_total{";
    for (std::string line; std::getline(in, line);) {
      const size_t end = line.find("} ");
      if (line.starts_with(prefix) && end != std::string::npos &&
          line.find("op=\"" + op + "\"") < end) {
        return std::strtod(line.c_str() + end + 2, nullptr);
      }
    }
    return -1;
  }

  // What lstat says of `name` now, and the model's object `id` (for a failure).
  std::string Describe(int d, const std::string& name, uint64_t id) {
    std::string out = "; d" + std::to_string(d) + "/" + name + " now: ";
    struct stat st;
    if (lstat(Name(d, name).c_str(), &st) != 0) {
      out += ErrnoName(errno);
    } else {
      out += "inode " + std::to_string(st.st_ino) + " nlink " + std::to_string(st.st_nlink);
    }
    if (id == 0) return out + "; model: no object";
    std::lock_guard lock(objects_mu_);
    auto it = objects_.find(id);
    if (it == objects_.end()) return out + "; model: object " + std::to_string(id) + " gone";
    out += "; model: object " + std::to_string(id) + " inode " + std::to_string(it->second.ino) +
           " nlink " + std::to_string(it->second.nlink) + ", named by:";
    for (const std::string& call : it->second.history) out += "\n  " + call;
    return out;
  }

  // lstat of `name` names object `id`'s inode. The caller holds dir_mu_[d].
  std::string SameInode(int d, const std::string& name, uint64_t id) {
    struct stat st;
    if (lstat(Name(d, name).c_str(), &st) != 0) {
      return "lstat d" + std::to_string(d) + "/" + name + ": " + ErrnoName(errno);
    }
    const Object o = ObjectOf(id);
    if (st.st_ino != o.ino) {
      return "d" + std::to_string(d) + "/" + name + " is inode " + std::to_string(st.st_ino) +
             ", model: object " + std::to_string(id) + " inode " + std::to_string(o.ino);
    }
    if (!S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) != o.content.size()) {
      return "d" + std::to_string(d) + "/" + name + " mode " + std::to_string(st.st_mode) +
             " size " + std::to_string(st.st_size) + ", model size " +
             std::to_string(o.content.size());
    }
    return "";
  }

  std::string Stat(int d, const std::string& name) {
    std::lock_guard lock(dir_mu_[d]);
    const uint64_t id = At(d, name);
    Tally(kStat, id != 0 ? 0 : ENOENT);
    if (id != 0) return SameInode(d, name, id);
    struct stat st;
    const int got = lstat(Name(d, name).c_str(), &st) == 0 ? 0 : errno;
    if (got != ENOENT) return "got " + ErrnoName(got) + ", model wants ENOENT";
    return "";
  }

  // Reads `name` whole; it must hold its object's bytes. The caller holds dir_mu_[d].
  std::string ReadMatches(int d, const std::string& name, uint64_t id) {
    const int fd = open(Name(d, name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "open: " + ErrnoName(errno);
    std::string bytes;
    char buf[65536];
    ssize_t n = 0;
    for (int i = 0; i < 1000 && (n = read(fd, buf, sizeof buf)) > 0; ++i) {
      bytes.append(buf, static_cast<size_t>(n));
    }
    const int read_errno = n < 0 ? errno : 0;
    close(fd);
    if (read_errno != 0) return "read: " + ErrnoName(read_errno);
    const std::string diff = Difference(bytes, ObjectOf(id).content);
    if (diff.empty()) return "";
    return "contents of object " + std::to_string(id) + " differ: " + diff + " (it starts \"" +
           bytes.substr(0, std::min<size_t>(bytes.find('\n'), 40)) + "\")";
  }

  std::string Read(int d, const std::string& name) {
    std::lock_guard lock(dir_mu_[d]);
    const uint64_t id = At(d, name);
    Tally(kRead, id != 0 ? 0 : ENOENT);
    if (id != 0) return ReadMatches(d, name, id);
    const int fd = open(Name(d, name).c_str(), O_RDONLY | O_CLOEXEC);
    const int got = fd < 0 ? errno : 0;
    if (fd >= 0) close(fd);
    if (got != ENOENT) return "got " + ErrnoName(got) + ", model wants ENOENT";
    return "";
  }

  // What readdir(3) lists in `path`, but . and ..: name -> d_ino. Fills *error on failure.
  static std::map<std::string, ino_t> List(const std::string& path, std::string* error) {
    std::map<std::string, ino_t> names;
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) {
      *error = "opendir: " + ErrnoName(errno);
      return names;
    }
    errno = 0;
    for (int i = 0; i < 100000; ++i) {
      const dirent* e = readdir(dir);
      if (e == nullptr) break;
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (!names.emplace(name, e->d_ino).second) *error = "listed twice: " + name;
    }
    if (errno != 0) *error = "readdir: " + ErrnoName(errno);
    closedir(dir);
    return names;
  }

  // readdir of directory `d` lists exactly the model's names, each with its
  // object's inode. The caller holds dir_mu_[d] (or every worker has joined).
  std::string ListMatches(int d) {
    std::string error;
    const std::map<std::string, ino_t> got = List(Dir(d), &error);
    if (!error.empty()) return error;
    std::map<std::string, ino_t> want;
    for (const auto& [name, id] : dirs_[d]) want[name] = ObjectOf(id).ino;
    if (got == want) return "";
    auto show = [](const std::map<std::string, ino_t>& m) {
      std::string s;
      for (const auto& [name, ino] : m) s += " " + name + ":" + std::to_string(ino);
      return s;
    };
    return "lists" + show(got) + "; model:" + show(want);
  }

  // The whole tree equals the model; every worker has joined. Adds a failure per
  // mismatch (at most 20), prefixed with `when`.
  void ExpectTreeMatchesModel(const std::string& when) {
    int failures = 0;
    auto fail = [&](const std::string& what) {
      if (++failures <= 20) ADD_FAILURE() << when << ": " << what;
    };
    std::string error;
    std::map<std::string, ino_t> root = List(mnt_, &error);
    if (!error.empty()) fail("root: " + error);
    std::set<std::string> root_names;
    for (const auto& [name, ino] : root) root_names.insert(name);
    std::set<std::string> want_root;
    for (int d = 0; d < kDirs; ++d) want_root.insert("d" + std::to_string(d));
    if (root_names != want_root) {
      std::string s;
      for (const std::string& name : root_names) s += " " + name;
      fail("the root lists" + s);
    }
    // Links counted from the model's directories, against each object's count.
    std::map<uint64_t, int> names_of;
    std::vector<std::pair<int, std::string>> stale_nlink;
    std::map<ino_t, uint64_t> object_of_ino;
    for (int d = 0; d < kDirs; ++d) {
      const std::string listed = ListMatches(d);
      if (!listed.empty()) fail("d" + std::to_string(d) + " " + listed);
      for (const auto& [name, id] : dirs_[d]) {
        names_of[id]++;
        const Object o = ObjectOf(id);
        const std::string where = "d" + std::to_string(d) + "/" + name;
        auto [it, added] = object_of_ino.emplace(o.ino, id);
        if (!added && it->second != id) {
          fail("objects " + std::to_string(id) + " and " + std::to_string(it->second) +
               " share inode " + std::to_string(o.ino));
        }
        const std::string same = SameInode(d, name, id);
        if (!same.empty()) fail(same);
        struct stat st;
        if (lstat(Name(d, name).c_str(), &st) == 0 &&
            st.st_nlink != static_cast<nlink_t>(o.nlink)) {
          stale_nlink.emplace_back(d, name);
        }
        const std::string read = ReadMatches(d, name, id);
        if (!read.empty()) fail(where + ": " + read);
      }
    }
    // Link counts the kernel has wrong (KernelLostALink): what the daemon says
    // once the kernel forgot its cached inodes must be the model's.
    if (!stale_nlink.empty() && !strict_nlink_) {
      std::ofstream("/proc/sys/vm/drop_caches") << "2\n";
    }
    for (const auto& [d, name] : stale_nlink) {
      const Object o = ObjectOf(dirs_[d].at(name));
      struct stat st;
      const std::string where = "d" + std::to_string(d) + "/" + name;
      if (lstat(Name(d, name).c_str(), &st) != 0) {
        fail(where + ": " + ErrnoName(errno));
      } else if (st.st_nlink != static_cast<nlink_t>(o.nlink) || strict_nlink_) {
        fail(where + " has " + std::to_string(st.st_nlink) + " links, model " +
             std::to_string(o.nlink));
      } else {
        kernel_nlink_stale_++;
      }
    }
    std::lock_guard lock(objects_mu_);
    if (names_of.size() != objects_.size()) {
      fail("the model has " + std::to_string(objects_.size()) + " objects, its directories name " +
           std::to_string(names_of.size()));
    }
    for (const auto& [id, count] : names_of) {
      auto it = objects_.find(id);
      if (it != objects_.end() && it->second.nlink != count) {
        fail("model object " + std::to_string(id) + " counts " +
             std::to_string(it->second.nlink) + " links, its directories " +
             std::to_string(count));
      }
    }
    if (failures > 20) ADD_FAILURE() << when << ": " << failures - 20 << " more mismatches";
  }

  // Once the workers are done: the tree against the model, every link(2) that
  // reached the daemon a success (so those counted as the kernel's lost
  // links never left the kernel), the tree again after a remount, and
  // `tierfs check` of the unmounted file system.
  void ExpectTheEndMatchesTheModel() {
    ExpectTreeMatchesModel("at the end");
    Unmount();
    EXPECT_EQ(DaemonRequests("link"), succeeded_[kLink].load())
        << "LINK requests the daemon answered, against link(2)s that succeeded ("
        << kernel_nlink_races_.load() << " counted as the kernel's lost links)";
    Mount();
    ExpectTreeMatchesModel("after a remount");
    Unmount();
    CommandResult check = Tool("tierfs", {"check", ssd_});
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_NE(check.output.find("clean"), std::string::npos) << check.output;
    std::printf("the kernel's link count went wrong (KernelLostALink): %d link(2)s refused, "
                "%d names with a wrong st_nlink at the final checks\n",
                kernel_nlink_races_.load(), kernel_nlink_stale_);
  }

  // One `fsppadm enforce --json`, its moves added to the counts. Returns "" or
  // what failed (a file it could not move included).
  std::string EnforceOnce() {
    CommandResult enforce = Tool("fsppadm", {"enforce", "--json", mnt_}, 60);
    if (enforce.exit_code != 0) return "fsppadm enforce: " + enforce.output;
    const nlohmann::json doc = nlohmann::json::parse(enforce.output, nullptr, false);
    if (!doc.is_object() || !doc.contains("summary")) return "enforce --json: " + enforce.output;
    const nlohmann::json& summary = doc["summary"];
    files_moved_ += summary.value("files_moved", 0);
    const nlohmann::json skipped = summary.value("files_skipped", nlohmann::json::object());
    busy_ += skipped.value("busy", 0);
    gone_ += skipped.value("gone", 0);
    if (skipped.value("error", 0) != 0) return "enforce: files failed: " + enforce.output;
    enforces_++;
    return "";
  }

  // Runs the kThreads workers (seeds base_seed + thread) beside `mover`, which
  // is told through its flag when they are done. Fills `failures` (one per
  // worker, "" when it held to the model) and `mover_failure`; returns the
  // seconds it all took.
  double RunWorkersBeside(uint32_t base_seed,
                          const std::function<std::string(const std::atomic<bool>&)>& mover,
                          std::vector<std::string>* failures, std::string* mover_failure) {
    const auto start = Clock::now();
    std::atomic<bool> workers_done{false};
    std::thread side([&] { *mover_failure = mover(workers_done); });
    failures->assign(kThreads, "");
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] { (*failures)[t] = Work(t, base_seed + t, kOpsPerThread); });
    }
    for (std::thread& w : workers) w.join();
    workers_done.store(true);
    side.join();
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  // The relocator: until `workers_done` (or the deadline), assigns a policy that
  // moves every file to the other class and enforces it. Returns "" or what failed.
  std::string Relocate(const std::atomic<bool>& workers_done) {
    const std::string policy[2] = {root_ + "/to_hdd.xml", root_ + "/to_ssd.xml"};
    const auto deadline = Clock::now() + kWorkerDeadline;
    for (int round = 0; !workers_done.load() && Clock::now() < deadline; ++round) {
      CommandResult assign = Tool("fsppadm", {"assign", mnt_, policy[round % 2]}, 60);
      if (assign.exit_code != 0) return "fsppadm assign: " + assign.output;
      if (std::string failed = EnforceOnce(); !failed.empty()) return failed;
    }
    return "";
  }

  std::array<std::mutex, kDirs> dir_mu_;
  std::array<std::map<std::string, uint64_t>, kDirs> dirs_;  // name -> object, each under dir_mu_
  std::mutex objects_mu_;
  std::map<uint64_t, Object> objects_;  // every object with a name, under objects_mu_
  // What the calls did, for the summary line: per operation, how many
  // succeeded and how many failed as the model said they would.
  enum Op { kCreate, kUnlink, kLink, kRename, kNoReplace, kExchange, kReaddir, kStat, kRead, kOps };
  static constexpr const char* kOpNames[kOps] = {"create", "unlink",  "link", "rename", "noreplace",
                                                 "exchange", "readdir", "stat", "read"};
  void Tally(Op op, int err) { (err == 0 ? succeeded_ : refused_)[op].fetch_add(1); }
  std::array<std::atomic<int>, kOps> succeeded_{}, refused_{};
  std::atomic<bool> stop_{false};
  const bool strict_nlink_ = std::getenv("TIERFS_CONCURRENCY_STRICT_NLINK") != nullptr;
  std::atomic<int> kernel_nlink_races_{0};  // link(2)s the kernel refused (KernelLostALink)
  int kernel_nlink_stale_ = 0;  // names whose count the kernel had wrong at a final check
  std::atomic<int> done_ops_{0};
  int enforces_ = 0, files_moved_ = 0, busy_ = 0, gone_ = 0;  // the relocator's
};

TEST_F(ConcurrencyTest, SixteenThreadsOfNamespaceChangesWhileFilesMoveMatchTheModel) {
  uint32_t base_seed = kBaseSeed;
  if (const char* s = std::getenv("TIERFS_CONCURRENCY_SEED")) base_seed = std::strtoul(s, nullptr, 10);
  for (int d = 0; d < kDirs; ++d) ASSERT_EQ(mkdir(Dir(d).c_str(), 0755), 0) << d;
  // The relocator's two policies: every file to hdd, every file to ssd.
  WriteFile(root_ + "/to_hdd.xml", MoveEverythingPolicy("ssd", "hdd"));
  WriteFile(root_ + "/to_ssd.xml", MoveEverythingPolicy("hdd", "ssd"));

  // Which data path the mount chose (auto: passthrough where the kernel grants
  // it), for the summary: the kernel's link race shows differently on each.
  const nlohmann::json status =
      nlohmann::json::parse(Tool("fsppadm", {"status", "--json", mnt_}, 30).output, nullptr, false);
  const std::string data_path =
      status.is_object() && status.contains("passthrough")
          ? status["passthrough"].value("mode", "?") + " " + status["passthrough"].value("hook", "")
          : "?";

  std::vector<std::string> failures;
  std::string relocator_failure;
  const double seconds = RunWorkersBeside(
      base_seed, [this](const std::atomic<bool>& done) { return Relocate(done); }, &failures,
      &relocator_failure);
  size_t live = 0;
  {
    std::lock_guard lock(objects_mu_);
    live = objects_.size();
  }
  std::printf("%d operations by %d threads (seeds %u..%u) in %.1f s; %d enforces moved %d files "
              "(%d busy, %d gone); %zu files at the end; passthrough %s\n",
              done_ops_.load(), kThreads, base_seed, base_seed + kThreads - 1, seconds, enforces_,
              files_moved_, busy_, gone_, live, data_path.c_str());

  std::string calls;
  for (int op = 0; op < kOps; ++op) {
    calls += std::string(" ") + kOpNames[op] + " " + std::to_string(succeeded_[op].load()) + "/" +
             std::to_string(refused_[op].load());
  }
  std::printf("succeeded/refused as the model said:%s\n", calls.c_str());

  bool worker_failed = false;
  for (const std::string& f : failures) {
    if (f.empty()) continue;
    worker_failed = true;
    ADD_FAILURE() << f;
  }
  EXPECT_EQ(relocator_failure, "");
  ASSERT_FALSE(worker_failed) << "the model no longer holds; the tree is not compared";
  // A slow machine (a sanitizer build) may stop the workers at the deadline:
  // fewer operations, still checked; too few to mean anything fails.
  EXPECT_GE(done_ops_.load(), kThreads * kOpsPerThread / 10) << "the workers ran out of time";
  EXPECT_GT(files_moved_, 0) << "no file moved while the workers ran";

  ExpectTheEndMatchesTheModel();
}

// The same sixteen workers, while the daemon moves the files itself (online
// promotion, docs/policies.md): an online policy moves every file read or
// written in the last minutes to the other class as soon as the daemon sees
// its counts change (the workers' creates write their files, and their reads
// that the page cache does not serve reach the daemon), and its mirror moves
// them back. The mover swaps the two every second or so, so the files in
// use go one way and back while they are renamed, linked, exchanged and
// unlinked; after each switch it also runs `fsppadm enforce`, whose moves
// race the online ones for the same files (a move of a file waits for one in
// progress, and a file moved since enforce planned it is "gone", not an
// error). Checked as above, and the daemon's own count of online moves must
// be above zero.
TEST_F(ConcurrencyTest, SixteenThreadsOfNamespaceChangesWhileFilesMoveOnlineMatchTheModel) {
  uint32_t base_seed = kBaseSeed + kThreads;  // other seeds than the test above
  if (const char* s = std::getenv("TIERFS_CONCURRENCY_SEED")) base_seed = std::strtoul(s, nullptr, 10);
  for (int d = 0; d < kDirs; ++d) ASSERT_EQ(mkdir(Dir(d).c_str(), 0755), 0) << d;
  const std::string policy[2] = {root_ + "/online_to_hdd.xml", root_ + "/online_to_ssd.xml"};
  WriteFile(policy[0], OnlineMoveHotPolicy("ssd", "hdd"));
  WriteFile(policy[1], OnlineMoveHotPolicy("hdd", "ssd"));

  // The mover: until the workers are done (or the deadline), the online
  // policies in turn, each followed by an enforce. Returns "" or what failed.
  int switches = 0;
  auto move_online = [&](const std::atomic<bool>& workers_done) -> std::string {
    const auto deadline = Clock::now() + kWorkerDeadline;
    for (int round = 0; !workers_done.load() && Clock::now() < deadline; ++round) {
      CommandResult assign = Tool("fsppadm", {"assign", mnt_, policy[round % 2]}, 60);
      if (assign.exit_code != 0) return "fsppadm assign: " + assign.output;
      ++switches;
      if (std::string failed = EnforceOnce(); !failed.empty()) return failed;
      // A second for the online path (it looks once a second), in steps,
      // so that the end of the workers ends it.
      for (int i = 0; i < 20 && !workers_done.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    return "";
  };

  std::vector<std::string> failures;
  std::string mover_failure;
  const double seconds = RunWorkersBeside(base_seed, move_online, &failures, &mover_failure);

  // The online path's counts, read before the unmount (the daemon keeps them
  // in memory): files it moved (promotions, and demotions, which are
  // swap-outs), and what it skipped.
  CommandResult status = Tool("fsppadm", {"status", "--json", mnt_}, 60);
  EXPECT_EQ(status.exit_code, 0) << status.output;
  const nlohmann::json doc = nlohmann::json::parse(status.output, nullptr, false);
  const nlohmann::json online =
      doc.is_object() && doc.contains("online") ? doc["online"] : nlohmann::json::object();
  const uint64_t online_moves =
      online.value("promotions", uint64_t{0}) + online.value("demotions", uint64_t{0});
  std::printf("%d operations by %d threads (seeds %u..%u) in %.1f s; %d online policies moved "
              "%llu files online (skipped: %s); %d enforces moved %d files (%d busy, %d gone)\n",
              done_ops_.load(), kThreads, base_seed, base_seed + kThreads - 1, seconds, switches,
              static_cast<unsigned long long>(online_moves),
              online.value("skipped", nlohmann::json::object()).dump().c_str(), enforces_,
              files_moved_, busy_, gone_);

  bool worker_failed = false;
  for (const std::string& f : failures) {
    if (f.empty()) continue;
    worker_failed = true;
    ADD_FAILURE() << f;
  }
  EXPECT_EQ(mover_failure, "");
  ASSERT_FALSE(worker_failed) << "the model no longer holds; the tree is not compared";
  EXPECT_GE(done_ops_.load(), kThreads * kOpsPerThread / 10) << "the workers ran out of time";
  EXPECT_TRUE(online.value("online", false)) << "no online policy in force: " << status.output;
  EXPECT_GT(online_moves, 0u) << "the daemon moved no file online: " << status.output;

  ExpectTheEndMatchesTheModel();
}

}  // namespace
}  // namespace tierfs::testing

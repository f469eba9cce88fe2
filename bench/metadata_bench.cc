// metadata_bench: namespace operations per second on any directory (a
// tierfs mount, a peer FUSE mount, or a plain directory for the native
// baseline).
//
//   metadata_bench --dir DIR [--files 20000] [--dirs 100] [--size 1024]
//                  [--threads 1] [--pid PID] [--drop_caches]
//                  [--phases create,stat,...]
//
// Phases, in order (each over every file of a tree of --dirs directories):
//   create      mkdir the directories, then open(O_CREAT|O_EXCL), write --size
//               bytes, close each file
//   stat        stat(2) every file right after creating it (dentries cached; a
//               FUSE file system without writeback cache is asked for the
//               attributes once, since the writes invalidated them)
//   stat_cached the same again (served by the kernel while the FUSE attribute
//               timeout lasts)
//   stat_cold   the same after dropping the dentry/inode/page caches
//   readdir     opendir/readdir every directory (caches dropped first); the
//               rate counts entries
//   ls_l        readdir every directory and lstat every entry, as `ls -l`
//               does (caches dropped first): one READDIRPLUS answers both on a
//               FUSE file system that offers it; the rate counts entries
//   read_cold   open, read --size bytes, close each file (caches dropped first)
//   rename      rename every file within its directory
//   unlink      unlink every file, then rmdir the directories
// With --threads N, every phase runs N threads at once, thread t taking the
// directories d with d % N == t (and their files), so that the threads work
// in different directories (creates in one directory serialize on its lock in
// the kernel on any file system); the phase is timed from the start of the
// first thread to the end of the last. mkdir and rmdir of the directories
// belong to the threads too.
// "Caches dropped" needs root (--drop_caches); without it those phases are
// warm and the output says so (drop_caches 0).
//
// With --pid (the file-system daemon), also the daemon's CPU time per
// operation in each phase, its VmRSS after every phase and its VmHWM at the end.
//
// Output (bench_util.h): "metadata<TAB><phase>_ops_s<TAB>rate",
// "daemon_cpu<TAB><phase>_us_per_op<TAB>us" and
// "memory<TAB>rss_kib_after_<phase><TAB>KiB".
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"

namespace tierfs::bench {
namespace {

struct Tree {
  std::string root;
  int dirs = 0;
  int files = 0;  // in total, spread evenly over the directories
  int threads = 1;

  // Whether directory d (and every file in it) belongs to thread `t`.
  bool Mine(int t, int d) const { return d % threads == t; }

  std::string Dir(int d) const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "/d%03d", d);
    return root + buf;
  }
  // File i lives in directory i % dirs.
  std::string File(int i, const char* prefix = "f") const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "/%s%06d", prefix, i);
    return Dir(i % dirs) + buf;
  }
};

void Create(const Tree& t, int th, size_t size) {
  for (int d = 0; d < t.dirs; ++d) {
    if (t.Mine(th, d) && mkdir(t.Dir(d).c_str(), 0755) != 0) Die("mkdir " + t.Dir(d));
  }
  std::string data(size, 'x');
  for (int i = 0; i < t.files; ++i) {
    if (!t.Mine(th, i % t.dirs)) continue;
    const std::string path = t.File(i);
    int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) Die("create " + path);
    if (write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
      Die("write " + path);
    }
    if (close(fd) != 0) Die("close " + path);
  }
}

void StatAll(const Tree& t, int th) {
  struct stat st;
  for (int i = 0; i < t.files; ++i) {
    if (!t.Mine(th, i % t.dirs)) continue;
    if (stat(t.File(i).c_str(), &st) != 0) Die("stat " + t.File(i));
  }
}

// Returns the number of entries seen (without . and ..).
long ReadDirs(const Tree& t, int th) {
  long entries = 0;
  for (int d = 0; d < t.dirs; ++d) {
    if (!t.Mine(th, d)) continue;
    DIR* dir = opendir(t.Dir(d).c_str());
    if (dir == nullptr) Die("opendir " + t.Dir(d));
    while (dirent* e = readdir(dir)) {
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") entries++;
    }
    closedir(dir);
  }
  return entries;
}

// Returns the number of entries seen (without . and ..).
long ListLong(const Tree& t, int th) {
  long entries = 0;
  struct stat st;
  for (int d = 0; d < t.dirs; ++d) {
    if (!t.Mine(th, d)) continue;
    DIR* dir = opendir(t.Dir(d).c_str());
    if (dir == nullptr) Die("opendir " + t.Dir(d));
    while (dirent* e = readdir(dir)) {
      if (std::string(e->d_name) == "." || std::string(e->d_name) == "..") continue;
      if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) Die("lstat " + t.Dir(d));
      entries++;
    }
    closedir(dir);
  }
  return entries;
}

void ReadAll(const Tree& t, int th, size_t size) {
  std::vector<char> buf(size);
  for (int i = 0; i < t.files; ++i) {
    if (!t.Mine(th, i % t.dirs)) continue;
    int fd = open(t.File(i).c_str(), O_RDONLY);
    if (fd < 0) Die("open " + t.File(i));
    if (read(fd, buf.data(), buf.size()) != static_cast<ssize_t>(size)) Die("read " + t.File(i));
    close(fd);
  }
}

void RenameAll(const Tree& t, int th) {
  for (int i = 0; i < t.files; ++i) {
    if (!t.Mine(th, i % t.dirs)) continue;
    if (rename(t.File(i).c_str(), t.File(i, "r").c_str()) != 0) Die("rename " + t.File(i));
  }
}

void UnlinkAll(const Tree& t, int th, const char* prefix) {
  for (int i = 0; i < t.files; ++i) {
    if (!t.Mine(th, i % t.dirs)) continue;
    if (unlink(t.File(i, prefix).c_str()) != 0) Die("unlink " + t.File(i, prefix));
  }
  for (int d = 0; d < t.dirs; ++d) {
    if (t.Mine(th, d) && rmdir(t.Dir(d).c_str()) != 0) Die("rmdir " + t.Dir(d));
  }
}

// Runs body(t) on threads 0..n-1 at once (on this thread alone when n == 1)
// and returns the sum of what they returned.
long OnThreads(int n, const std::function<long(int)>& body) {
  if (n == 1) return body(0);
  std::atomic<long> sum{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) threads.emplace_back([&, t] { sum += body(t); });
  for (auto& th : threads) th.join();
  return sum.load();
}

int Main(int argc, char** argv) {
  Flags flags(argc, argv);
  Tree tree;
  tree.root = flags.Str("dir", "");
  tree.files = static_cast<int>(flags.Int("files", 20000));
  tree.dirs = static_cast<int>(flags.Int("dirs", 100));
  tree.threads = static_cast<int>(flags.Int("threads", 1));
  const size_t size = static_cast<size_t>(flags.Int("size", 1024));
  const std::string pid = flags.Str("pid", "");
  const bool drop = flags.Bool("drop_caches");
  std::set<std::string> phases;
  {
    std::stringstream list(flags.Str(
        "phases", "create,stat,stat_cached,stat_cold,readdir,ls_l,read_cold,rename,unlink"));
    for (std::string p; std::getline(list, p, ',');) phases.insert(p);
  }
  if (tree.root.empty() || tree.files <= 0 || tree.dirs <= 0 || tree.threads <= 0 ||
      tree.threads > tree.dirs) {
    std::fprintf(stderr,
                 "usage: metadata_bench --dir DIR [--files N] [--dirs N] [--size BYTES]"
                 " [--threads N (<= dirs)] [--pid PID] [--drop_caches] [--phases a,b,...]\n");
    return 2;
  }

  bool dropped_ok = drop;
  auto warm = [] {};
  auto cold = [&] {
    if (drop && !DropCaches()) dropped_ok = false;
  };
  bool renamed = false;
  // Runs one phase if selected: prepares (untimed), times `body`, prints ops/s
  // and, with --pid, the daemon's CPU time per operation and its memory.
  auto phase = [&](const std::string& name, const std::function<void()>& prepare,
                   const std::function<long()>& body) {
    if (!phases.count(name)) return;
    prepare();
    const double cpu_before = pid.empty() ? 0 : ProcCpuSeconds(pid);
    Timer timer;
    const long ops = body();
    const double s = timer.Seconds();
    Emit("metadata", name + "_ops_s", ops / s);
    if (!pid.empty()) {
      Emit("daemon_cpu", name + "_us_per_op", (ProcCpuSeconds(pid) - cpu_before) * 1e6 / ops);
      Emit("memory", "rss_kib_after_" + name, ProcStatusKib(pid, "VmRSS"));
    }
  };

  if (!pid.empty()) Emit("memory", "rss_kib_start", ProcStatusKib(pid, "VmRSS"));
  const int nt = tree.threads;
  // Files (or directory entries) owned by the threads: every file.
  auto all_files = [&](const std::function<void(int)>& f) {
    return [&, f] {
      OnThreads(nt, [&](int t) {
        f(t);
        return 0L;
      });
      return long{tree.files};
    };
  };
  auto entries = [&](const char* what, long (*f)(const Tree&, int)) {
    return [&, what, f] {
      const long n = OnThreads(nt, [&](int t) { return f(tree, t); });
      if (n != tree.files) {
        std::fprintf(stderr, "%s saw %ld entries, expected %d\n", what, n, tree.files);
        std::exit(1);
      }
      return n;
    };
  };
  phase("create", warm, all_files([&](int t) { Create(tree, t, size); }));
  phase("stat", warm, all_files([&](int t) { StatAll(tree, t); }));
  phase("stat_cached", warm, all_files([&](int t) { StatAll(tree, t); }));
  phase("stat_cold", cold, all_files([&](int t) { StatAll(tree, t); }));
  phase("readdir", cold, entries("readdir", ReadDirs));
  phase("ls_l", cold, entries("ls_l", ListLong));
  phase("read_cold", cold, all_files([&](int t) { ReadAll(tree, t, size); }));
  phase("rename", warm, [&] {
    all_files([&](int t) { RenameAll(tree, t); })();
    renamed = true;
    return long{tree.files};
  });
  phase("unlink", warm, all_files([&](int t) { UnlinkAll(tree, t, renamed ? "r" : "f"); }));
  if (!pid.empty()) Emit("memory", "vmhwm_kib", ProcStatusKib(pid, "VmHWM"));
  Emit("metadata", "drop_caches", dropped_ok ? 1 : 0);
  return 0;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }

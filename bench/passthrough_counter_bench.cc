// What the passthrough I/O counter (fs/bpf/passthrough_io_counter.h) costs,
// per hook: a counted call, an uncounted system call, and a read that misses
// the page cache, alone and with threads on several CPUs at once.
//
// Mounts the tests' minimal passthrough FUSE server (tests/bpf/
// passthrough_fuse_server.h: every open is a passthrough open of one backing
// file), then, per round and per thread count, runs the same workload twice:
// without a counter ("off") and with one attached to the mount ("on"), a drain
// every --drain_ms as the daemon does. Each thread is pinned to its own CPU
// (round robin over the CPUs this process may use) and opens the file itself,
// all threads on one nodeid unless --files says otherwise. --workload:
//   warm     --calls 4 KiB preads of it, from the page cache (the backing file
//            is written first): the call hooks count each, the page-cache
//            hook none (no byte reaches the volume);
//   syscall  --calls getppid(2): a system call no hook counts, which only the
//            syscall hook runs a program for;
//   cold     --calls passes over the whole 1 MiB file in 128 KiB preads, its
//            backing file's cache dropped (POSIX_FADV_DONTNEED) before each:
//            every hook counts the 1 MiB; the time is per 4 KiB page and is
//            mostly the device's (run it with --threads 1).
// The "on" phase checks that the drains add up to exactly the bytes expected.
//
//   sudo build/bench/passthrough_counter_bench [--threads 1,2] [--calls 500000]
//        [--rounds 3] [--files 1] [--hook syscall|pagecache|fexit|kprobe|auto]
//        [--workload warm|syscall|cold] [--drain_ms 1000] [--dir /var/tmp]
//
// Output (bench_util.h's format), per thread count T and round:
//   counter_off  ns_per_call_tT  ...   the call alone (mean per call, per thread;
//                                      per 4 KiB page with cold)
//   counter_on   ns_per_call_tT  ...   with the counter attached
//   counter_cost ns_per_call_tT  ...   on - off: what the counter adds per call
// and at the end the median of each over the rounds (groups "median_counter_off"...).
// Needs root (mount(2), the BPF program) and FUSE passthrough (Linux 6.9+).
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "common/unique_fd.h"
#include "fs/bpf/passthrough_io_counter.h"
#include "tests/bpf/passthrough_fuse_server.h"

namespace tierfs::bench {
namespace {

constexpr size_t kBlock = 4096;
constexpr off_t kFileSize = 1 << 20;  // 256 blocks, all in the page cache

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::atoi(item.c_str()));
  return values;
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {0};
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

enum class Workload { kWarm, kSyscall, kCold };

constexpr size_t kColdChunk = 128 * 1024;

// One thread's `calls` of `workload` on `fd` (a passthrough open; `backing_fd`
// the backing file, whose cache kCold drops); returns nanoseconds per call
// (per 4 KiB page for kCold).
double RunCalls(Workload workload, int fd, int backing_fd, int64_t calls) {
  std::vector<char> buffer(kColdChunk);
  double seconds = 0;
  int64_t units = calls;
  switch (workload) {
    case Workload::kWarm: {
      Timer timer;
      for (int64_t i = 0; i < calls; i++) {
        off_t offset = static_cast<off_t>((i * kBlock) % kFileSize);
        if (pread(fd, buffer.data(), kBlock, offset) != static_cast<ssize_t>(kBlock)) {
          std::perror("pread");
          std::exit(1);
        }
      }
      seconds = timer.Seconds();
      break;
    }
    case Workload::kSyscall: {
      Timer timer;
      for (int64_t i = 0; i < calls; i++) (void)getppid();
      seconds = timer.Seconds();
      break;
    }
    case Workload::kCold:
      units = calls * (kFileSize / kBlock);
      for (int64_t i = 0; i < calls; i++) {
        if (posix_fadvise(backing_fd, 0, 0, POSIX_FADV_DONTNEED) != 0) std::exit(1);
        Timer timer;  // the drop itself is not the read's
        for (off_t offset = 0; offset < kFileSize; offset += kColdChunk) {
          if (pread(fd, buffer.data(), kColdChunk, offset) != static_cast<ssize_t>(kColdChunk)) {
            std::perror("pread");
            std::exit(1);
          }
        }
        seconds += timer.Seconds();
      }
      break;
  }
  return seconds * 1e9 / static_cast<double>(units);
}

// `threads` pinned threads, each making `calls` of `workload` on its own open
// of one of `files` files; returns the mean nanoseconds per call over the threads.
double RunPhase(const std::string& mount_point, int backing_fd, Workload workload, int threads,
                int files, int64_t calls) {
  static const std::vector<int> cpus = AllowedCpus();
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> ns(threads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++) {
    workers.emplace_back([&, t] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpus[t % cpus.size()], &set);
      if (sched_setaffinity(0, sizeof(set), &set) != 0) std::perror("sched_setaffinity");
      std::string path = mount_point + "/f" + std::to_string(t % files);
      UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
      if (fd.get() < 0) {
        std::perror(path.c_str());
        std::exit(1);
      }
      ready++;
      while (!go.load()) {
      }
      ns[t] = RunCalls(workload, fd.get(), backing_fd, calls);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  go = true;
  for (auto& worker : workers) worker.join();
  double sum = 0;
  for (double value : ns) sum += value;
  return sum / threads;
}

// The bytes the counter must report for `threads` x `calls` of `workload`.
uint64_t ExpectedBytes(Workload workload, PassthroughIoHook hook, int threads, int64_t calls) {
  const uint64_t all = static_cast<uint64_t>(threads) * static_cast<uint64_t>(calls);
  switch (workload) {
    case Workload::kWarm:
      return hook == PassthroughIoHook::kPageCache ? 0 : all * kBlock;
    case Workload::kSyscall:
      return 0;
    case Workload::kCold:
      return all * static_cast<uint64_t>(kFileSize);
  }
  return 0;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int Main(int argc, char** argv) {
  Flags flags(argc, argv);
  std::vector<int> thread_counts = ParseList(flags.Str("threads", "1,2"));
  int64_t calls = flags.Int("calls", 500000);
  int rounds = static_cast<int>(flags.Int("rounds", 3));
  int files = std::clamp(static_cast<int>(flags.Int("files", 1)), 1,
                         PassthroughFuseServer::kFiles);
  int drain_ms = static_cast<int>(flags.Int("drain_ms", 1000));
  std::string hook_name = flags.Str("hook", "syscall");
  std::optional<PassthroughIoHook> parsed_hook = ParsePassthroughIoHook(hook_name);
  if (!parsed_hook) {
    std::fprintf(stderr, "--hook must be pagecache, fexit, kprobe, syscall or auto, got \"%s\"\n",
                 hook_name.c_str());
    return 2;
  }
  PassthroughIoHook hook = *parsed_hook;
  std::string workload_name = flags.Str("workload", "warm");
  Workload workload = workload_name == "cold"      ? Workload::kCold
                      : workload_name == "syscall" ? Workload::kSyscall
                                                   : Workload::kWarm;
  if (workload_name != "warm" && workload_name != "cold" && workload_name != "syscall") {
    std::fprintf(stderr, "--workload must be warm, syscall or cold, got \"%s\"\n",
                 workload_name.c_str());
    return 2;
  }

  std::string dir = flags.Str("dir", "/var/tmp") + "/tierfs-counter-bench.XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  std::string mount_point = dir + "/mnt", backing = dir + "/backing";
  mkdir(mount_point.c_str(), 0755);
  {
    UniqueFd fd(open(backing.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644));
    std::vector<char> block(kBlock, 'x');
    for (off_t offset = 0; offset < kFileSize; offset += kBlock) {
      if (pwrite(fd.get(), block.data(), kBlock, offset) != static_cast<ssize_t>(kBlock)) {
        std::perror("pwrite");
        return 1;
      }
    }
  }
  int status = 0;
  {
    auto server = PassthroughFuseServer::Mount(mount_point, backing);
    if (!server.ok()) {
      std::fprintf(stderr, "mount: %s\n", server.status().ToString().c_str());
      std::filesystem::remove_all(dir);
      return 1;
    }
    struct stat st {};
    stat(mount_point.c_str(), &st);  // answered once INIT is done
    UniqueFd backing_fd(open(backing.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat backing_st {};
    fstat(backing_fd.get(), &backing_st);
    std::map<std::string, std::vector<double>> results;
    for (int round = 0; round < rounds && status == 0; round++) {
      for (int threads : thread_counts) {
        std::string suffix = "_t" + std::to_string(threads);
        double off = RunPhase(mount_point, backing_fd.get(), workload, threads, files, calls);
        // The readers are this process's threads: the page-cache hook must
        // not take them for the daemon.
        auto counter = PassthroughIoCounter::Start(
            st.st_dev, {.hook = hook, .ignore_own_process = false});
        if (!counter.ok()) {
          std::fprintf(stderr, "counter: %s\n", counter.status().ToString().c_str());
          status = 1;
          break;
        }
        // Every file of the server is backed by the one backing file: it is
        // counted as the first's (the only one with --files 1).
        if (Status watched = (*counter)->WatchBackingFile(
                backing_st.st_dev, backing_st.st_ino, PassthroughFuseServer::kFileNodeid);
            !watched.ok()) {
          std::fprintf(stderr, "counter: %s\n", watched.ToString().c_str());
          status = 1;
          break;
        }
        std::atomic<bool> stop{false};
        uint64_t counted = 0;
        std::thread drainer([&] {
          while (!stop.load()) {
            for (int waited = 0; waited < drain_ms && !stop.load(); waited += 10) {
              std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            for (const auto& count : (*counter)->Drain()) counted += count.read_bytes;
          }
        });
        double on = RunPhase(mount_point, backing_fd.get(), workload, threads, files, calls);
        stop = true;
        drainer.join();
        for (const auto& count : (*counter)->Drain()) counted += count.read_bytes;
        const uint64_t expected = ExpectedBytes(workload, (*counter)->hook(), threads, calls);
        if (counted != expected || (*counter)->dropped() != 0) {
          std::fprintf(stderr, "counted %llu bytes read of %llu (dropped %llu)\n",
                       static_cast<unsigned long long>(counted),
                       static_cast<unsigned long long>(expected),
                       static_cast<unsigned long long>((*counter)->dropped()));
          status = 1;
        }
        std::printf("counter_off\tns_per_call%s\t%.0f\n", suffix.c_str(), off);
        std::printf("counter_on\tns_per_call%s\t%.0f\n", suffix.c_str(), on);
        std::printf("counter_cost\tns_per_call%s\t%.0f\n", suffix.c_str(), on - off);
        std::fflush(stdout);
        results["counter_off\tns_per_call" + suffix].push_back(off);
        results["counter_on\tns_per_call" + suffix].push_back(on);
        results["counter_cost\tns_per_call" + suffix].push_back(on - off);
      }
    }
    for (const auto& [name, values] : results) {
      std::printf("median_%s\t%.0f\n", name.c_str(), Median(values));
    }
  }
  std::filesystem::remove_all(dir);
  return status;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }

// What the passthrough I/O counter (fs/bpf/passthrough_io_counter.h) costs a
// counted call, alone and with threads on several CPUs counting at once.
//
// Mounts the tests' minimal passthrough FUSE server (tests/bpf/
// passthrough_fuse_server.h: every open is a passthrough open of one backing
// file), then, per round and per thread count, runs the same reads twice:
// without a counter ("off") and with one attached to the mount ("on"), a drain
// every --drain_ms as the daemon does. Each thread is pinned to its own CPU
// (round robin over the CPUs this process may use), opens the file itself and
// makes --calls 4 KiB preads of it (page cache: the backing file is written
// first), all threads on one nodeid unless --files says otherwise. The "on"
// phase checks that the drains add up to exactly the reads made.
//
//   sudo build/bench/passthrough_counter_bench [--threads 1,2] [--calls 500000]
//        [--rounds 3] [--files 1] [--hook syscall] [--drain_ms 1000] [--dir /var/tmp]
//
// Output (bench_util.h's format), per thread count T and round:
//   counter_off  ns_per_pread_tT  ...   the read alone (mean per call, per thread)
//   counter_on   ns_per_pread_tT  ...   the read counted
//   counter_cost ns_per_call_tT   ...   on - off: what the count adds per call
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

// `threads` pinned threads, each making `calls` 4 KiB preads of its own open of
// one of `files` files; returns the mean nanoseconds per call over the threads.
double ReadPhase(const std::string& mount_point, int threads, int files, int64_t calls) {
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
      std::vector<char> buffer(kBlock);
      ready++;
      while (!go.load()) {
      }
      Timer timer;
      for (int64_t i = 0; i < calls; i++) {
        off_t offset = static_cast<off_t>((i * kBlock) % kFileSize);
        if (pread(fd.get(), buffer.data(), kBlock, offset) != static_cast<ssize_t>(kBlock)) {
          std::perror("pread");
          std::exit(1);
        }
      }
      ns[t] = timer.Seconds() * 1e9 / static_cast<double>(calls);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  go = true;
  for (auto& worker : workers) worker.join();
  double sum = 0;
  for (double value : ns) sum += value;
  return sum / threads;
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
  PassthroughIoHook hook = hook_name == "fexit"    ? PassthroughIoHook::kFexit
                           : hook_name == "kprobe" ? PassthroughIoHook::kKprobe
                           : hook_name == "auto"   ? PassthroughIoHook::kAuto
                                                   : PassthroughIoHook::kSyscall;

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
    std::map<std::string, std::vector<double>> results;
    for (int round = 0; round < rounds && status == 0; round++) {
      for (int threads : thread_counts) {
        std::string suffix = "_t" + std::to_string(threads);
        double off = ReadPhase(mount_point, threads, files, calls);
        auto counter = PassthroughIoCounter::Start(st.st_dev, {.hook = hook});
        if (!counter.ok()) {
          std::fprintf(stderr, "counter: %s\n", counter.status().ToString().c_str());
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
            for (const auto& count : (*counter)->Drain()) counted += count.read_ops;
          }
        });
        double on = ReadPhase(mount_point, threads, files, calls);
        stop = true;
        drainer.join();
        for (const auto& count : (*counter)->Drain()) counted += count.read_ops;
        uint64_t expected = static_cast<uint64_t>(threads) * static_cast<uint64_t>(calls);
        if (counted != expected || (*counter)->dropped() != 0) {
          std::fprintf(stderr, "counted %llu reads of %llu (dropped %llu)\n",
                       static_cast<unsigned long long>(counted),
                       static_cast<unsigned long long>(expected),
                       static_cast<unsigned long long>((*counter)->dropped()));
          status = 1;
        }
        std::printf("counter_off\tns_per_pread%s\t%.0f\n", suffix.c_str(), off);
        std::printf("counter_on\tns_per_pread%s\t%.0f\n", suffix.c_str(), on);
        std::printf("counter_cost\tns_per_call%s\t%.0f\n", suffix.c_str(), on - off);
        std::fflush(stdout);
        results["counter_off\tns_per_pread" + suffix].push_back(off);
        results["counter_on\tns_per_pread" + suffix].push_back(on);
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

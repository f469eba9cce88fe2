// Small helpers shared by the hand-run benchmarks in bench/: flag parsing
// ("--name=value" or "--name value"), a wall-clock timer, memory and CPU
// readings (getrusage, /proc/PID/status, /proc/PID/stat), dropping the page
// cache, and the one output format.
//
// Output: every result is one tab-separated line "group<TAB>metric<TAB>value",
// which bench/run.sh prefixes with the configuration (native, tierfs, ...) and
// collects into results.tsv. Single-threaded benchmarks; nothing here is
// thread-safe.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

namespace tierfs::bench {

// Flags: "--key=value" or "--key value"; a bare "--key" means "true".
class Flags {
 public:
  Flags(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.rfind("--", 0) != 0) {
        std::fprintf(stderr, "unexpected argument: %s\n", argv[i]);
        std::exit(2);
      }
      arg = arg.substr(2);
      const size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        values_[arg.substr(0, eq)] = arg.substr(eq + 1);
      } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
        values_[arg] = argv[++i];
      } else {
        values_[arg] = "true";
      }
    }
  }
  std::string Str(const std::string& key, const std::string& def) const {
    auto it = values_.find(key);
    return it == values_.end() ? def : it->second;
  }
  int64_t Int(const std::string& key, int64_t def) const {
    auto it = values_.find(key);
    return it == values_.end() ? def : std::strtoll(it->second.c_str(), nullptr, 10);
  }
  double Double(const std::string& key, double def) const {
    auto it = values_.find(key);
    return it == values_.end() ? def : std::strtod(it->second.c_str(), nullptr);
  }
  bool Bool(const std::string& key) const {
    auto it = values_.find(key);
    return it != values_.end() && it->second != "false" && it->second != "0";
  }

 private:
  std::map<std::string, std::string> values_;
};

// Seconds since construction (or the last Restart()), steady clock.
class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  void Restart() { start_ = std::chrono::steady_clock::now(); }
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Peak resident set of this process so far, in KiB (getrusage ru_maxrss).
inline long PeakRssKib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// A "VmRSS"-style field of /proc/PID/status in KiB ("self" for this
// process); -1 when the process or the field is not there.
inline long ProcStatusKib(const std::string& pid, const std::string& field) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0)
      return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  }
  return -1;
}

// CPU time (user + system, all threads) that process `pid` has used so far,
// in seconds, from /proc/PID/stat (clock-tick resolution); -1 if unreadable.
inline double ProcCpuSeconds(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::stoull(field);
    if (i == 15) {
      stime = std::stoull(field);
      break;
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Drops the page, dentry and inode caches (root only). Returns false when
// not permitted, in which case "cold" phases are really warm: the caller says so.
inline bool DropCaches() {
  ::sync();  // only clean pages are dropped
  std::FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("3\n", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

inline void Emit(const std::string& group, const std::string& metric, double value) {
  std::printf("%s\t%s\t%.6g\n", group.c_str(), metric.c_str(), value);
  std::fflush(stdout);
}

// Aborts the benchmark with the failing call and errno: a benchmark that
// silently skips errors measures nothing.
[[noreturn]] inline void Die(const std::string& what) {
  std::perror(what.c_str());
  std::exit(1);
}

}  // namespace tierfs::bench

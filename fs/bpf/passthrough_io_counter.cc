#include "fs/bpf/passthrough_io_counter.h"

#include <unistd.h>

#include "fs/bpf/kernel_dev.h"

#if TIERFS_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/log.h"
#include "common/mutex.h"
#include "fs/bpf/passthrough_io_shared.h"
#include "passthrough_io.skel.h"  // generated in the build directory (CMakeLists.txt)

namespace tierfs {

// A per-CPU map's lookup from user space fills one value per possible CPU,
// each padded to 8 bytes: these two need no padding.
static_assert(sizeof(tierfs_passthrough_counts) % 8 == 0);
static_assert(sizeof(tierfs_passthrough_cpu_state) % 8 == 0);

struct PassthroughIoCounter::Impl {
  passthrough_io* skel = nullptr;
  int cpus = 0;    // possible CPUs: the values a per-CPU map's lookup returns
  Mutex drain_mu;  // one Drain at a time: the double buffering assumes it
  ~Impl() { passthrough_io__destroy(skel); }

  // Every CPU's bookkeeping (cpu_state), or an empty vector when the lookup
  // fails (never with the map loaded).
  std::vector<tierfs_passthrough_cpu_state> CpuStates() const {
    std::vector<tierfs_passthrough_cpu_state> states(cpus);
    uint32_t only = 0;
    if (bpf_map__lookup_elem(skel->maps.cpu_state, &only, sizeof(only), states.data(),
                             states.size() * sizeof(states[0]), 0) != 0) {
      return {};
    }
    return states;
  }
};

namespace {

// libbpf's messages go to the daemon's log, except during Start, where its
// warnings are kept for the Status message: "failed to find kernel BTF type
// ID of 'fuse_passthrough_read_iter'" says more than the errno alone.
thread_local std::string* libbpf_messages = nullptr;

int LibbpfPrint(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[512];
  int n = vsnprintf(line, sizeof(line), format, args);
  std::string text(line, n < 0 ? 0 : std::min<size_t>(n, sizeof(line) - 1));
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (text.starts_with("libbpf: ")) text.erase(0, 8);
  if (libbpf_messages != nullptr) {
    if (level == LIBBPF_WARN) {
      if (!libbpf_messages->empty()) *libbpf_messages += "; ";
      *libbpf_messages += text;
    }
  } else if (level == LIBBPF_WARN) {
    LogWarning("libbpf: {}", text);
  }
  return 0;
}

void InstallLibbpfPrint() {
  static std::once_flag once;
  std::call_once(once, [] { libbpf_set_print(LibbpfPrint); });
}

// Whether the effective set holds what loading a tracing program takes:
// CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN.
bool HasBpfCapabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
  return has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON));
}

// The Status for a libbpf failure `err` (a negative errno) while `step`ping
// the programs of `hook`, with libbpf's own words.
Status LoadError(int err, PassthroughIoHook hook, const char* step, const std::string& messages) {
  int code = -err;
  std::string why;
  if (code == EPERM || code == EACCES) {
    code = EPERM;
    why = HasBpfCapabilities()
              ? "refused by the kernel although CAP_BPF and CAP_PERFMON are effective (a "
                "security policy, e.g. an LSM, that denies this kind of BPF program)"
              : "loading a BPF tracing program needs CAP_BPF and CAP_PERFMON (or "
                "CAP_SYS_ADMIN) in the effective set";
  } else if (code == ESRCH || code == ENOENT) {
    code = ENOENT;
    why = "the kernel lacks the FUSE passthrough functions or struct fuse_inode in its BTF "
          "(FUSE passthrough needs Linux 6.9 and CONFIG_FUSE_PASSTHROUGH)";
  } else {
    why = "libbpf failed";
  }
  std::string message =
      std::string(PassthroughIoHookName(hook)) + " hook: " + step + ": " + why;
  if (!messages.empty()) message += " (libbpf: " + messages + ")";
  return Status::Error(code, message);
}

// Opens, loads and attaches the skeleton with one set of programs (`hook`:
// not kAuto), the other sets left unloaded.
Result<std::unique_ptr<PassthroughIoCounter::Impl>> LoadAndAttach(
    uint32_t kernel_dev, PassthroughIoHook hook, const PassthroughIoCounterOptions& options) {
  const uint32_t max_nodeids = options.max_nodeids;
  if (std::find(options.refused.begin(), options.refused.end(), hook) != options.refused.end()) {
    return Status::Error(EPERM, std::string(PassthroughIoHookName(hook)) +
                                    " hook: refused by the test seam (TIERFS_TEST_REFUSE_HOOKS)");
  }
  if (hook == PassthroughIoHook::kPageCache && !options.pagecache_unusable.empty()) {
    return Status::Error(EOPNOTSUPP, "pagecache hook: " + options.pagecache_unusable);
  }
  std::string messages;
  libbpf_messages = &messages;
  struct Restore {
    ~Restore() { libbpf_messages = nullptr; }
  } restore;

#if !defined(__x86_64__)
  // The program knows only x86-64's system call numbers and registers.
  if (hook == PassthroughIoHook::kSyscall) {
    return Status::Error(ENOSYS, "syscall hook: x86-64 only");
  }
#endif
  // libbpf would fall back to tracefs and fail with a misleading ENOENT.
  if (hook == PassthroughIoHook::kKprobe &&
      access("/sys/bus/event_source/devices/kprobe/type", R_OK) != 0) {
    return Status::Error(ENOSYS, "kprobe hook: the kernel has no kprobes (CONFIG_KPROBES)");
  }
  auto impl = std::make_unique<PassthroughIoCounter::Impl>();
  impl->cpus = libbpf_num_possible_cpus();
  if (impl->cpus <= 0) return LoadError(impl->cpus < 0 ? impl->cpus : -EINVAL, hook,
                                        "count the possible CPUs", messages);
  impl->skel = passthrough_io__open();
  if (impl->skel == nullptr) return LoadError(-errno, hook, "open", messages);
  impl->skel->rodata->target_dev = kernel_dev;
  bpf_map__set_max_entries(impl->skel->maps.counts_a, max_nodeids);
  bpf_map__set_max_entries(impl->skel->maps.counts_b, max_nodeids);
  auto& p = impl->skel->progs;
  for (bpf_program* prog : {p.fexit_read_iter, p.fexit_write_iter, p.fexit_splice_read,
                            p.fexit_splice_write}) {
    bpf_program__set_autoload(prog, hook == PassthroughIoHook::kFexit);
  }
  for (bpf_program* prog : {p.kprobe_read_iter, p.kretprobe_read_iter, p.kprobe_write_iter,
                            p.kretprobe_write_iter, p.kprobe_splice_read, p.kretprobe_splice_read,
                            p.kprobe_splice_write, p.kretprobe_splice_write}) {
    bpf_program__set_autoload(prog, hook == PassthroughIoHook::kKprobe);
  }
  bpf_program__set_autoload(p.syscall_exit, hook == PassthroughIoHook::kSyscall);
  bpf_program__set_autoload(p.pagecache_add, hook == PassthroughIoHook::kPageCache);
  bpf_program__set_autoload(p.pagecache_dirty, hook == PassthroughIoHook::kPageCache);
  // 0 is no process's tgid (the idle tasks' is 0, and they make no I/O).
  impl->skel->rodata->daemon_tgid =
      options.ignore_own_process ? static_cast<uint32_t>(getpid()) : 0;
  impl->skel->rodata->page_size = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
  if (int err = passthrough_io__load(impl->skel); err != 0) {
    return LoadError(err, hook, "load", messages);
  }
  if (int err = passthrough_io__attach(impl->skel); err != 0) {
    return LoadError(err, hook, "attach", messages);
  }
  return impl;
}

}  // namespace

Result<std::unique_ptr<PassthroughIoCounter>> PassthroughIoCounter::Start(
    dev_t mount_dev, const PassthroughIoCounterOptions& options) {
  PassthroughIoHook hook = options.hook;
  if (options.max_nodeids == 0) {
    return Status::Invalid("passthrough I/O counter: max_nodeids must be at least 1");
  }
  InstallLibbpfPrint();
  // Checked first so that the common case has a plain answer; libbpf needs it
  // for CO-RE and to find the attach points.
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
    return Status::Error(ENOSYS,
                         "passthrough I/O counter: the kernel has no BTF (/sys/kernel/btf/vmlinux; "
                         "CONFIG_DEBUG_INFO_BTF)");
  }
  uint32_t kernel_dev = KernelDevFromUserDev(mount_dev);
  if (hook != PassthroughIoHook::kAuto) {
    auto impl = LoadAndAttach(kernel_dev, hook, options);
    if (!impl.ok()) {
      return Status::Error(impl.status().code(),
                           "passthrough I/O counter: " + impl.status().message());
    }
    return std::unique_ptr<PassthroughIoCounter>(
        new PassthroughIoCounter(std::move(impl).value(), hook));
  }
  // The cheapest first. Each failure is kept for the log: a daemon that ends
  // up on the syscall hook should say why the others were refused.
  std::string failures;
  int code = 0;
  for (PassthroughIoHook candidate :
       {PassthroughIoHook::kPageCache, PassthroughIoHook::kFexit, PassthroughIoHook::kKprobe,
        PassthroughIoHook::kSyscall}) {
    if (candidate == PassthroughIoHook::kSyscall && !options.allow_syscall_hook) {
      if (!failures.empty()) failures += "; ";
      failures += "syscall hook: not allowed here (it costs every system call of the machine)";
      code = ENOSYS;
      continue;
    }
    auto impl = LoadAndAttach(kernel_dev, candidate, options);
    if (impl.ok()) {
      if (!failures.empty()) {
        LogInfo("passthrough I/O counter: counting with the {} hook; refused: {}",
                PassthroughIoHookName(candidate), failures);
      }
      return std::unique_ptr<PassthroughIoCounter>(
          new PassthroughIoCounter(std::move(impl).value(), candidate));
    }
    if (!failures.empty()) failures += "; ";
    failures += impl.status().message();  // names the hook
    code = impl.status().code();
  }
  return Status::Error(code, "passthrough I/O counter: " + failures);
}

std::vector<PassthroughIoCount> PassthroughIoCounter::Drain() {
  MutexLock lock(impl_->drain_mu);
  auto* bss = impl_->skel->bss;  // memory-mapped: shared with the program
  uint32_t retired = __atomic_load_n(&bss->generation, __ATOMIC_RELAXED) & 1;
  // Sequentially consistent store, then a full fence, then every CPU's
  // in_flight: the other half of the program's Enter (increment its CPU's
  // in_flight, then re-read generation). For each program one of the two sees
  // the other, so once every CPU's count for the retired map has been read as
  // 0 no program writes to that map any more. The kernel reads the per-CPU
  // values with plain loads inside the lookup: the fence, not the store alone
  // (a release store on arm64), keeps them after the store.
  __atomic_store_n(&bss->generation, bss->generation + 1, __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  for (;;) {
    auto states = impl_->CpuStates();
    // A CPU's count never drops below its programs still inside (they enter
    // and leave on it), so a sum of 0 means 0 on every CPU.
    uint64_t in_flight = states.empty() ? 1 : 0;
    for (const auto& state : states) in_flight += state.in_flight[retired];
    if (in_flight == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      LogWarning("passthrough I/O counter: BPF programs still writing after 100 ms; "
                 "their counts come with a later drain");
      return {};
    }
    sched_yield();
  }

  int fd = bpf_map__fd(retired ? impl_->skel->maps.counts_b : impl_->skel->maps.counts_a);
  // Keys first, then take each one out: deleting while walking with
  // get_next_key could restart the walk. Nothing else writes to this map now.
  std::vector<uint64_t> nodeids;
  uint64_t key = 0;
  uint64_t* previous = nullptr;
  while (bpf_map_get_next_key(fd, previous, &key) == 0) {
    nodeids.push_back(key);
    previous = &nodeids.back();
  }
  std::vector<PassthroughIoCount> result;
  result.reserve(nodeids.size());
  std::vector<tierfs_passthrough_counts> per_cpu(impl_->cpus);  // one value a CPU
  for (uint64_t nodeid : nodeids) {
    if (bpf_map_lookup_and_delete_elem(fd, &nodeid, per_cpu.data()) != 0) continue;
    PassthroughIoCount count{.nodeid = nodeid};
    for (const auto& counts : per_cpu) {
      count.read_bytes += counts.read_bytes;
      count.read_ops += counts.read_ops;
      count.write_bytes += counts.write_bytes;
      count.write_ops += counts.write_ops;
    }
    result.push_back(count);
  }
  return result;
}

Status PassthroughIoCounter::WatchBackingFile(dev_t dev, ino_t ino, uint64_t nodeid) {
  if (hook_ != PassthroughIoHook::kPageCache) return Status::Ok();
  tierfs_backing_key key{.ino = ino, .dev = KernelDevFromUserDev(dev), .pad = 0};
  if (bpf_map__update_elem(impl_->skel->maps.backing_files, &key, sizeof(key), &nodeid,
                           sizeof(nodeid), BPF_ANY) != 0) {
    const int err = errno == E2BIG ? ENOSPC : errno;
    return Status::Error(err, "passthrough I/O counter: backing file " + std::to_string(ino) +
                                  " of inode " + std::to_string(nodeid) + ": " +
                                  (err == ENOSPC ? "the map of backing files is full"
                                                 : std::strerror(err)));
  }
  return Status::Ok();
}

void PassthroughIoCounter::ForgetBackingFile(dev_t dev, ino_t ino) {
  if (hook_ != PassthroughIoHook::kPageCache) return;
  tierfs_backing_key key{.ino = ino, .dev = KernelDevFromUserDev(dev), .pad = 0};
  bpf_map__delete_elem(impl_->skel->maps.backing_files, &key, sizeof(key), 0);
}

uint64_t PassthroughIoCounter::dropped() const {
  uint64_t dropped = 0;
  for (const auto& state : impl_->CpuStates()) dropped += state.dropped;
  return dropped;
}

}  // namespace tierfs

#else  // !TIERFS_BPF

namespace tierfs {

struct PassthroughIoCounter::Impl {};

Result<std::unique_ptr<PassthroughIoCounter>> PassthroughIoCounter::Start(
    dev_t, const PassthroughIoCounterOptions&) {
  return Status::Error(ENOSYS,
                       "passthrough I/O counter: tierfs was built without BPF (TIERFS_BPF off: "
                       "libbpf-dev, bpftool or clang missing at build time)");
}

std::vector<PassthroughIoCount> PassthroughIoCounter::Drain() { return {}; }
Status PassthroughIoCounter::WatchBackingFile(dev_t, ino_t, uint64_t) { return Status::Ok(); }
void PassthroughIoCounter::ForgetBackingFile(dev_t, ino_t) {}
uint64_t PassthroughIoCounter::dropped() const { return 0; }

}  // namespace tierfs

#endif  // TIERFS_BPF

namespace tierfs {

PassthroughIoCounter::PassthroughIoCounter(std::unique_ptr<Impl> impl, PassthroughIoHook hook)
    : impl_(std::move(impl)), hook_(hook) {}
PassthroughIoCounter::~PassthroughIoCounter() = default;

const char* PassthroughIoHookName(PassthroughIoHook hook) {
  switch (hook) {
    case PassthroughIoHook::kPageCache:
      return "pagecache";
    case PassthroughIoHook::kFexit:
      return "fexit";
    case PassthroughIoHook::kKprobe:
      return "kprobe";
    case PassthroughIoHook::kSyscall:
      return "syscall";
    case PassthroughIoHook::kAuto:
      break;
  }
  return "auto";
}

std::optional<PassthroughIoHook> ParsePassthroughIoHook(std::string_view name) {
  for (PassthroughIoHook hook : {PassthroughIoHook::kAuto, PassthroughIoHook::kPageCache,
                                 PassthroughIoHook::kFexit, PassthroughIoHook::kKprobe,
                                 PassthroughIoHook::kSyscall}) {
    if (name == PassthroughIoHookName(hook)) return hook;
  }
  return std::nullopt;
}

}  // namespace tierfs

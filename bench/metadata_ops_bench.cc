// metadata_ops_bench: meta::Metadata's creates and unlinks timed without FUSE,
// so that the cost of one namespace change under the database lock can be
// profiled (perf record -g) and compared between builds.
//
//   metadata_ops_bench [--dir /dev/shm] [--files 20000] [--threads 1]
//                      [--commit_ms 5] [--cached_dentries 262144]
//
// Formats a database under --dir (a tmpfs by default, so no disk is timed),
// opens it with group commit every --commit_ms, makes one directory per
// thread (mkdir, so the entry cache knows it whole, as the daemon's do), and
// runs two phases, each in --threads threads at once, each in its own
// directory: --files creates (a regular file of 1 KiB recorded size), then
// their unlinks. Output (bench_util.h): "metadata_ops<TAB><phase>_us_per_op
// <TAB>us" (wall time per operation, all threads together) and
// "metadata_ops<TAB><phase>_ops_s<TAB>rate", and the lock's holds per
// operation. Everything it made is removed at the end.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "common/clock.h"
#include "meta/metadata.h"

namespace tierfs::bench {
namespace {

int Main(int argc, char** argv) {
  Flags flags(argc, argv);
  const std::string base = flags.Str("dir", "/dev/shm");
  const int files = std::stoi(flags.Str("files", "20000"));
  const int threads = std::stoi(flags.Str("threads", "1"));
  const int commit_ms = std::stoi(flags.Str("commit_ms", "5"));
  std::string tmpl = base + "/metadata_ops_bench.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = tmpl;
  const std::string db_path = dir + "/meta.db";
  meta::Volume volume;
  volume.name = "vol1";
  volume.path = dir;
  volume.placement_class = "ssd";
  volume.media_type = "ssd";
  volume.media_type_source = "detected";
  volume.role = "metadataok";
  meta::FsInfo info;
  info.uuid = "bench";
  info.name = "bench";
  info.iostat_bucket_seconds = 3600;
  if (Status st = meta::Metadata::Format(db_path, info, {volume}, 0, 0, SystemClock::Get());
      !st.ok()) {
    std::fprintf(stderr, "format: %s\n", st.ToString().c_str());
    return 1;
  }
  int rc = 0;
  {
    meta::MetadataOptions options;
    options.cached_dentries = std::stoul(flags.Str("cached_dentries", "262144"));
    auto opened = meta::Metadata::Open(db_path, options);
    if (!opened.ok()) {
      std::fprintf(stderr, "open: %s\n", opened.status().ToString().c_str());
      return 1;
    }
    std::unique_ptr<meta::Metadata> meta = std::move(opened).value();
    meta->StartGroupCommit(std::chrono::milliseconds(commit_ms), {});
    std::vector<uint64_t> dirs;
    for (int t = 0; t < threads; ++t) {
      meta::Inode proto;
      proto.mode = S_IFDIR | 0755;
      auto made = meta->Create(meta::kRootIno, "d" + std::to_string(t), proto);
      if (!made.ok()) {
        std::fprintf(stderr, "mkdir: %s\n", made.status().ToString().c_str());
        return 1;
      }
      dirs.push_back(made->ino);
    }
    std::atomic<int> failures{0};
    auto phase = [&](const char* name, auto op) {
      const meta::LockWaits before = meta->LockWaits();
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::thread> workers;
      for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
          for (int k = 0; k < files; ++k) {
            if (!op(dirs[t], "f" + std::to_string(k))) failures++;
          }
        });
      }
      for (auto& w : workers) w.join();
      if (Status st = meta->Sync(); !st.ok()) failures++;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const meta::LockWaits after = meta->LockWaits();
      const double ops = static_cast<double>(files) * threads;
      Emit("metadata_ops", std::string(name) + "_us_per_op", seconds * 1e6 / ops);
      Emit("metadata_ops", std::string(name) + "_ops_s", ops / seconds);
      Emit("metadata_ops", std::string(name) + "_lock_holds_per_op",
             static_cast<double>(after.taken - before.taken) / ops);
      Emit("metadata_ops", std::string(name) + "_lock_waited_us_per_op",
             static_cast<double>(after.nanos - before.nanos) / 1e3 / ops);
    };
    phase("create", [&](uint64_t parent, const std::string& name) {
      meta::Inode proto;
      proto.mode = S_IFREG | 0644;
      proto.volume_id = 1;
      proto.size = 1024;
      return meta->Create(parent, name, proto).ok();
    });
    phase("unlink", [&](uint64_t parent, const std::string& name) {
      return meta->Unlink(parent, name).ok();
    });
    if (failures > 0) {
      std::fprintf(stderr, "%d operations failed\n", failures.load());
      rc = 1;
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((db_path + suffix).c_str());
  rmdir(dir.c_str());
  return rc;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }

// skew_bench: a skewed random-read workload over many small files, for the
// tiering benchmark (the NetApp Hybrid Aggregates measure: the share of I/O
// served by the SSD tier).
//
//   skew_bench --mode create --dir DIR [--files 50000] [--dirs 100] [--size 4096]
//   skew_bench --mode read   --dir DIR [--files 50000] [--dirs 100] [--size 4096]
//              [--reads 100000] [--hot_fraction 0.1] [--hot_share 0.9]
//              [--seed 1] [--out FILE.tsv]
//
// The hot set is every (1/hot_fraction)-th file, spread over all directories.
// Each read picks a hot file with probability --hot_share (else a cold one),
// uniformly within the set, and reads 4 KiB at a random aligned offset with
// open(O_DIRECT) / pread / close, so every read reaches the file system and
// its volumes instead of the page cache (a cached read costs no device time
// and earns no heat, design.md). If O_DIRECT is refused, the read is
// followed by posix_fadvise(DONTNEED) instead; the output says which.
//
// --out gets one line per file that was read: "path<TAB>hot<TAB>bytes<TAB>reads".
// stdout (bench_util.h): "skew<TAB>metric<TAB>value".
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"

namespace tierfs::bench {
namespace {

constexpr size_t kBlock = 4096;

std::string Path(const std::string& root, int dirs, int i) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "/s%03d/h%06d", i % dirs, i);
  return root + buf;
}

void CreateFiles(const std::string& root, int files, int dirs, size_t size) {
  for (int d = 0; d < dirs; ++d) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "/s%03d", d);
    if (mkdir((root + buf).c_str(), 0755) != 0) Die("mkdir " + root + buf);
  }
  std::string data(size, 'h');
  for (int i = 0; i < files; ++i) {
    const std::string path = Path(root, dirs, i);
    int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0) Die("create " + path);
    if (write(fd, data.data(), size) != static_cast<ssize_t>(size)) Die("write " + path);
    if (close(fd) != 0) Die("close " + path);
  }
}

int Main(int argc, char** argv) {
  Flags flags(argc, argv);
  const std::string mode = flags.Str("mode", "");
  const std::string root = flags.Str("dir", "");
  const int files = static_cast<int>(flags.Int("files", 50000));
  const int dirs = static_cast<int>(flags.Int("dirs", 100));
  const size_t size = static_cast<size_t>(flags.Int("size", 4096));
  if (root.empty() || files <= 0 || dirs <= 0 || size < kBlock || size % kBlock != 0 ||
      (mode != "create" && mode != "read")) {
    std::fprintf(stderr,
                 "usage: skew_bench --mode create|read --dir DIR [--files N] [--dirs N]"
                 " [--size BYTES, a multiple of 4096] [--reads N] [--hot_fraction F]"
                 " [--hot_share F] [--seed S] [--out FILE]\n");
    return 2;
  }
  Timer timer;
  if (mode == "create") {
    CreateFiles(root, files, dirs, size);
    Emit("skew", "create_files_per_s", files / timer.Seconds());
    return 0;
  }

  const long reads = flags.Int("reads", 100000);
  const int stride = std::max(1, static_cast<int>(1.0 / flags.Double("hot_fraction", 0.1) + 0.5));
  const double hot_share = flags.Double("hot_share", 0.9);
  const int hot_count = (files + stride - 1) / stride;  // files 0, stride, 2*stride, ...
  const int cold_count = files - hot_count;
  std::mt19937_64 rng(static_cast<uint64_t>(flags.Int("seed", 1)));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t blocks = size / kBlock;

  void* buf = nullptr;
  if (posix_memalign(&buf, kBlock, kBlock) != 0) Die("posix_memalign");
  std::vector<uint64_t> bytes(files, 0), ops(files, 0);
  bool direct = true;
  timer.Restart();
  for (long r = 0; r < reads; ++r) {
    int i;
    if (cold_count == 0 || unit(rng) < hot_share) {
      i = static_cast<int>(unit(rng) * hot_count) * stride;
    } else {
      // The k-th cold file: skip the hot ones (every stride-th index).
      const int k = static_cast<int>(unit(rng) * cold_count);
      i = k / (stride - 1) * stride + k % (stride - 1) + 1;
    }
    i = std::min(i, files - 1);
    const off_t offset = static_cast<off_t>((static_cast<size_t>(unit(rng) * blocks)) * kBlock);
    const std::string path = Path(root, dirs, i);
    int fd = open(path.c_str(), O_RDONLY | (direct ? O_DIRECT : 0));
    if (fd < 0 && direct && errno == EINVAL) {
      direct = false;
      fd = open(path.c_str(), O_RDONLY);
    }
    if (fd < 0) Die("open " + path);
    const ssize_t n = pread(fd, buf, kBlock, offset);
    if (n != static_cast<ssize_t>(kBlock)) Die("pread " + path);
    if (!direct) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    bytes[i] += static_cast<uint64_t>(n);
    ops[i]++;
  }
  const double s = timer.Seconds();
  free(buf);
  Emit("skew", "reads", static_cast<double>(reads));
  Emit("skew", "reads_s", reads / s);
  Emit("skew", "o_direct", direct ? 1 : 0);
  Emit("skew", "hot_files", hot_count);

  const std::string out_path = flags.Str("out", "");
  if (!out_path.empty()) {
    std::ofstream out(out_path);
    for (int i = 0; i < files; ++i) {
      if (ops[i] == 0) continue;
      out << Path(root, dirs, i) << '\t' << (i % stride == 0 ? 1 : 0) << '\t' << bytes[i] << '\t'
          << ops[i] << '\n';
    }
    if (!out) Die("write " + out_path);
  }
  return 0;
}

}  // namespace
}  // namespace tierfs::bench

int main(int argc, char** argv) { return tierfs::bench::Main(argc, argv); }

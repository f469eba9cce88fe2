// libFuzzer target: placement policies from arbitrary bytes (scripts/fuzz.sh,
// docs/testing-tools.md).
//
// Feeds the input to policy::LoadPolicy (libxml2 parse, embedded DTD, reader, lint),
// checks the LoadResult contract, and when the document loads, runs the rest of the
// pure policy engine over it: CheckClasses, CREATE placement, and a PlanScan of a
// small fixed file table. So a policy that validates but makes the evaluator divide
// by zero, overflow or index out of range is a finding too. Seed corpus: the XML
// policies under docs/examples, tests/policy/data (the vendor templates and
// mkdstfs's default) and tests/fuzz/policy_corpus (inputs of past findings, kept
// as regressions); dictionary: tests/fuzz/policy.dict.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "policy/create_placement.h"
#include "policy/file_record.h"
#include "policy/loader.h"
#include "policy/planner.h"
#include "policy/volume_state.h"

namespace {

using namespace tierfs::policy;

constexpr int64_t kNow = 1'800'000'000;

// Aborts (a libFuzzer crash) when a documented property does not hold.
void Require(bool ok, const char* what) {
  if (!ok) {
    __builtin_printf("policy_fuzzer: property violated: %s\n", what);
    std::abort();
  }
}

std::vector<VolumeState> Volumes() {
  return {VolumeState{1, "vol1", {"ssd"}, 100ull << 30, 10ull << 30, 1ull << 30},
          VolumeState{2, "vol2", {"hdd"}, 1000ull << 30, 900ull << 30, 0},
          VolumeState{3, "vol3", {"mixed", "archive"}, 1ull << 20, 0, 0}};
}

// A few files with different owners, ages, sizes, tags and I/O in every window.
std::vector<FileRecord> Files(const PlacementPolicy& policy) {
  const std::vector<double> windows = policy.WindowHours();
  std::vector<FileRecord> files;
  const char* paths[] = {"/a", "/db/data.dbf", "/db/x.idx", "/logs/redo.log", "/tmp/t",
                         "/very/deep/dir/name.bin"};
  uint64_t ino = 2;
  for (const char* path : paths) {
    FileRecord f;
    f.ino = ino;
    f.path = path;
    f.uid = static_cast<uint32_t>(ino % 3 == 0 ? 0 : 1000);
    f.gid = f.uid;
    f.user = f.uid == 0 ? "root" : "oracle";
    f.group = f.uid == 0 ? "root" : "dba";
    f.size = ino % 2 == 0 ? 0 : (ino << 20);
    f.atime_s = kNow - static_cast<int64_t>(ino) * 3600 * 24;
    f.mtime_s = kNow - static_cast<int64_t>(ino) * 3600 * 48;
    f.volume_id = static_cast<uint32_t>(1 + ino % 3);
    if (ino % 2 == 1) f.tags = {"fast", "db"};
    if (ino != 2) {  // one file with no I/O at all
      for (int64_t hour = 0; hour < 48; hour += 6) {
        IoCounters io{static_cast<double>(ino << 16), static_cast<double>(hour << 10),
                      static_cast<double>(ino), static_cast<double>(hour)};
        AccumulateBucket(windows, kNow, kNow - (hour + 6) * 3600, 6 * 3600, io, &f.windows);
      }
    }
    files.push_back(std::move(f));
    ++ino;
  }
  return files;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  LoadResult result = LoadPolicy(xml);
  Require(result.ok() == result.errors.empty(), "ok() exactly when there is no error");
  Require(result.policy.has_value() == result.errors.empty(), "policy set exactly when no error");
  for (const auto* list : {&result.errors, &result.warnings}) {
    for (const Diagnostic& d : *list) {
      Require(d.line >= 0, "diagnostic lines are not negative");
      (void)d.ToString();
    }
  }
  if (!result.ok()) return 0;

  const PlacementPolicy policy = *result.policy;
  LoadResult checked = result;
  CheckClasses(policy, {"ssd", "hdd"}, /*force=*/false, &checked);
  LoadResult forced = result;
  CheckClasses(policy, {"ssd", "hdd"}, /*force=*/true, &forced);
  Require(forced.ok(), "CheckClasses with force never adds an error");

  const std::vector<VolumeState> volumes = Volumes();
  for (const char* path : {"/new", "/db/new.dbf", "/logs/x.log"}) {
    for (uint32_t uid : {0u, 1000u}) {
      CreatePlacement placement = ChooseCreateClasses(
          policy, CreateRequest{path, uid, uid, uid == 0 ? "root" : "oracle", "dba"});
      Require(placement.balance_sizes.size() == placement.classes.size(),
              "balance_sizes parallel to classes");
      (void)ChooseCreateVolume(placement, volumes, 0);
      (void)ChooseCreateVolume(placement, volumes, 1ull << 40);
    }
  }

  const std::vector<FileRecord> files = Files(policy);
  ActivityTotals totals;
  for (const FileRecord& f : files) {
    IoCounters all;
    for (const IoCounters& w : f.windows) all += w;
    AddActivity(all, f.size, &totals);
  }
  ScanPlan plan = PlanScan(policy, files, volumes, totals, kNow);
  Require(plan.files_scanned <= files.size(), "files_scanned at most the files given");
  return 0;
}

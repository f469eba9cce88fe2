// Online promotion on a mounted tierfs (docs/policies.md "Online promotion"):
// a RELOCATE with Online="yes" moves a file to ssd as soon as its IOTEMP
// crosses the line, with no fsppadm enforce; the OnlineBudget spaces the moves
// out; a file moved in online is not swapped out before its OnlineHold; and a
// full class swaps its coldest resident out for a hotter file.
//
// Heat buckets of 1 s and a PERIOD of 0.05 h (180 s): IOTEMP is the bytes read
// in the last 180 s per byte of the file, per hour, so reading a whole file
// once gives 20 and the policies' line of 50 needs three reads. Reads use
// O_DIRECT so that each reaches the daemon and its counts, on mounts with
// --passthrough=off: with passthrough the kernel reads the object itself and
// the page-cache counter sees no direct I/O (docs/design.md). The last test
// runs the default (passthrough) mount, with cold buffered reads. The ssd class is a
// 64 MiB tmpfs (it also holds the database), and PERCENT limits it to room for
// a given number of files beyond what it holds when the policy is assigned.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kMiB = 1024 * 1024;

class OnlinePromotionTest : public TierfsFixture {
 protected:
  std::vector<std::string> MkdstfsOptions() const override { return {"--heat-bucket", "1"}; }
  void PrepareVolumes() override { MountScratch(ssd_, "64m"); }
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

  // The online policy: new files on hdd; files whose 180-s read IOTEMP is at
  // least 50 go to ssd online, up to `percent` of it (none: no limit).
  static std::string OnlinePolicy(const std::string& budget_mb, const std::string& hold,
                                  const std::string& percent) {
    return R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="online" OnlineBudget=")" + budget_mb + R"(">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
    <RELOCATE Online="yes")" + (hold.empty() ? "" : " OnlineHold=\"" + hold + "\"") + R"(>
      <FROM><SOURCE><CLASS>hdd</CLASS></SOURCE></FROM>
      <TO><DESTINATION><CLASS>ssd</CLASS>)" +
           (percent.empty() ? "" : "<PERCENT>" + percent + "</PERCENT>") + R"(</DESTINATION></TO>
      <WHEN><IOTEMP Type="nrbytes" Prefer="high"><MIN Flags="gteq">50</MIN>
        <PERIOD Units="hours">0.05</PERIOD></IOTEMP></WHEN>
    </RELOCATE></RULE>
</PLACEMENT_POLICY>
)";
  }

  // New files on ssd, nothing moves: to put a cold resident there.
  static constexpr char kCreateOnSsd[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="on_ssd">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

  // The PERCENT of the ssd volume that leaves room for `files` more files of
  // `file_bytes` beyond what it uses now, with half a file to spare.
  std::string PercentForRoom(int files, size_t file_bytes) {
    struct statvfs s {};
    EXPECT_EQ(statvfs(ssd_.c_str(), &s), 0);
    const double total = static_cast<double>(s.f_blocks) * s.f_frsize;
    const double used = total - static_cast<double>(s.f_bfree) * s.f_frsize;
    const double room = used + (files + 0.5) * static_cast<double>(file_bytes);
    return std::to_string(room / total * 100);
  }

  void ReadTimes(const std::string& name, int times) {
    for (int i = 0; i < times; ++i) ReadFileDirect(Path(name));
  }

  // Polls fsmap until `name` is in class `cls`, up to `seconds`. Whether it got there.
  bool WaitForClass(const std::string& name, const std::string& cls, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int>(seconds * 1000));
    while (std::chrono::steady_clock::now() < deadline) {
      if (ClassOf(name) == cls) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return ClassOf(name) == cls;
  }

  nlohmann::json Status() {
    CommandResult r = Tool("fsppadm", {"status", "--json", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    if (!doc.is_object() || !doc.contains("online")) {
      ADD_FAILURE() << "no online section: " << r.output;
      return nlohmann::json::object();
    }
    return doc;
  }
};

TEST_F(OnlinePromotionTest, AFileThatHeatsUpMovesToSsdWithoutEnforce) {
  const std::string data = RandomBytes(1 * kMiB, 1);
  WriteFile(Path("f"), data);
  ASSERT_EQ(Tool("fcladm", {"on", mnt_}).exit_code, 0);
  AssignPolicy(OnlinePolicy("64", "", ""));
  ASSERT_EQ(ClassOf("f"), "hdd");
  // One read: IOTEMP 20, below the line; the file stays.
  ReadTimes("f", 1);
  EXPECT_FALSE(WaitForClass("f", "ssd", 3)) << "promoted below the line";
  // Two more: 60, over it. On ssd within seconds, with no enforce run.
  ReadTimes("f", 2);
  EXPECT_TRUE(WaitForClass("f", "ssd", 15)) << DaemonLog();
  EXPECT_EQ(Difference(ReadFileDirect(Path("f")), data), "");
  nlohmann::json status = Status();
  EXPECT_TRUE(status["scans"].empty()) << status.dump();  // no enforce did it
  EXPECT_TRUE(status["online"]["online"].get<bool>());
  EXPECT_EQ(status["online"]["promotions"].get<uint64_t>(), 1u) << status.dump();
  EXPECT_EQ(status["online"]["budget_bytes_per_s"].get<uint64_t>(), 64 * kMiB);
  // The move is in the relocation history like any other.
  ASSERT_FALSE(status["relocations"].empty()) << status.dump();
  EXPECT_EQ(status["relocations"][0]["path"], "/f");
  EXPECT_EQ(status["relocations"][0]["outcome"], "moved");
  // The FCL records it as any relocation.
  struct stat st {};
  ASSERT_EQ(stat(Path("f").c_str(), &st), 0);
  CommandResult fcl = Tool("fcladm", {"print", "--json", mnt_});
  ASSERT_EQ(fcl.exit_code, 0) << fcl.output;
  nlohmann::json records = nlohmann::json::parse(fcl.output, nullptr, false);
  bool relocated = false;
  if (records.is_object() && records.contains("records")) {
    for (const nlohmann::json& r : records["records"]) {
      if (r.value("event", "") == "relocate" && r.value("ino", uint64_t{0}) == st.st_ino) {
        relocated = true;
      }
    }
  }
  EXPECT_TRUE(relocated) << fcl.output;
  // And the text form says so.
  CommandResult text = Tool("fsppadm", {"status", mnt_});
  EXPECT_NE(text.output.find("Online promotion: on"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("1 promotions"), std::string::npos) << text.output;
}

TEST_F(OnlinePromotionTest, WithoutOnlineNothingMovesBeforeEnforce) {
  const std::string data = RandomBytes(1 * kMiB, 2);
  WriteFile(Path("f"), data);
  std::string plain = OnlinePolicy("64", "", "");
  plain.replace(plain.find(" Online=\"yes\""), 13, "");
  AssignPolicy(plain);
  ReadTimes("f", 4);
  EXPECT_FALSE(WaitForClass("f", "ssd", 4));
  EXPECT_FALSE(Status()["online"]["online"].get<bool>());
  EXPECT_TRUE(EnforceUntilClass("f", "ssd", 3));
}

TEST_F(OnlinePromotionTest, TheBudgetSpacesMovesOut) {
  // 1 MiB/s and two 4 MiB files hot at once: the first waits about 3 s for
  // its bytes (the bucket holds one second's worth), the second 4 s more.
  const std::string a = RandomBytes(4 * kMiB, 3), b = RandomBytes(4 * kMiB, 4);
  WriteFile(Path("a"), a);
  WriteFile(Path("b"), b);
  AssignPolicy(OnlinePolicy("1", "", ""));
  ReadTimes("a", 3);
  ReadTimes("b", 3);
  const auto hot = std::chrono::steady_clock::now();
  // Whichever goes first, the other is still on hdd when it arrives.
  std::string first, second;
  const auto deadline = hot + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && first.empty()) {
    const bool a_in = ClassOf("a") == "ssd", b_in = ClassOf("b") == "ssd";
    ASSERT_FALSE(a_in && b_in) << "both moved at once: the budget did not hold";
    if (a_in) first = "a", second = "b";
    if (b_in) first = "b", second = "a";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(first.empty()) << DaemonLog();
  const double first_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - hot).count();
  EXPECT_GE(first_s, 1.5);  // 3 MiB of debt at 1 MiB/s
  ASSERT_TRUE(WaitForClass(second, "ssd", 20)) << DaemonLog();
  const double second_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - hot).count();
  EXPECT_GE(second_s - first_s, 2.5) << "the second move did not wait for the budget";
  EXPECT_EQ(Difference(ReadFileDirect(Path("a")), a), "");
  EXPECT_EQ(Difference(ReadFileDirect(Path("b")), b), "");
}

TEST_F(OnlinePromotionTest, AFileMovedInOnlineIsNotSwappedOutBeforeItsHold) {
  // Room for one 8 MiB file. a goes in online (hold: the PERIOD, 180 s);
  // then b becomes far hotter, but a is held, so b waits.
  WriteFile(Path("a"), RandomBytes(8 * kMiB, 5));
  WriteFile(Path("b"), RandomBytes(8 * kMiB, 6));
  AssignPolicy(OnlinePolicy("64", "", PercentForRoom(1, 8 * kMiB)));
  ReadTimes("a", 3);
  ASSERT_TRUE(WaitForClass("a", "ssd", 15)) << DaemonLog();
  ReadTimes("b", 8);
  EXPECT_FALSE(WaitForClass("b", "ssd", 6)) << "a was swapped out within its hold";
  EXPECT_EQ(ClassOf("a"), "ssd");
  nlohmann::json online = Status()["online"];
  EXPECT_EQ(online["demotions"].get<uint64_t>(), 0u) << online.dump();
  EXPECT_GE(online["skipped"]["noroom"].get<uint64_t>(), 1u) << online.dump();
  // Enforce ignores the hold: it swaps them (b is more than 1.25 times as hot).
  EXPECT_TRUE(EnforceUntilClass("b", "ssd", 3));
  EXPECT_EQ(ClassOf("a"), "hdd");
}

TEST_F(OnlinePromotionTest, AFullClassSwapsOutItsColdestFile) {
  // cold is on ssd and never read.
  AssignPolicy(kCreateOnSsd);
  WriteFile(Path("cold"), RandomBytes(8 * kMiB, 7));
  ASSERT_EQ(ClassOf("cold"), "ssd");
  // Room for one more file; no hold, so only the temperatures decide.
  AssignPolicy(OnlinePolicy("64", "0", PercentForRoom(1, 8 * kMiB)));
  WriteFile(Path("warm"), RandomBytes(8 * kMiB, 8));
  const std::string hot_data = RandomBytes(8 * kMiB, 9);
  WriteFile(Path("hot"), hot_data);
  ASSERT_EQ(ClassOf("warm"), "hdd");
  ASSERT_EQ(ClassOf("hot"), "hdd");
  ReadTimes("warm", 3);
  ASSERT_TRUE(WaitForClass("warm", "ssd", 15)) << DaemonLog();
  // The class is full now; hot must displace someone, and cold is the coldest.
  ReadTimes("hot", 6);
  EXPECT_TRUE(WaitForClass("hot", "ssd", 15)) << DaemonLog();
  EXPECT_EQ(ClassOf("cold"), "hdd");
  EXPECT_EQ(ClassOf("warm"), "ssd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("hot")), hot_data), "");
  nlohmann::json online = Status()["online"];
  EXPECT_EQ(online["promotions"].get<uint64_t>(), 2u) << online.dump();
  EXPECT_EQ(online["demotions"].get<uint64_t>(), 1u) << online.dump();
}

TEST_F(OnlinePromotionTest, QueuedFilesShowInStatusAndAnalyze) {
  // 0.01 MB/s: the first file's move waits about 100 s for its budget, so
  // the second stays queued meanwhile (the unmount ends the wait).
  WriteFile(Path("a"), RandomBytes(1 * kMiB, 10));
  WriteFile(Path("b"), RandomBytes(1 * kMiB, 11));
  AssignPolicy(OnlinePolicy("0.01", "", ""));
  ReadTimes("a", 3);
  ReadTimes("b", 3);
  nlohmann::json online;
  for (int i = 0; i < 100; ++i) {
    online = Status()["online"];
    if (online.contains("queued") && online["queued"].size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(online["queued"].size(), 1u) << online.dump();
  const std::string queued = online["queued"][0]["path"].get<std::string>();
  EXPECT_TRUE(queued == "/a" || queued == "/b") << queued;
  EXPECT_GT(online["queued"][0]["temperature"].get<double>(), 50);
  CommandResult text = Tool("fsppadm", {"status", mnt_});
  EXPECT_NE(text.output.find("Queued      : 1 files"), std::string::npos) << text.output;
  CommandResult analyze = Tool("fsppadm", {"analyze", mnt_});
  EXPECT_EQ(analyze.exit_code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("Online queue   : 1 files: " + mnt_ + queued), std::string::npos)
      << analyze.output;
  // Neither has moved: the budget holds the first, the queue the second.
  EXPECT_EQ(ClassOf("a"), "hdd");
  EXPECT_EQ(ClassOf("b"), "hdd");
}

// Enforce and the online path at once, on the same files: a file the
// online path moved after enforce planned its move (or the other way round)
// is left alone as "gone", not an error. Each round writes 200 files, which
// the policy moves to ssd online as soon as the daemon sees their writes,
// and runs enforce once the online path has begun on them, so enforce plans
// files the online path is moving. Before the fix, enforce exited 1 with
// "error: already on that volume" for such files (most rounds had some).
TEST_F(OnlinePromotionTest, EnforceRacingTheOnlinePathLeavesMovedFilesAsGone) {
  AssignPolicy(OnlineMoveHotPolicy("hdd", "ssd"));
  int files = 0, enforce_moved = 0, gone = 0;
  // Rounds until enforce met the race (a file it planned was moved under
  // it), 10 at most; 200 files of 8 KiB each round fit the 64 MiB ssd.
  for (int round = 0; round < 10 && gone == 0 && !HasFailure(); ++round) {
    const uint64_t online_before = Status()["online"].value("promotions", uint64_t{0});
    for (int i = 0; i < 200; ++i, ++files) {
      WriteFile(Path("f" + std::to_string(files)), RandomBytes(8192, files));
    }
    // The online path looks once a second: enforce starts once it has begun.
    for (int i = 0; i < 100; ++i) {
      if (Status()["online"].value("promotions", uint64_t{0}) > online_before) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CommandResult r = Tool("fsppadm", {"enforce", "--json", mnt_}, 60);
    const nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    ASSERT_TRUE(doc.is_object() && doc.contains("summary")) << r.output;
    std::string errors;
    for (const nlohmann::json& row : doc.value("rows", nlohmann::json::array())) {
      if (row.value("outcome", "").rfind("error", 0) == 0) errors += row.dump() + "\n";
    }
    EXPECT_EQ(r.exit_code, 0) << "round " << round << ":\n" << errors;
    EXPECT_EQ(errors, "") << "round " << round;
    enforce_moved += doc["summary"].value("files_moved", 0);
    gone += doc["summary"]["files_skipped"].value("gone", 0);
  }
  EXPECT_GT(gone, 0) << "enforce never planned a file the online path then moved: the race "
                        "this test is about did not happen";
  // Every file is on ssd, whole, whoever moved it.
  for (int i = 0; i < files; ++i) {
    const std::string name = "f" + std::to_string(i);
    ASSERT_TRUE(WaitForClass(name, "ssd", 10)) << name;
    ASSERT_EQ(Difference(ReadFileDirect(Path(name)), RandomBytes(8192, i)), "") << name;
  }
  std::printf("%d files: enforce moved %d, found %d moved by the online path (gone); the online "
              "path moved %llu\n",
              files, enforce_moved, gone,
              static_cast<unsigned long long>(Status()["online"].value("promotions", uint64_t{0})));
}

// The default mount passes opens through where the kernel grants it: the
// kernel reads the object itself, and the page-cache counter counts what
// reaches the volume. Three cold buffered reads (the volume's page cache
// dropped before each) cross the line, and the file moves online.
class OnlinePromotionDefaultMountTest : public OnlinePromotionTest {
 protected:
  std::vector<std::string> FixtureMountArgs() const override { return {}; }
  // The ssd volume on the disk, not in a tmpfs: the page-cache counter cannot
  // see a volume in memory, and auto stays off where one is.
  void PrepareVolumes() override {}
};

TEST_F(OnlinePromotionDefaultMountTest, ColdReadsThroughTheDefaultMountPromoteAFile) {
  Unmount();
  Mount({});  // through the fixture's Mount, which notes whether INIT took passthrough
  if (!passthrough_) GTEST_SKIP() << "the kernel or the privileges leave passthrough off here";
  const std::string data = RandomBytes(1 * kMiB, 3);
  WriteFileSynced(Path("f"), data);
  AssignPolicy(OnlinePolicy("64", "", ""));
  ASSERT_EQ(ClassOf("f"), "hdd");
  for (int i = 0; i < 3; ++i) {
    DropPageCacheUnder(hdd_);
    EXPECT_EQ(ReadFile(Path("f")), data);
  }
  EXPECT_TRUE(WaitForClass("f", "ssd", 15)) << Status().dump() << DaemonLog();
  EXPECT_EQ(ReadFile(Path("f")), data);
}

}  // namespace
}  // namespace tierfs::testing

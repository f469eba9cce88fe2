// Placement policies through the real commands: assign, analyze, enforce, fsmap,
// and relocation of a file that is held open and used during the move.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

class PolicyEnforceTest : public TierfsFixture {
 protected:
  // The daemon's data path: heat from reads the daemon serves (the test re-reads cached
  // files) and relocation of files held open, busy under passthrough.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }
};

TEST_F(PolicyEnforceTest, HotFilesMoveToSsdAndColdFilesStay) {
  // The README demonstration's policy, as shipped: the paper's snippets composed
  // (create on hdd; promote on 6-hour read IOTEMP >= 1.5x average, Prefer high;
  // demote under 0.5x).
  AssignPolicy(ReadFile(std::string(TIERFS_SOURCE_DIR) + "/docs/examples/hot_reads.xml"));
  std::vector<std::string> contents;
  for (int i = 0; i < 10; ++i) {
    contents.push_back(RandomBytes(100000 + i * 1000, 10 + i));
    WriteFile(Path("f" + std::to_string(i)), contents.back());
  }
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ClassOf("f" + std::to_string(i)), "hdd") << i;
  // A fresh mount starts with a cold page cache, so the reads below reach tierfs.
  Remount();
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(ReadFile(Path("f3")), contents[3]);
    EXPECT_EQ(ReadFile(Path("f7")), contents[7]);
  }

  CommandResult analyze = Tool("fsppadm", {"analyze", mnt_});
  ASSERT_EQ(analyze.exit_code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("/f3"), std::string::npos) << analyze.output;
  EXPECT_EQ(ClassOf("f3"), "hdd");  // analyze moves nothing

  CommandResult enforce = Tool("fsppadm", {"enforce", mnt_});
  ASSERT_EQ(enforce.exit_code, 0) << enforce.output;
  for (int i = 0; i < 10; ++i) {
    const bool hot = i == 3 || i == 7;
    EXPECT_EQ(ClassOf("f" + std::to_string(i)), hot ? "ssd" : "hdd") << i << enforce.output;
  }
  Remount();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ReadFile(Path("f" + std::to_string(i))), contents[i]);
  EXPECT_EQ(ClassOf("f3"), "ssd");
}

TEST_F(PolicyEnforceTest, OpenFileKeepsWorkingAcrossRelocation) {
  AssignPolicy(kPinHotPolicy);
  constexpr size_t kSize = 4 * 1024 * 1024, kChunk = 65536;
  std::string expected = RandomBytes(kSize, 5);
  WriteFile(Path("data.hot"), expected);
  ASSERT_EQ(ClassOf("data.hot"), "hdd");
  // O_DIRECT so every read and write reaches tierfs instead of the page cache.
  int fd = open(Path("data.hot").c_str(), O_RDWR | O_DIRECT);
  ASSERT_GE(fd, 0) << strerror(errno);

  // A reader keeps reading the first part, a writer keeps rewriting the last chunk,
  // both through the open fd, while enforce moves the file.
  std::atomic<bool> stop{false}, pause_writes{false};
  std::atomic<int> mismatches{0}, reads{0}, writes{0}, io_errors{0};
  std::atomic<int> last_value{-1};
  std::thread reader([&] {
    void* buf = nullptr;
    ASSERT_EQ(posix_memalign(&buf, 4096, kChunk), 0);
    for (int i = 0; i < 200000 && !stop; ++i) {
      const off_t off = static_cast<off_t>((i * kChunk) % (kSize - kChunk));
      ssize_t n = pread(fd, buf, kChunk, off);
      if (n != static_cast<ssize_t>(kChunk)) io_errors++;
      else if (expected.compare(off, kChunk, static_cast<char*>(buf), kChunk) != 0) mismatches++;
      reads++;
    }
    free(buf);
  });
  std::thread writer([&] {
    void* buf = nullptr;
    ASSERT_EQ(posix_memalign(&buf, 4096, kChunk), 0);
    // Bounded by iterations, each of which sleeps: 20,000 x >= 5 ms.
    for (int v = 0, step = 0; step < 20000 && !stop; ++step) {
      if (pause_writes) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        continue;
      }
      std::memset(buf, 'a' + v % 26, kChunk);
      if (pwrite(fd, buf, kChunk, kSize - kChunk) != static_cast<ssize_t>(kChunk)) io_errors++;
      last_value = v++;
      writes++;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    free(buf);
  });
  // A write during the copy makes a move "busy"; enforce retries at its next run.
  // When the copy takes longer than the writer's 20 ms pace (a sanitizer build, a
  // loaded machine), every attempt would be busy: after five, the writer pauses
  // during each enforce and writes between them, so the move is bound to happen
  // while the file stays open and in use.
  std::string moved;
  for (int attempt = 0; attempt < 30 && moved != "ssd"; ++attempt) {
    pause_writes = attempt >= 5;
    CommandResult r = Tool("fsppadm", {"enforce", mnt_});
    pause_writes = false;
    ASSERT_NE(r.exit_code, 2) << r.output;
    moved = ClassOf("data.hot");
    if (moved != "ssd") std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Keep using the file for a while after the move.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  reader.join();
  writer.join();
  EXPECT_EQ(moved, "ssd");
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(io_errors.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_GT(writes.load(), 0);
  ASSERT_GE(last_value.load(), 0);
  expected.replace(kSize - kChunk, kChunk, std::string(kChunk, 'a' + last_value % 26));
  close(fd);

  // A buffered fd: append after the move, then everything reads back.
  fd = open(Path("data.hot").c_str(), O_RDWR | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "END", 3), 3);
  expected += "END";
  close(fd);
  EXPECT_EQ(ReadFile(Path("data.hot")), expected);
  // The source object is gone from hdd, the data lives on ssd only.
  size_t hdd_objects = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(hdd_ + "/.tierfs/objects")) {
    if (e.is_regular_file()) hdd_objects++;
  }
  EXPECT_EQ(hdd_objects, 0u);
  Remount();
  EXPECT_EQ(ReadFile(Path("data.hot")), expected);
  EXPECT_EQ(ClassOf("data.hot"), "ssd");
  CommandResult status = Tool("fsppadm", {"status", mnt_});
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("moved"), std::string::npos) << status.output;
}

TEST_F(PolicyEnforceTest, ManyFilesMoveInParallelAndBack) {
  // Everything to ssd with 32 relocation workers (-p 100), then back with one (-p 1).
  auto policy_for = [](const std::string& cls) {
    return "<?xml version=\"1.0\"?>\n<PLACEMENT_POLICY Version=\"5.1\" Name=\"all_to_" + cls +
           "\">\n  <RULE Flags=\"data\" Name=\"all\"><SELECT><PATTERN>*</PATTERN></SELECT>\n"
           "    <RELOCATE><TO><DESTINATION><CLASS>" + cls +
           "</CLASS></DESTINATION></TO></RELOCATE></RULE>\n</PLACEMENT_POLICY>\n";
  };
  ASSERT_EQ(mkdir(Path("many").c_str(), 0755), 0);
  std::vector<std::string> contents;
  for (int i = 0; i < 120; ++i) {
    contents.push_back(RandomBytes(1000 + i * 97, 100 + i));
    WriteFile(Path("many/f" + std::to_string(i)), contents.back());
  }
  for (const auto& [cls, nice] : {std::pair{"ssd", "100"}, std::pair{"hdd", "1"}}) {
    AssignPolicy(policy_for(cls));
    CommandResult r = Tool("fsppadm", {"enforce", "--json", "-p", nice, mnt_});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << r.output;
    EXPECT_EQ(doc["summary"]["files_moved"].get<int>(), 120) << cls;
    for (int i = 0; i < 120; i += 17) EXPECT_EQ(ClassOf("many/f" + std::to_string(i)), cls);
    for (int i = 0; i < 120; ++i) {
      ASSERT_EQ(ReadFile(Path("many/f" + std::to_string(i))), contents[i]) << i;
    }
  }
}

TEST_F(PolicyEnforceTest, TaggedFilesAreSelectedByTag) {
  // docs/policies.md "SELECT: which files": <TAG> matches words of user.tierfs.tags,
  // set with fsppadm tag.
  AssignPolicy(R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="tagged">
  <RULE Flags="data" Name="fast_files">
    <SELECT><TAG>fast</TAG></SELECT>
    <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE>
  </RULE>
  <RULE Flags="data" Name="rest">
    <SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
  </RULE>
</PLACEMENT_POLICY>
)");
  WriteFile(Path("a"), "a");
  WriteFile(Path("b"), "b");
  ASSERT_EQ(Tool("fsppadm", {"tag", "add", "fast", Path("a")}).exit_code, 0);
  ASSERT_EQ(Tool("fsppadm", {"tag", "add", "other", Path("a"), Path("b")}).exit_code, 0);
  CommandResult list = Tool("fsppadm", {"tag", "list", Path("a"), Path("b")});
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find(Path("a") + ": fast,other"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find(Path("b") + ": other"), std::string::npos) << list.output;

  ASSERT_EQ(Tool("fsppadm", {"enforce", mnt_}).exit_code, 0);
  EXPECT_EQ(ClassOf("a"), "ssd");
  EXPECT_EQ(ClassOf("b"), "hdd");

  ASSERT_EQ(Tool("fsppadm", {"tag", "remove", "fast", Path("a")}).exit_code, 0);
  list = Tool("fsppadm", {"tag", "list", Path("a")});
  EXPECT_NE(list.output.find(Path("a") + ": other"), std::string::npos) << list.output;
  CommandResult missing = Tool("fsppadm", {"tag", "add", "fast", Path("nope")});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("No such file"), std::string::npos) << missing.output;
}

TEST_F(PolicyEnforceTest, MalformedPolicyIsRejectedWithItsLineAndChangesNothing) {
  AssignPolicy(kPinHotPolicy);
  const std::string bad = root_ + "/bad.xml";
  WriteFile(bad, "<?xml version=\"1.0\"?>\n<PLACEMENT_POLICY Version=\"5.1\" Name=\"bad\">\n"
                 "  <RULE Flags=\"data\" Name=\"r\">\n    <SELECT><PATTERN>*</PATTERN></SELECT>\n"
                 "    <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO>\n"
                 "      <WHEN><SIZE Units=\"MB\"><MIN Flags=\"lt\">1</MIN></SIZE></WHEN>\n"
                 "    </RELOCATE>\n  </RULE>\n</PLACEMENT_POLICY>\n");
  CommandResult r = Tool("fsppadm", {"assign", mnt_, bad});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(bad + ":6:"), std::string::npos) << r.output;  // FILE:LINE: ...
  CommandResult print = Tool("fsppadm", {"print", mnt_});
  ASSERT_EQ(print.exit_code, 0) << print.output;
  EXPECT_NE(print.output.find("pin_hot"), std::string::npos) << print.output;

  const std::string unknown_class = root_ + "/unknown.xml";
  std::string xml = kPinHotPolicy;
  xml.replace(xml.find("<CLASS>ssd</CLASS>"), 18, "<CLASS>tier9</CLASS>");
  WriteFile(unknown_class, xml);
  r = Tool("fsppadm", {"assign", mnt_, unknown_class});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("tier9"), std::string::npos) << r.output;
}

TEST_F(PolicyEnforceTest, MountRefusesAVolumeWithoutItsLabel) {
  WriteFile(Path("keep"), "precious");
  Unmount();
  // An unmounted disk shows up as an empty directory: simulate it.
  const std::string aside = root_ + "/hdd-tierfs-aside";
  std::filesystem::rename(hdd_ + "/.tierfs", aside);
  CommandResult r = RunCommand({testing::Tool("tierfs"), ssd_, mnt_}, 60);
  if (r.exit_code == 0) mounted_ = true;  // so TearDown unmounts it
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(hdd_), std::string::npos) << r.output;
  std::filesystem::rename(aside, hdd_ + "/.tierfs");
  if (!mounted_) Mount();
  EXPECT_EQ(ReadFile(Path("keep")), "precious");
}

}  // namespace
}  // namespace tierfs::testing

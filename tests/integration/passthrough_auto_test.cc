// `--passthrough=auto`, the default: a mount on a kernel that grants
// passthrough, where the page-cache counter loads, serves opens by passthrough
// and says so (`fsppadm status`); one where no counter cheaper than the one on
// every system call loads stays off and says why; and the heat of a
// passthrough-served cold read reaches the policy's IOTEMP through the mount,
// while a warm re-read (a page-cache hit) earns none. Skipped, saying why,
// where the kernel or the privileges leave passthrough off altogether.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

using nlohmann::json;

class PassthroughAutoTest : public TierfsFixture {
 protected:
  void TearDown() override {
    unsetenv("TIERFS_TEST_REFUSE_HOOKS");
    TierfsFixture::TearDown();
  }

  json Status() {
    CommandResult r = Tool("fsppadm", {"status", "--json", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    json doc = json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(doc.is_discarded()) << r.output;
    return doc.is_discarded() ? json::object() : doc;
  }

  // Mounts again with `args` (the daemon's default mode unless they say) and
  // returns the passthrough part of `fsppadm status --json`; skips the test
  // where the kernel does not offer passthrough or the daemon lacks the
  // privilege (not what these tests are about).
  json RemountWith(const std::vector<std::string>& args) {
    Unmount();
    Mount(args);
    json pt = Status().value("passthrough", json::object());
    const std::string why = pt.value("why", "");
    if (why.find("FUSE_PASSTHROUGH") != std::string::npos ||
        why.find("CAP_SYS_ADMIN") != std::string::npos) {
      skipped_ = "passthrough is off here: " + why;
    }
    return pt;
  }

  // The IOTEMP of `relative` under the assigned policy's first statement,
  // from `fsppadm query --json`.
  double Iotemp(const std::string& relative) {
    CommandResult r = Tool("fsppadm", {"query", "--json", Path(relative)});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    json q = json::parse(r.output, nullptr, false);
    if (q.is_discarded() || !q.contains("rows") || q["rows"].size() != 1) {
      ADD_FAILURE() << r.output;
      return -1;
    }
    const json& row = q["rows"][0];
    if (row.contains("temperature")) return row["temperature"].get<double>();
    if (row.contains("temperatures") && !row["temperatures"].empty()) {
      return row["temperatures"][0]["value"].get<double>();
    }
    ADD_FAILURE() << row.dump();
    return -1;
  }

  // What auto does where the page-cache hook cannot count a volume
  // (`volume_kind`, the words PageCacheHookUnusable uses): it passes that hook
  // over saying why, and heat still reaches the volume's files.
  void ExpectThePageCacheHookPassedOverAndHeatCounted(const std::string& volume_kind) {
    json pt = RemountWith({});
    if (!skipped_.empty()) GTEST_SKIP() << skipped_;
    EXPECT_NE(pt.value("hook", ""), "pagecache") << pt.dump();
    const std::string why = pt.value("why", "");
    if (pt.value("mode", "") == "off") {
      EXPECT_NE(why.find("pagecache hook: volume"), std::string::npos) << pt.dump();
      EXPECT_NE(why.find(volume_kind), std::string::npos) << pt.dump();
    }
    // Heat still reaches the hdd volume's file: the daemon serves and counts it.
    AssignPolicy(PeriodPolicy("read_heat", "1"));
    const std::string data = RandomBytes(1 << 20, 5);
    WriteFileSynced(Path("f"), data);
    ASSERT_EQ(ClassOf("f"), "hdd");
    // A remount empties the kernel's cache of the tierfs file (the daemon serves
    // its reads) and dropping the volume's makes a passthrough read cold.
    Remount();
    DropPageCacheUnder(hdd_);
    EXPECT_EQ(ReadFile(Path("f")), data);
    EXPECT_NEAR(Iotemp("f"), 1.0, 0.01) << "a read of a file on the volume earned no heat";
  }

  std::string skipped_;
};

TEST_F(PassthroughAutoTest, TheDefaultMountPassesThroughWithThePageCacheCounter) {
  json pt = RemountWith({});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  EXPECT_EQ(pt.value("requested", ""), "auto") << pt.dump();
  EXPECT_EQ(pt.value("mode", ""), "rw") << pt.dump();
  EXPECT_EQ(pt.value("hook", ""), "pagecache") << pt.dump();
  EXPECT_TRUE(passthrough_) << "the fixture did not see the daemon take passthrough";
  CommandResult text = Tool("fsppadm", {"status", mnt_});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("Passthrough : rw (--passthrough=auto; granted at INIT; heat "
                             "counted by the pagecache hook)"),
            std::string::npos)
      << text.output;
  EXPECT_NE(DaemonLog().find("passthrough=auto: asked for in INIT, rw opens"),
            std::string::npos);
}

// Where only the counter on every system call could load, auto stays off (and
// the daemon serves, and counts, every read and write); rw takes that counter.
TEST_F(PassthroughAutoTest, AutoStaysOffWhenOnlyTheEverySyscallCounterLoads) {
  setenv("TIERFS_TEST_REFUSE_HOOKS", "pagecache,fexit,kprobe", 1);
  json pt = RemountWith({});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  EXPECT_EQ(pt.value("requested", ""), "auto") << pt.dump();
  EXPECT_EQ(pt.value("mode", ""), "off") << pt.dump();
  EXPECT_EQ(pt.value("hook", ""), "") << "a counter stayed attached: " << pt.dump();
  const std::string why = pt.value("why", "");
  EXPECT_NE(why.find("pagecache hook: refused"), std::string::npos) << why;
  EXPECT_NE(why.find("syscall hook: not allowed"), std::string::npos) << why;
  EXPECT_FALSE(passthrough_);
  CommandResult text = Tool("fsppadm", {"status", mnt_});
  EXPECT_NE(text.output.find("Passthrough : off (--passthrough=auto; "), std::string::npos)
      << text.output;
  // Served by the daemon: a write and read back work as ever.
  WriteFile(Path("f"), "daemon-served");
  EXPECT_EQ(ReadFile(Path("f")), "daemon-served");

  json rw = RemountWith({"--passthrough=rw"});
  EXPECT_EQ(rw.value("mode", ""), "rw") << rw.dump();
  EXPECT_EQ(rw.value("hook", ""), "syscall") << rw.dump();

  // With every hook refused even rw stays off, and says which were.
  setenv("TIERFS_TEST_REFUSE_HOOKS", "pagecache,fexit,kprobe,syscall", 1);
  json none = RemountWith({"--passthrough=rw"});
  EXPECT_EQ(none.value("mode", ""), "off") << none.dump();
  EXPECT_NE(none.value("why", "").find("syscall hook: refused"), std::string::npos)
      << none.dump();
}

TEST_F(PassthroughAutoTest, AnUnknownRefusedHookIsAnError) {
  setenv("TIERFS_TEST_REFUSE_HOOKS", "pagecache,bogus", 1);
  json pt = RemountWith({});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  EXPECT_EQ(pt.value("mode", ""), "off") << pt.dump();
  EXPECT_NE(pt.value("why", "").find("TIERFS_TEST_REFUSE_HOOKS: unknown hook \"bogus\""),
            std::string::npos)
      << pt.dump();
}

// Heat is the bytes that reach a volume: a cold read of a file served by
// passthrough brings its IOTEMP (nrbytes over 1 hour, per byte of the file)
// to 1; reading it again from the page cache adds nothing.
TEST_F(PassthroughAutoTest, AColdPassthroughReadReachesTheIotempAndAWarmOneAddsNothing) {
  json pt = RemountWith({});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ASSERT_EQ(pt.value("hook", ""), "pagecache") << pt.dump();
  AssignPolicy(PeriodPolicy("read_heat", "1"));
  const std::string data = RandomBytes(4 << 20, 17);
  WriteFileSynced(Path("cold"), data);
  // Its written pages are clean now: dropping them makes the next read cold.
  DropPageCacheUnder(hdd_);
  DropPageCacheUnder(ssd_);
  EXPECT_NEAR(Iotemp("cold"), 0.0, 1e-9) << "writes count as reads";
  EXPECT_EQ(ReadFile(Path("cold")), data);
  // At once: the query drains the counter first (FileSystem::DrainKernelHeat),
  // which on its own drains only once a second.
  const double cold = Iotemp("cold");
  EXPECT_NEAR(cold, 1.0, 0.01) << "a cold read of the whole file, once";
  EXPECT_EQ(ReadFile(Path("cold")), data);  // from the page cache
  usleep(1500000);                           // past a drain
  EXPECT_NEAR(Iotemp("cold"), cold, 0.01) << "a page-cache hit earned heat";
}

// A volume on btrfs: its files report their subvolume's device, which the
// page-cache hook cannot match, so that hook would count none of their I/O.
// The daemon passes it over saying why (PageCacheHookUnusable), and auto,
// with no other hook but the every-syscall one on this kernel, stays off:
// the daemon serves, and counts, every read, rather than heat silently zero.
class PassthroughAutoOnBtrfsTest : public PassthroughAutoTest {
 protected:
  void PrepareVolumes() override {
    if (RunCommand({"/bin/sh", "-c", "command -v mkfs.btrfs"}, 10).exit_code != 0) {
      skipped_ = "mkfs.btrfs is not installed (btrfs-progs; scripts/install-deps.sh)";
      return;
    }
    const std::string image = root_ + "/btrfs.img";
    std::ofstream(image).close();
    ASSERT_EQ(::truncate(image.c_str(), 256 << 20), 0);
    CommandResult made = RunCommand({"/bin/sh", "-c", "mkfs.btrfs -q " + image}, 60);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    CommandResult mounted = RunCommand({"/bin/mount", "-o", "loop", image, hdd_}, 30);
    ASSERT_EQ(mounted.exit_code, 0) << mounted.output;
    scratch_mounts_.push_back(hdd_);  // unmounted (and its loop device freed) in TearDown
  }
};

TEST_F(PassthroughAutoOnBtrfsTest, AutoPassesOverThePageCacheHookAndSaysWhy) {
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ExpectThePageCacheHookPassedOverAndHeatCounted("is on btrfs");
}

// A volume in memory: a tmpfs's pages are its files' storage, so neither of
// the hook's tracepoints fires for them (with the hook, reads and writes there
// counted 0 bytes and every file looked cold). Auto passes the hook over as
// for btrfs.
class PassthroughAutoOnTmpfsTest : public PassthroughAutoTest {
 protected:
  void PrepareVolumes() override {
    CommandResult mounted =
        RunCommand({"/bin/mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", hdd_}, 30);
    ASSERT_EQ(mounted.exit_code, 0) << mounted.output;
    scratch_mounts_.push_back(hdd_);  // unmounted in TearDown
  }
};

TEST_F(PassthroughAutoOnTmpfsTest, AutoPassesOverThePageCacheHookAndSaysWhy) {
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  ExpectThePageCacheHookPassedOverAndHeatCounted("is in memory (tmpfs or ramfs)");
}

}  // namespace
}  // namespace tierfs::testing

// fsvoladm on a mounted tierfs (fs/tiering/volume_admin.h): a volume added online
// takes new files at once; a volume removed online gives up every file, open
// descriptors and all, and nothing is lost; the metadata volume and a volume the
// others have no room for are refused with nothing changed; setclass changes
// placement; mkdstfs on the existing file system adds a volume. Every change is
// made through the real commands.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/tierfs_fixture.h"

namespace tierfs::testing {
namespace {

constexpr size_t kMiB = 1 << 20;

constexpr char kArchiveFirst[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="archive_first">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>archive</CLASS></DESTINATION>
                <DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

constexpr char kArchiveThenSsd[] = R"(<?xml version="1.0"?>
<PLACEMENT_POLICY Version="5.1" Name="archive_then_ssd">
  <RULE Flags="data" Name="all"><SELECT><PATTERN>*</PATTERN></SELECT>
    <CREATE><ON><DESTINATION><CLASS>archive</CLASS></DESTINATION>
                <DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE></RULE>
</PLACEMENT_POLICY>
)";

class FsvoladmTest : public TierfsFixture {
 protected:
  // The daemon's data path: removing a volume moves every file while descriptors stay open, which
  // passthrough opens would keep busy.
  std::vector<std::string> FixtureMountArgs() const override { return {"--passthrough=off"}; }

 protected:
  // fsvoladm list --json, as parsed JSON ({"volumes": [...]}).
  nlohmann::json ListJson() {
    CommandResult r = Tool("fsvoladm", {"list", "--json", mnt_});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  }
  // The volume named `name` in ListJson(), or null.
  nlohmann::json Volume(const std::string& name) {
    nlohmann::json doc = ListJson();
    if (doc.is_object() && doc.contains("volumes")) {
      for (const nlohmann::json& v : doc["volumes"]) {
        if (v.value("name", "") == name) return v;
      }
    }
    return nullptr;
  }
};

TEST_F(FsvoladmTest, ListShowsEveryVolume) {
  WriteFile(Path("a"), RandomBytes(10000, 1));
  CommandResult r = Tool("fsvoladm", {"list", mnt_});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Volume  Class  Media  Role      State   Size  Used  Free  Files  Path"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("vol1    ssd"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("metadata  online"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("vol2    hdd"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("data      online"), std::string::npos) << r.output;
  nlohmann::json hdd = Volume("vol2");
  ASSERT_TRUE(hdd.is_object());
  EXPECT_EQ(hdd.value("files", 0), 1);  // the default policy creates on hdd
  EXPECT_GT(hdd.value("total_bytes", uint64_t{0}), 0u);
  EXPECT_EQ(hdd.value("used_bytes", uint64_t{0}) + hdd.value("free_bytes", uint64_t{0}),
            hdd.value("total_bytes", uint64_t{0}));
  EXPECT_EQ(hdd.value("role", ""), "dataonly");
  // Bad input: a clear error and exit status 2.
  r = Tool("fsvoladm", {"list", mnt_, "extra"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsvoladm", {"frobnicate", mnt_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(FsvoladmTest, AddedVolumeTakesNewFilesAtOnce) {
  const std::string dir = root_ + "/archive";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  CommandResult r = Tool("fsvoladm", {"add", mnt_, dir + ":archive"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("added vol3 " + dir + " (class archive"), std::string::npos)
      << r.output;
  nlohmann::json v = Volume("vol3");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.value("class", ""), "archive");
  EXPECT_EQ(v.value("state", ""), "online");
  EXPECT_EQ(v.value("role", ""), "dataonly");

  AssignPolicy(kArchiveFirst);  // names the new class: accepted only now
  const std::string data = RandomBytes(3 * kMiB, 2);
  WriteFile(Path("new"), data);
  EXPECT_EQ(ClassOf("new"), "archive");
  EXPECT_TRUE(ReadFile(Path("new")) == data);
  // Adding the same directory again, or one that does not exist, is refused.
  r = Tool("fsvoladm", {"add", mnt_, dir + ":archive"});
  EXPECT_NE(r.exit_code, 0) << r.output;
  r = Tool("fsvoladm", {"add", mnt_, root_ + "/missing:hdd"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // The volume survives a remount.
  Remount();
  EXPECT_TRUE(ReadFile(Path("new")) == data);
  EXPECT_EQ(ClassOf("new"), "archive");
}

TEST_F(FsvoladmTest, RemoveMovesEveryFileWhileDescriptorsStayOpen) {
  // The default policy creates on hdd (vol2): every file below lives there.
  constexpr int kFiles = 24;
  for (int i = 0; i < kFiles; ++i) {
    WriteFile(Path("f" + std::to_string(i)), RandomBytes(size_t(i) * 37000 + 1, 10 + i));
  }
  ASSERT_EQ(ClassOf("f5"), "hdd");
  const std::string rw_data = RandomBytes(2 * kMiB, 99);
  WriteFile(Path("open_rw"), rw_data);
  WriteFile(Path("open_ro"), RandomBytes(kMiB, 98));
  WriteFile(Path("unlinked"), RandomBytes(kMiB, 97));
  int rw = open(Path("open_rw").c_str(), O_RDWR);
  int ro = open(Path("open_ro").c_str(), O_RDONLY);
  int gone = open(Path("unlinked").c_str(), O_RDWR);
  ASSERT_GE(rw, 0);
  ASSERT_GE(ro, 0);
  ASSERT_GE(gone, 0);
  ASSERT_EQ(unlink(Path("unlinked").c_str()), 0);  // open but nameless: must move too

  // A writer keeps appending to one file during the removal: its move is busy
  // and retried (at last holding its writers), and no byte is lost.
  std::atomic<bool> stop{false};
  std::string appended;
  std::thread writer([&] {
    int fd = open(Path("busy").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    for (int i = 0; !stop.load() && i < 4000; ++i) {
      const std::string chunk = RandomBytes(4096, 5000 + i);
      if (write(fd, chunk.data(), chunk.size()) != ssize_t(chunk.size())) break;
      appended += chunk;
      usleep(500);
    }
    close(fd);
  });
  usleep(100 * 1000);

  CommandResult r = Tool("fsvoladm", {"remove", mnt_, "vol2"});
  stop = true;
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("removed vol2 " + hdd_ + ": moved"), std::string::npos) << r.output;

  // Every file reads back identical, from the remaining volume.
  for (int i = 0; i < kFiles; ++i) {
    const std::string f = "f" + std::to_string(i);
    EXPECT_TRUE(ReadFile(Path(f)) == RandomBytes(size_t(i) * 37000 + 1, 10 + i)) << f;
  }
  EXPECT_EQ(ClassOf("f5"), "ssd");
  EXPECT_TRUE(ReadFile(Path("busy")) == appended) << "the busy file lost bytes";
  EXPECT_EQ(ClassOf("busy"), "ssd");
  // Open descriptors keep working, for reading and writing.
  std::string buf(rw_data.size(), '\0');
  ASSERT_EQ(pread(rw, buf.data(), buf.size(), 0), ssize_t(buf.size()));
  EXPECT_TRUE(buf == rw_data);
  const std::string patch = "written after the volume left";
  ASSERT_EQ(pwrite(rw, patch.data(), patch.size(), 4096), ssize_t(patch.size()));
  ASSERT_EQ(fsync(rw), 0) << strerror(errno);
  std::string expected = rw_data;
  expected.replace(4096, patch.size(), patch);
  EXPECT_TRUE(ReadFile(Path("open_rw")) == expected);
  std::string ro_buf(kMiB, '\0');
  ASSERT_EQ(pread(ro, ro_buf.data(), ro_buf.size(), 0), ssize_t(kMiB));
  EXPECT_TRUE(ro_buf == RandomBytes(kMiB, 98));
  std::string gone_buf(kMiB, '\0');
  ASSERT_EQ(pread(gone, gone_buf.data(), gone_buf.size(), 0), ssize_t(kMiB));
  EXPECT_TRUE(gone_buf == RandomBytes(kMiB, 97));
  close(rw);
  close(ro);
  close(gone);

  // The volume is gone from the list, its label retired, and nothing of the
  // file system's is left on it.
  EXPECT_TRUE(Volume("vol2").is_null());
  EXPECT_NE(ReadFile(hdd_ + "/.tierfs/label").find("retired=1"), std::string::npos);
  // The evacuation's moves stay in the relocation history, naming the volume
  // that left (it has no name in the volume list any more).
  CommandResult status = Tool("fsppadm", {"status", "--json", mnt_});
  EXPECT_NE(status.output.find("\"volume 2 (removed)\""), std::string::npos)
      << status.output.substr(0, 2000);
  // It stays gone after a remount, and every file is still there.
  Remount();
  EXPECT_TRUE(Volume("vol2").is_null());
  EXPECT_TRUE(ReadFile(Path("open_rw")) == expected);
  EXPECT_TRUE(ReadFile(Path("f23")) == RandomBytes(23 * 37000 + 1, 33));
  // A retired directory may be added again.
  r = Tool("fsvoladm", {"add", mnt_, hdd_ + ":hdd"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("added vol3"), std::string::npos) << r.output;
}

TEST_F(FsvoladmTest, RefusesTheMetadataVolume) {
  WriteFile(Path("a"), RandomBytes(1000, 1));
  CommandResult r = Tool("fsvoladm", {"remove", mnt_, "vol1"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds the metadata database"), std::string::npos) << r.output;
  r = Tool("fsvoladm", {"remove", mnt_, ssd_});  // by its directory: the same
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsvoladm", {"remove", mnt_, "vol7"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no volume \"vol7\""), std::string::npos) << r.output;
  EXPECT_EQ(Volume("vol1").value("state", ""), "online");
  EXPECT_TRUE(ReadFile(Path("a")) == RandomBytes(1000, 1));
}

class FsvoladmSmallSsdTest : public FsvoladmTest {
 protected:
  void PrepareVolumes() override { MountScratch(ssd_, "64m"); }
};

TEST_F(FsvoladmSmallSsdTest, RefusesWhenTheOtherVolumesHaveNoRoom) {
  for (int i = 0; i < 10; ++i) {
    WriteFile(Path("big" + std::to_string(i)), RandomBytes(10 * kMiB, i));
  }
  ASSERT_EQ(ClassOf("big0"), "hdd");
  CommandResult r = Tool("fsvoladm", {"remove", mnt_, "vol2"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("lack room"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing"), std::string::npos) << r.output;
  // Nothing changed: still listed, online, and every file where it was.
  nlohmann::json v = Volume("vol2");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.value("state", ""), "online");
  EXPECT_EQ(v.value("files", 0), 10);
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(ReadFile(Path("big" + std::to_string(i))) == RandomBytes(10 * kMiB, i));
  }
  EXPECT_EQ(ClassOf("big3"), "hdd");
  // And new files still go to hdd.
  WriteFile(Path("after"), RandomBytes(1000, 77));
  EXPECT_EQ(ClassOf("after"), "hdd");
}

TEST_F(FsvoladmTest, SetClassChangesPlacement) {
  WriteFile(Path("before"), RandomBytes(5000, 1));
  ASSERT_EQ(ClassOf("before"), "hdd");
  CommandResult r = Tool("fsvoladm", {"setclass", mnt_, "vol2", "archive"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("vol2: class hdd -> archive"), std::string::npos) << r.output;
  EXPECT_EQ(ClassOf("before"), "archive");  // a volume's files belong to its class
  // The default policy creates on hdd, then ssd: with no hdd volume left, ssd.
  WriteFile(Path("no_hdd"), RandomBytes(5000, 3));
  EXPECT_EQ(ClassOf("no_hdd"), "ssd");
  AssignPolicy(kArchiveThenSsd);
  WriteFile(Path("after"), RandomBytes(5000, 2));
  EXPECT_EQ(ClassOf("after"), "archive");
  // Bad class names and unknown volumes change nothing.
  r = Tool("fsvoladm", {"setclass", mnt_, "vol2", "no/slash"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = Tool("fsvoladm", {"setclass", mnt_, "vol9", "hdd"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(Volume("vol2").value("class", ""), "archive");
  Remount();  // the class is in the database
  EXPECT_EQ(Volume("vol2").value("class", ""), "archive");
}

TEST_F(FsvoladmTest, MkdstfsOnTheExistingFileSystemAddsVolumes) {
  const std::string dir = root_ + "/hdd2";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  // Another name on the same mount point is refused, nothing changed.
  CommandResult r = Tool("mkdstfs", {mnt_, "otherfs", dir + ":hdd"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Volume("vol3").is_null());
  // The same file system: the new directory is added, the existing ones stay.
  r = Tool("mkdstfs", {mnt_, "testfs", ssd_ + ":ssd", hdd_ + ":hdd", dir + ":hdd"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("added vol3 " + dir + " (class hdd"), std::string::npos) << r.output;
  nlohmann::json v = Volume("vol3");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.value("class", ""), "hdd");
  EXPECT_EQ(v.value("path", ""), dir);
  ASSERT_EQ(ListJson()["volumes"].size(), 3u);
  // Running it again changes nothing.
  r = Tool("mkdstfs", {mnt_, "testfs", dir + ":hdd"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(ListJson()["volumes"].size(), 3u);
  // New files use the hdd class, which now spans two volumes.
  for (int i = 0; i < 6; ++i) WriteFile(Path("n" + std::to_string(i)), RandomBytes(4096, i));
  EXPECT_EQ(ClassOf("n0"), "hdd");
}

}  // namespace
}  // namespace tierfs::testing

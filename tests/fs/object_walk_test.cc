// The object-store walker (fs/volume/object_walk.h): names parsed, strays and
// wrong directories told apart, unreadable directories reported through the seam.
#include "fs/volume/object_walk.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fs/volume/fault_injecting_volume_io.h"
#include "fs/volume/volume_label.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs {
namespace {

TEST(ObjectNames, ParseAndPath) {
  EXPECT_EQ(ObjectPathIn("/v", 258, 1), "/v/.tierfs/objects/02/258.1");
  EXPECT_EQ(ObjectSubdirName(255), "ff");
  auto name = ParseObjectName("258.3");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->ino, 258u);
  EXPECT_EQ(name->generation, 3u);
  for (const char* bad : {"", "1", "1.", ".1", "a.1", "1.1.1", "01.1", "1.0", "0.1", "1.1x",
                          "99999999999999999999999.1"}) {
    EXPECT_FALSE(ParseObjectName(bad)) << bad;
  }
  EXPECT_TRUE(IsObjectSubdirName("0a"));
  for (const char* bad : {"", "0", "0A", "0g", "000"}) EXPECT_FALSE(IsObjectSubdirName(bad)) << bad;
}

class ObjectWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    volume_ = dir_.path() + "/v";
    ASSERT_EQ(mkdir(volume_.c_str(), 0755), 0);
    const meta::FsInfo info = meta::testing::TestFsInfo();
    ASSERT_TRUE(WriteVolumeLabel(volume_, {info.uuid, info.name, 1, "vol1"}).ok());
  }
  void Put(const std::string& relative, const std::string& data) {
    const std::string path = ObjectsDir(volume_) + "/" + relative;
    mkdir(path.substr(0, path.rfind('/')).c_str(), 0700);
    std::ofstream(path, std::ios::binary) << data;
  }
  // What a walk reports: path -> "object I.G[ wrong] SIZE" | "entry" | "stray" | errno name.
  std::map<std::string, std::string> Walk(VolumeIo& io, ObjectWalkDepth depth) {
    std::map<std::string, std::string> out;
    ObjectWalkCallbacks c;
    c.entry = [&](const WalkedObject& o) {
      out[o.path] = o.id ? "object " + std::to_string(o.id->ino) + "." +
                               std::to_string(o.id->generation) +
                               (o.wrong_subdir ? " wrong" : "") + " " +
                               std::to_string(o.st.st_size)
                         : "entry";
    };
    c.stray = [&](const std::string& path) { out[path] = "stray"; };
    c.unreadable = [&](const std::string& path, int error) {
      out[path] = error == EIO ? "EIO" : error == ENOENT ? "ENOENT" : std::to_string(error);
    };
    WalkObjectStore(io, volume_, depth, c);
    return out;
  }

  meta::testing::TempDir dir_;
  std::string volume_;
};

TEST_F(ObjectWalkTest, YieldsEachObjectWithItsIdentity) {
  Put("02/258.3", "abc");
  Put("02/not-an-object", "x");
  Put("03/258.1", "");  // a good name in the wrong directory
  Put("README", "hello");
  ASSERT_EQ(mkdir((ObjectsDir(volume_) + "/zz").c_str(), 0700), 0);
  const std::string o = ObjectsDir(volume_) + "/";
  EXPECT_EQ(Walk(VolumeIo::Posix(), ObjectWalkDepth::kAttributes),
            (std::map<std::string, std::string>{{o + "02/258.3", "object 258.3 3"},
                                                {o + "02/not-an-object", "entry"},
                                                {o + "03/258.1", "object 258.1 wrong 0"},
                                                {o + "README", "stray"},
                                                {o + "zz", "stray"}}));
  // Names only: no stat of each object (its size is not known).
  EXPECT_EQ(Walk(VolumeIo::Posix(), ObjectWalkDepth::kNames)[o + "02/258.3"], "object 258.3 0");
}

TEST_F(ObjectWalkTest, ReportsWhatItCannotReadAndGoesOn) {
  Put("02/258.3", "abc");
  Put("05/261.1", "de");
  const std::string o = ObjectsDir(volume_) + "/";
  auto faults = FaultInjectingVolumeIo::Create("readdir:/objects/02@1+=EIO", VolumeIo::Posix());
  ASSERT_TRUE(faults.ok());
  EXPECT_EQ(Walk(**faults, ObjectWalkDepth::kAttributes),
            (std::map<std::string, std::string>{{o + "02", "EIO"},
                                                {o + "05/261.1", "object 261.1 2"}}));
  faults = FaultInjectingVolumeIo::Create("stat:/objects/05/@1+=EIO", VolumeIo::Posix());
  ASSERT_TRUE(faults.ok());
  EXPECT_EQ(Walk(**faults, ObjectWalkDepth::kAttributes),
            (std::map<std::string, std::string>{{o + "02/258.3", "object 258.3 3"},
                                                {o + "05/261.1", "EIO"}}));
  faults = FaultInjectingVolumeIo::Create("readdir@1=EIO", VolumeIo::Posix());
  ASSERT_TRUE(faults.ok());
  EXPECT_EQ(Walk(**faults, ObjectWalkDepth::kNames),
            (std::map<std::string, std::string>{{ObjectsDir(volume_), "EIO"}}));
  std::filesystem::remove_all(ObjectsDir(volume_));
  EXPECT_EQ(Walk(VolumeIo::Posix(), ObjectWalkDepth::kNames),
            (std::map<std::string, std::string>{{ObjectsDir(volume_), "ENOENT"}}));
}

}  // namespace
}  // namespace tierfs

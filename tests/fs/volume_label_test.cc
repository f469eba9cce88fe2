#include "fs/volume/volume_label.h"

#include <dirent.h>
#include <ftw.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace tierfs {
namespace {

class VolumeLabelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-label-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    nftw(
        dir_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  static bool Exists(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0;
  }
  std::vector<std::string> TierfsEntries() {
    std::vector<std::string> names;
    DIR* d = opendir(TierfsDir(dir_).c_str());
    if (d == nullptr) return names;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir_;
  VolumeLabel label_{"0b9d3c1e-2f4a-4e59-8a67-5d1c2b3a4f50", "data", 2, "vol2"};
};

TEST_F(VolumeLabelTest, PathsInsideAVolume) {
  EXPECT_EQ(TierfsDir("/v"), "/v/.tierfs");
  EXPECT_EQ(TierfsDir("/v/"), "/v/.tierfs");
  EXPECT_EQ(TierfsDir("/"), "/.tierfs");
  EXPECT_EQ(ObjectsDir("/v"), "/v/.tierfs/objects");
  EXPECT_EQ(TmpDir("/v"), "/v/.tierfs/tmp");
  EXPECT_EQ(MetadataDbPath("/v"), "/v/.tierfs/meta.db");
  EXPECT_EQ(ControlSocketPath("/v"), "/v/.tierfs/control.sock");
  EXPECT_EQ(VolumeLabelPath("/v"), "/v/.tierfs/label");
}

TEST_F(VolumeLabelTest, WriteThenRead) {
  ASSERT_TRUE(WriteVolumeLabel(dir_, label_).ok());
  Result<VolumeLabel> read = ReadVolumeLabel(dir_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->fs_uuid, label_.fs_uuid);
  EXPECT_EQ(read->fs_name, "data");
  EXPECT_EQ(read->volume_id, 2u);
  EXPECT_EQ(read->volume_name, "vol2");
  // The layout exists and no temporary file is left behind.
  EXPECT_EQ(TierfsEntries(), (std::vector<std::string>{"label", "objects", "tmp"}));
  struct stat st;
  ASSERT_EQ(stat(TierfsDir(dir_).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(VolumeLabelTest, RewritingOwnLabelIsAllowed) {
  ASSERT_TRUE(WriteVolumeLabel(dir_, label_).ok());
  VolumeLabel renamed = label_;
  renamed.volume_name = "fast1";
  ASSERT_TRUE(WriteVolumeLabel(dir_, renamed).ok());
  EXPECT_EQ(ReadVolumeLabel(dir_)->volume_name, "fast1");
}

TEST_F(VolumeLabelTest, AnotherFileSystemsLabelIsNeverOverwritten) {
  ASSERT_TRUE(WriteVolumeLabel(dir_, label_).ok());
  VolumeLabel other = label_;
  other.fs_uuid = "ffffffff-0000-0000-0000-000000000000";
  Status st = WriteVolumeLabel(dir_, other);
  EXPECT_EQ(st.code(), EEXIST);
  EXPECT_NE(st.message().find(dir_), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("data"), std::string::npos) << st.message();
  EXPECT_EQ(ReadVolumeLabel(dir_)->fs_uuid, label_.fs_uuid);

  // An unreadable label is not overwritten either.
  Write(VolumeLabelPath(dir_), "garbage\n");
  EXPECT_EQ(WriteVolumeLabel(dir_, label_).code(), EEXIST);
}

TEST_F(VolumeLabelTest, MissingOrWrongDirectory) {
  Status st = WriteVolumeLabel(dir_ + "/missing", label_);
  EXPECT_EQ(st.code(), ENOENT);
  EXPECT_NE(st.message().find(dir_ + "/missing"), std::string::npos);
  Write(dir_ + "/file", "x");
  st = WriteVolumeLabel(dir_ + "/file", label_);
  EXPECT_EQ(st.code(), ENOTDIR);
  EXPECT_NE(st.message().find(dir_ + "/file"), std::string::npos);
  Result<VolumeLabel> r = ReadVolumeLabel(dir_ + "/missing");
  EXPECT_EQ(r.status().code(), ENOENT);
  EXPECT_NE(r.status().message().find("does not exist"), std::string::npos);
}

TEST_F(VolumeLabelTest, MissingLabelSaysIsItsDeviceMounted) {
  Result<VolumeLabel> r = ReadVolumeLabel(dir_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ENOENT);
  EXPECT_NE(r.status().message().find(dir_), std::string::npos);
  EXPECT_NE(r.status().message().find("is its device mounted?"), std::string::npos);
}

TEST_F(VolumeLabelTest, InvalidLabelsToWrite) {
  VolumeLabel bad = label_;
  bad.fs_uuid = "";
  EXPECT_EQ(WriteVolumeLabel(dir_, bad).code(), EINVAL);
  bad = label_;
  bad.volume_id = 0;
  EXPECT_EQ(WriteVolumeLabel(dir_, bad).code(), EINVAL);
  bad = label_;
  bad.fs_name = "two\nlines";
  EXPECT_EQ(WriteVolumeLabel(dir_, bad).code(), EINVAL);
  EXPECT_FALSE(Exists(TierfsDir(dir_)));  // nothing was created
}

TEST_F(VolumeLabelTest, MalformedLabelsAreEinval) {
  ASSERT_EQ(mkdir(TierfsDir(dir_).c_str(), 0700), 0);
  const std::string path = VolumeLabelPath(dir_);
  for (const char* text : {"", "not a label\n", "tierfs-volume-label 1\nfs_uuid=u\nvolume_name=v\n",
                           "tierfs-volume-label 1\nfs_uuid=u\nvolume_id=x\nvolume_name=v\n",
                           "tierfs-volume-label 1\nfs_uuid=u\nvolume_id=0\nvolume_name=v\n",
                           "tierfs-volume-label 1\nfs_uuid=u\nvolume_id=1\n",
                           "tierfs-volume-label 1\nvolume_id=1\nvolume_name=v\n",
                           "tierfs-volume-label 1\nno equals sign\n"}) {
    Write(path, text);
    Result<VolumeLabel> r = ReadVolumeLabel(dir_);
    EXPECT_EQ(r.status().code(), EINVAL) << text;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find(path), std::string::npos);
    }
  }
  Write(path, std::string(70000, 'x'));
  EXPECT_EQ(ReadVolumeLabel(dir_).status().code(), EINVAL);
}

TEST_F(VolumeLabelTest, UnknownKeysAndCommentsAreIgnored) {
  ASSERT_EQ(mkdir(TierfsDir(dir_).c_str(), 0700), 0);
  Write(VolumeLabelPath(dir_),
        "tierfs-volume-label 1\r\n# written by hand\nfs_uuid=u-1\nfuture_key=1\n"
        "volume_id=7\nvolume_name=cold\n");
  Result<VolumeLabel> r = ReadVolumeLabel(dir_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->fs_uuid, "u-1");
  EXPECT_EQ(r->fs_name, "");
  EXPECT_EQ(r->volume_id, 7u);
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

TEST_F(VolumeLabelTest, ARetiredLabelReadsBackAndMayBeTakenOver) {
  VolumeLabel retired = label_;
  retired.retired = true;
  ASSERT_TRUE(WriteVolumeLabel(dir_, retired).ok());
  Result<VolumeLabel> read = ReadVolumeLabel(dir_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->retired);
  // Another file system may label a retired volume's directory...
  VolumeLabel other{"11111111-2222-4333-8444-555555555555", "other", 3, "vol3"};
  ASSERT_TRUE(WriteVolumeLabel(dir_, other).ok());
  read = ReadVolumeLabel(dir_);
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->retired);
  EXPECT_EQ(read->fs_name, "other");
  // ...but never a live one.
  Status st = WriteVolumeLabel(dir_, label_);
  EXPECT_EQ(st.code(), EEXIST) << st.ToString();
}

TEST(SimpleNameTest, ClassAndFileSystemNames) {
  EXPECT_TRUE(CheckSimpleName("hdd", "class name").ok());
  EXPECT_TRUE(CheckSimpleName("tier_0.fast-1", "class name").ok());
  EXPECT_EQ(CheckSimpleName("", "class name").code(), EINVAL);
  EXPECT_EQ(CheckSimpleName("-x", "class name").code(), EINVAL);
  EXPECT_EQ(CheckSimpleName("a/b", "class name").code(), EINVAL);
  EXPECT_EQ(CheckSimpleName(std::string(65, 'a'), "class name").code(), EINVAL);
  EXPECT_NE(CheckSimpleName("a b", "class name").message().find("class name \"a b\""),
            std::string::npos);
}

}  // namespace
}  // namespace tierfs

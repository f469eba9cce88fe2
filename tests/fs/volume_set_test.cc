// VolumeSet changes at run time (fs/volume/volume_set.h): Add, Remove, SetClass and
// draining publish new snapshots that placement sees at once, while references
// taken before stay valid.
#include "fs/volume/volume_set.h"

#include <ftw.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "fs/volume/volume_label.h"

namespace tierfs {
namespace {

constexpr char kUuid[] = "0b9d3c1e-2f4a-4e59-8a67-5d1c2b3a4f50";

class VolumeSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-volset-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    nftw(
        root_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  // A labelled volume directory and its row.
  meta::Volume MakeVolume(uint32_t id, const std::string& cls) {
    meta::Volume v;
    v.id = id;
    v.name = "vol" + std::to_string(id);
    v.path = root_ + "/" + v.name;
    v.placement_class = cls;
    v.media_type = "hdd";
    v.media_type_source = "configured";
    v.role = id == 1 ? "metadataok" : "dataonly";
    v.state = "online";
    EXPECT_EQ(mkdir(v.path.c_str(), 0755), 0);
    EXPECT_TRUE(WriteVolumeLabel(v.path, VolumeLabel{kUuid, "t", id, v.name}).ok());
    return v;
  }
  static const policy::VolumeState* StateOf(const std::vector<policy::VolumeState>& space,
                                            uint32_t id) {
    for (const policy::VolumeState& s : space) {
      if (s.id == id) return &s;
    }
    return nullptr;
  }
  std::string root_;
  const Clock& clock_ = SystemClock::Get();
};

TEST_F(VolumeSetTest, AddRemoveAndSetClassAtRunTime) {
  auto set = VolumeSet::Open({MakeVolume(1, "ssd"), MakeVolume(2, "hdd")}, kUuid, clock_);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  VolumeSet& vs = **set;
  const std::vector<meta::Volume>& before = vs.volumes();
  const meta::Volume* vol2 = vs.Find(2);
  ASSERT_NE(vol2, nullptr);

  meta::Volume v3 = MakeVolume(3, "archive");
  ASSERT_TRUE(vs.Add(v3).ok());
  EXPECT_EQ(vs.volumes().size(), 3u);
  EXPECT_EQ(before.size(), 2u);  // an old snapshot stays as it was, and valid
  EXPECT_EQ(vs.NameOf(3), "vol3");
  ASSERT_NE(StateOf(vs.Space(), 3), nullptr);  // placement sees it at once
  EXPECT_TRUE(StateOf(vs.Space(), 3)->accepts_data);
  EXPECT_EQ(vs.Add(v3).code(), EEXIST);

  ASSERT_TRUE(vs.SetClass(2, "cold").ok());
  EXPECT_EQ(vs.Find(2)->placement_class, "cold");
  EXPECT_EQ(vol2->placement_class, "hdd");  // the old pointer still reads
  EXPECT_EQ(StateOf(vs.Space(), 2)->classes, std::vector<std::string>{"cold"});
  EXPECT_EQ(vs.SetClass(9, "x").code(), ENOENT);
  EXPECT_EQ(vs.SetClass(2, "").code(), EINVAL);

  ASSERT_TRUE(vs.SetDraining(2, true).ok());
  EXPECT_TRUE(vs.Draining(2));
  EXPECT_FALSE(StateOf(vs.Space(), 2)->accepts_data);
  ASSERT_TRUE(vs.SetDraining(2, false).ok());
  EXPECT_TRUE(StateOf(vs.Space(), 2)->accepts_data);

  EXPECT_EQ(vs.Remove(1).code(), EINVAL);  // the metadata volume
  ASSERT_TRUE(vs.Remove(2).ok());
  EXPECT_EQ(vs.Find(2), nullptr);
  EXPECT_EQ(StateOf(vs.Space(), 2), nullptr);
  EXPECT_EQ(vs.Health(2), VolumeHealth::kOffline);  // unknown ids take no data
  EXPECT_EQ(vs.Remove(2).code(), ENOENT);
  EXPECT_EQ(vs.metadata_volume_id(), 1u);
}

TEST_F(VolumeSetTest, AddRefusesAWrongOrRetiredLabel) {
  auto set = VolumeSet::Open({MakeVolume(1, "ssd")}, kUuid, clock_);
  ASSERT_TRUE(set.ok());
  meta::Volume v2 = MakeVolume(2, "hdd");
  v2.id = 5;  // the label says 2
  EXPECT_EQ((*set)->Add(v2).code(), EINVAL);
  v2.id = 2;
  ASSERT_TRUE(WriteVolumeLabel(v2.path, VolumeLabel{kUuid, "t", 2, "vol2", true}).ok());
  EXPECT_EQ((*set)->Add(v2).code(), EINVAL);
  EXPECT_EQ((*set)->volumes().size(), 1u);
}

}  // namespace
}  // namespace tierfs

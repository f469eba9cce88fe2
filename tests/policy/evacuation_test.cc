// PlanEvacuation / ChooseEvacuationVolume (policy/evacuation.h): where the files
// of a volume being removed go, and how much room is missing.
#include "policy/evacuation.h"

#include <gtest/gtest.h>

namespace tierfs::policy {
namespace {

constexpr uint64_t kMiB = 1 << 20;

VolumeState Vol(uint32_t id, const std::string& cls, uint64_t free_mib) {
  VolumeState v;
  v.id = id;
  v.name = "vol" + std::to_string(id);
  v.classes = {cls};
  v.total_bytes = 1000 * kMiB;
  v.free_bytes = free_mib * kMiB;
  v.reserve_bytes = 0;
  return v;
}

CreatePlacement Classes(std::vector<std::string> classes) {
  CreatePlacement p;
  p.governed = true;
  p.has_create = true;
  p.classes = std::move(classes);
  p.balance_sizes.assign(p.classes.size(), 0);
  return p;
}

TEST(EvacuationTest, FilesGoWhereTheirCreateRuleSaysNeverToTheLeavingVolume) {
  std::vector<VolumeState> vols = {Vol(1, "ssd", 500), Vol(2, "hdd", 900), Vol(3, "hdd", 400)};
  EvacuationPlan plan = PlanEvacuation(
      {{10, 100 * kMiB, Classes({"hdd", "ssd"})}, {11, 50 * kMiB, Classes({"ssd"})}}, vols, 2);
  ASSERT_TRUE(plan.fits());
  ASSERT_EQ(plan.targets.size(), 2u);
  EXPECT_EQ(plan.targets[0].ino, 10u);  // largest first
  EXPECT_EQ(plan.targets[0].volume_id, 3u);  // the other hdd volume, not the leaving one
  EXPECT_EQ(plan.targets[1].volume_id, 1u);
  EXPECT_EQ(plan.outside_create_classes, 0u);
}

TEST(EvacuationTest, ProjectedFreeSpaceIsNeverCountedTwice) {
  std::vector<VolumeState> vols = {Vol(1, "ssd", 150), Vol(2, "hdd", 900), Vol(3, "hdd", 150)};
  // Two 100 MiB hdd files: one fits on vol3, the other spills to ssd (the
  // default allocator: its class has no room left).
  EvacuationPlan plan = PlanEvacuation(
      {{10, 100 * kMiB, Classes({"hdd"})}, {11, 100 * kMiB, Classes({"hdd"})}}, vols, 2);
  ASSERT_TRUE(plan.fits());
  EXPECT_EQ(plan.targets[0].volume_id, 3u);
  EXPECT_EQ(plan.targets[1].volume_id, 1u);
  EXPECT_TRUE(plan.targets[1].outside_create_classes);
  EXPECT_EQ(plan.outside_create_classes, 1u);
}

TEST(EvacuationTest, SaysHowManyBytesAreMissing) {
  std::vector<VolumeState> vols = {Vol(1, "ssd", 60), Vol(2, "hdd", 900)};
  EvacuationPlan plan =
      PlanEvacuation({{10, 50 * kMiB, {}}, {11, 40 * kMiB, {}}, {12, 5 * kMiB, {}}}, vols, 2);
  EXPECT_FALSE(plan.fits());
  EXPECT_EQ(plan.unplaced_files, 1u);
  EXPECT_EQ(plan.unplaced_bytes, 40 * kMiB);  // 50 and 5 fit in 60, 40 does not
}

TEST(EvacuationTest, VolumesThatTakeNoDataAreSkipped) {
  std::vector<VolumeState> vols = {Vol(1, "ssd", 500), Vol(2, "hdd", 900), Vol(3, "hdd", 900)};
  vols[2].accepts_data = false;  // full or offline
  bool outside = false;
  EXPECT_EQ(ChooseEvacuationVolume(Classes({"hdd"}), vols, 2, kMiB, &outside), 1u);
  EXPECT_TRUE(outside);
  EXPECT_EQ(ChooseEvacuationVolume(Classes({"ssd"}), vols, 2, kMiB, &outside), 1u);
  EXPECT_FALSE(outside);
  EXPECT_EQ(ChooseEvacuationVolume(Classes({"ssd"}), vols, 2, 600 * kMiB, &outside),
            std::nullopt);
}

}  // namespace
}  // namespace tierfs::policy

// CREATE placement (docs/policies.md "Rules" and "CREATE: where new files go").
#include "policy/create_placement.h"

#include <gtest/gtest.h>

#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::kMiB;
using testing::MustLoad;
using testing::PolicyXml;
using testing::Volume;

CreateRequest Request(const std::string& path, const std::string& user = "alice") {
  return CreateRequest{path, 1000, 100, user, "staff"};
}

TEST(CreatePlacement, MkdstfsDefaultPutsFilesOnHddThenSsdmetadataThenFails) {
  PlacementPolicy p = MustLoad(testing::ReadTestData("mkdstfs_default.xml"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/any/file"));
  EXPECT_TRUE(c.governed);
  EXPECT_EQ(c.rule, "ssdfs_policy");
  EXPECT_TRUE(c.has_create);
  EXPECT_EQ(c.classes, (std::vector<std::string>{"hdd", "ssdmetadata"}));
  EXPECT_FALSE(c.any);

  std::vector<VolumeState> vols{Volume(1, "ssdmetadata", 100 * kMiB, 90 * kMiB),
                                Volume(2, "hdd", 1000 * kMiB, 10 * kMiB),
                                Volume(3, "hdd", 1000 * kMiB, 20 * kMiB)};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 0), 3u);  // the hdd volume with most free space
  EXPECT_EQ(ChooseCreateVolume(c, vols, 15 * kMiB), 3u);
  EXPECT_EQ(ChooseCreateVolume(c, vols, 25 * kMiB), 1u);  // hdd full: ssdmetadata
  EXPECT_EQ(ChooseCreateVolume(c, vols, 95 * kMiB), std::nullopt);  // nothing has room: ENOSPC
  vols.push_back(Volume(4, "other", 1000 * kMiB, 900 * kMiB));
  // Other classes have space, but without Flags="any" the create fails (ENOSPC).
  EXPECT_EQ(ChooseCreateVolume(c, vols, 95 * kMiB), std::nullopt);
}

TEST(CreatePlacement, ReservesAreKept) {
  PlacementPolicy p = MustLoad(testing::ReadTestData("mkdstfs_default.xml"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/f"));
  std::vector<VolumeState> vols{Volume(1, "ssdmetadata", 100, 50, 40),
                                Volume(2, "hdd", 100, 30, 25)};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 5), 2u);   // 30 - 25 >= 5
  EXPECT_EQ(ChooseCreateVolume(c, vols, 6), 1u);   // 50 - 40 >= 6
  EXPECT_EQ(ChooseCreateVolume(c, vols, 11), std::nullopt);
  vols[1].free_bytes = 20;  // below its reserve: no room even for an empty file
  EXPECT_EQ(ChooseCreateVolume(c, vols, 0), 1u);
}

TEST(CreatePlacement, AnyFallsBackToTheVolumeWithMostFreeSpace) {
  PlacementPolicy p = MustLoad(testing::ReadTestData("ssd_read_intensive_template.xml"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/f"));
  EXPECT_TRUE(c.any);  // written as DESTINATION Flags="any" in the template
  EXPECT_EQ(c.classes, std::vector<std::string>{"ssdtier"});
  std::vector<VolumeState> vols{Volume(1, "ssdtier", 100, 10), Volume(2, "nonssdtier", 1000, 300),
                                Volume(3, "nonssdtier", 1000, 500)};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 10), 1u);
  EXPECT_EQ(ChooseCreateVolume(c, vols, 11), 3u);
  EXPECT_EQ(ChooseCreateVolume(c, vols, 501), std::nullopt);  // the whole set is full
}

TEST(CreatePlacement, UngovernedAndCreatelessFilesUseTheDefaultAllocator) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="logs">
  <SELECT><PATTERN>*.log</PATTERN></SELECT>
  <RELOCATE><TO><DESTINATION><CLASS>ssd</CLASS></DESTINATION></TO></RELOCATE>
</RULE>)"));
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 60), Volume(2, "hdd", 1000, 50)};
  CreatePlacement none = ChooseCreateClasses(p, Request("/x.txt"));
  EXPECT_FALSE(none.governed);
  EXPECT_EQ(ChooseCreateVolume(none, vols, 1), 1u);
  CreatePlacement createless = ChooseCreateClasses(p, Request("/x.log"));
  EXPECT_TRUE(createless.governed);
  EXPECT_EQ(createless.rule, "logs");
  EXPECT_FALSE(createless.has_create);
  EXPECT_EQ(ChooseCreateVolume(createless, vols, 55), 1u);
  EXPECT_EQ(ChooseCreateVolume(createless, vols, 61), std::nullopt);
}

TEST(CreatePlacement, ClassesWithoutVolumesAreSkipped) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/>
  <CREATE><ON><DESTINATION><CLASS>gone</CLASS></DESTINATION>
    <DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE></RULE>)"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/x"));
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 90), Volume(2, "hdd", 100, 10)};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 5), 2u);
}

TEST(CreatePlacement, SelectionUsesPathAndOwnerButNotTags) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="tagged">
  <SELECT><TAG>hot</TAG></SELECT>
  <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
</RULE>
<RULE Flags="data" Name="oracle">
  <SELECT><DIRECTORY Flags="recursive">db</DIRECTORY><USER>oracle</USER></SELECT>
  <CREATE><ON Flags="any"><DESTINATION><CLASS>ssd</CLASS></DESTINATION>
    <DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
</RULE>)"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/db/t1.dbf", "oracle"));
  EXPECT_EQ(c.rule, "oracle");  // a new file has no tags yet
  EXPECT_TRUE(c.any);
  EXPECT_EQ(c.classes, (std::vector<std::string>{"ssd", "hdd"}));
  EXPECT_FALSE(ChooseCreateClasses(p, Request("/db/t1.dbf", "alice")).governed);
}

// The daemon leaves out a new file's directory (a climb to the root in the
// database) when the policy says it does not need it: the choice must be the
// same as with the whole path.
TEST(CreatePlacement, PoliciesThatNeedTheDirectorySayAndOthersDecideByName) {
  PlacementPolicy by_name = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="logs">
  <SELECT><PATTERN>*.log</PATTERN><USER>oracle</USER></SELECT>
  <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
</RULE>
<RULE Flags="data" Name="rest">
  <SELECT><PATTERN>*</PATTERN></SELECT>
  <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
</RULE>)"));
  EXPECT_FALSE(by_name.SelectsByDirectory());
  for (const std::string name : {"a.log", "b.dbf", "log"}) {
    for (const std::string user : {"oracle", "alice"}) {
      CreatePlacement whole = ChooseCreateClasses(by_name, Request("/x/y/" + name, user));
      CreatePlacement named = ChooseCreateClasses(by_name, Request("/" + name, user));
      EXPECT_EQ(whole.rule, named.rule) << name << " " << user;
      EXPECT_EQ(whole.classes, named.classes) << name << " " << user;
    }
  }
  EXPECT_TRUE(MustLoad(PolicyXml(R"(<RULE Flags="data" Name="db">
  <SELECT><DIRECTORY Flags="nonrecursive">db</DIRECTORY></SELECT>
  <CREATE><ON><DESTINATION><CLASS>ssd</CLASS></DESTINATION></ON></CREATE>
</RULE>)")).SelectsByDirectory());
  EXPECT_TRUE(MustLoad(PolicyXml(R"(<RULE Flags="data" Name="tmp">
  <SELECT><PATTERN Flags="recursive">tmp</PATTERN></SELECT>
  <CREATE><ON><DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE>
</RULE>)")).SelectsByDirectory());
}

TEST(CreatePlacement, BalanceSizeSpreadsByFillRatio) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/>
  <CREATE><ON><DESTINATION><CLASS>hdd</CLASS><BALANCE_SIZE Units="MB">1</BALANCE_SIZE>
  </DESTINATION></ON></CREATE></RULE>)"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/x"));
  ASSERT_EQ(c.balance_sizes, std::vector<uint64_t>{kMiB});
  // Volume 2 has more free bytes, volume 3 is less used: BALANCE_SIZE picks 3.
  std::vector<VolumeState> vols{Volume(2, "hdd", 1000, 400), Volume(3, "hdd", 100, 90)};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 10), 3u);
  c.balance_sizes = {0};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 10), 2u);  // without it: most free bytes
}

// An object volume takes relocations only: a CREATE naming its class
// falls to the next class, and the default allocator passes it by too.
TEST(CreatePlacement, VolumesThatTakeNoCreatesArePassedBy) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/>
  <CREATE><ON><DESTINATION><CLASS>cloud</CLASS></DESTINATION>
    <DESTINATION><CLASS>hdd</CLASS></DESTINATION></ON></CREATE></RULE>)"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/x"));
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 90), Volume(2, "hdd", 100, 10),
                                Volume(3, "cloud", 1000, 1000)};
  vols[2].takes_creates = false;
  EXPECT_EQ(ChooseCreateVolume(c, vols, 5), 2u);
  EXPECT_EQ(ChooseCreateVolume(c, vols, 50), std::nullopt);  // hdd full; cloud takes none
  CreatePlacement none;  // not governed: the default allocator
  EXPECT_EQ(ChooseCreateVolume(none, vols, 5), 1u);  // not the store, whatever its room
  vols[2].takes_creates = true;
  EXPECT_EQ(ChooseCreateVolume(c, vols, 5), 3u);
}

TEST(CreatePlacement, ClasslessDestinationUnderAnyIsOnlyAFallback) {
  PlacementPolicy p = MustLoad(PolicyXml(R"(<RULE Flags="data" Name="r"><SELECT/>
  <CREATE><ON Flags="any"><DESTINATION/></ON></CREATE></RULE>)"));
  CreatePlacement c = ChooseCreateClasses(p, Request("/x"));
  EXPECT_TRUE(c.classes.empty());
  std::vector<VolumeState> vols{Volume(1, "ssd", 100, 20), Volume(2, "hdd", 100, 30)};
  EXPECT_EQ(ChooseCreateVolume(c, vols, 1), 2u);
}

}  // namespace
}  // namespace tierfs::policy

#include "cli/mkdstfs/default_policy.h"
#include "cli/mkdstfs/mkdstfs_plan.h"

#include <gtest/gtest.h>

namespace tierfs::cli {
namespace {

VolumeProbe Probe(const std::string& dir, const std::string& media, const std::string& cls = "",
                  uint64_t device = 0) {
  VolumeProbe p;
  p.spec.dir = dir;
  p.spec.placement_class = cls;
  p.media_type = media;
  if (media.empty()) p.detect_error = "tmpfs";
  p.device = device == 0 ? std::hash<std::string>()(dir) : device;
  p.identity = dir;
  return p;
}

// "name:class:media:source:role:path" for each volume, for compact expectations.
std::vector<std::string> Describe(const MkdstfsPlan& plan) {
  std::vector<std::string> out;
  for (const meta::Volume& v : plan.volumes) {
    out.push_back(v.name + ":" + v.placement_class + ":" + v.media_type + ":" +
                  v.media_type_source + ":" + v.role + ":" + v.path);
  }
  return out;
}

TEST(MkdstfsPlan, PapersExampleHddThenSsd) {
  // mkdstfs -v /dst ssdg ssdvset hddvol ssdvvol: the SSD becomes volume 0,
  // tagged ssdmetadata; the HDD is hdd.
  Result<MkdstfsPlan> plan = PlanVolumes({Probe("/hdd", "hdd"), Probe("/ssd", "ssd")}, false);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(Describe(*plan),
            (std::vector<std::string>{"vol1:ssdmetadata:ssd:detected:metadataok:/ssd",
                                      "vol2:hdd:hdd:detected:dataonly:/hdd"}));
  EXPECT_EQ(plan->volumes[0].id, 1u);
  EXPECT_EQ(plan->volumes[1].id, 2u);
  EXPECT_EQ(plan->default_create_classes, (std::vector<std::string>{"hdd", "ssdmetadata"}));
  EXPECT_TRUE(plan->warnings.empty());
}

TEST(MkdstfsPlan, FirstSsdWinsAndOnlyItIsSsdmetadata) {
  Result<MkdstfsPlan> plan = PlanVolumes(
      {Probe("/h1", "hdd"), Probe("/s1", "ssd"), Probe("/s2", "ssd"), Probe("/h2", "hdd")}, false);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(
      Describe(*plan),
      (std::vector<std::string>{
          "vol1:ssdmetadata:ssd:detected:metadataok:/s1", "vol2:hdd:hdd:detected:dataonly:/h1",
          "vol3:ssd:ssd:detected:dataonly:/s2", "vol4:hdd:hdd:detected:dataonly:/h2"}));
}

TEST(MkdstfsPlan, MixedWhenNoSsd) {
  Result<MkdstfsPlan> plan =
      PlanVolumes({Probe("/h", "hdd"), Probe("/m1", "mixed"), Probe("/m2", "mixed")}, false);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->volumes[0].path, "/m1");
  EXPECT_EQ(plan->volumes[0].placement_class, "mixed");  // only SSDs become ssdmetadata
  EXPECT_EQ(plan->volumes[0].role, "metadataok");
}

TEST(MkdstfsPlan, NoSsdNeedsForce) {
  Result<MkdstfsPlan> plan = PlanVolumes({Probe("/h1", "hdd"), Probe("/h2", "hdd")}, false);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), EINVAL);
  EXPECT_NE(plan.status().message().find("-f"), std::string::npos);
  EXPECT_NE(plan.status().message().find("/h1"), std::string::npos);
  plan = PlanVolumes({Probe("/h1", "hdd"), Probe("/h2", "hdd")}, true);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Describe(*plan), (std::vector<std::string>{"vol1:hdd:hdd:detected:metadataok:/h1",
                                                       "vol2:hdd:hdd:detected:dataonly:/h2"}));
  ASSERT_FALSE(plan->warnings.empty());
}

TEST(MkdstfsPlan, ExplicitClassesWin) {
  // A class the administrator gives is kept as given, also DIR:ssd on the metadata
  // volume; an explicit media class overrides detection.
  Result<MkdstfsPlan> plan = PlanVolumes(
      {Probe("/a", "hdd", "ssd"), Probe("/b", "ssd", "tier0"), Probe("/c", "hdd", "archive")},
      false);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Describe(*plan),
            (std::vector<std::string>{"vol1:ssd:hdd:detected:metadataok:/a",
                                      "vol2:tier0:ssd:detected:dataonly:/b",
                                      "vol3:archive:hdd:detected:dataonly:/c"}));
  // The override is reported as a mismatch.
  ASSERT_EQ(plan->warnings.size(), 1u);
  EXPECT_NE(plan->warnings[0].find("/a: class ssd given"), std::string::npos);
  // No hdd class: the default policy creates on the metadata volume's class.
  EXPECT_EQ(plan->default_create_classes, (std::vector<std::string>{"ssd"}));

  plan = PlanVolumes({Probe("/fast", "ssd", "tier0"), Probe("/slow", "hdd", "tier1")}, false);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->volumes[0].path, "/fast");  // detected ssd: metadata volume
  EXPECT_EQ(plan->volumes[0].placement_class, "tier0");
  EXPECT_EQ(plan->default_create_classes, (std::vector<std::string>{"tier0"}));
}

TEST(MkdstfsPlan, DemoVolumesKeepTheirGivenClasses) {
  // The README's demo: both directories on one disk, classes given.
  Result<MkdstfsPlan> plan = PlanVolumes({Probe("/d/ssd", "hdd", "ssd"), Probe("/d/hdd", "hdd", "hdd")}, false);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->volumes[0].placement_class, "ssd");
  EXPECT_EQ(plan->volumes[1].placement_class, "hdd");
  EXPECT_EQ(plan->default_create_classes, (std::vector<std::string>{"hdd", "ssd"}));
}

TEST(DefaultPolicy, PapersTextForThePapersClassesElseTheSetsOwn) {
  EXPECT_EQ(DefaultPolicyXml({"hdd", "ssdmetadata"}), kDefaultPolicyXml);
  const std::string xml = DefaultPolicyXml({"hdd", "ssd"});
  EXPECT_NE(xml.find("<CLASS> hdd </CLASS>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<CLASS> ssd </CLASS>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("ssdmetadata"), std::string::npos) << xml;
  EXPECT_LT(xml.find("hdd"), xml.find("<CLASS> ssd"));
}

TEST(MkdstfsPlan, UndetectableNeedsAClass) {
  Result<MkdstfsPlan> plan = PlanVolumes({Probe("/s", "ssd"), Probe("/t", "")}, false);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("cannot detect the media type of /t (tmpfs)"),
            std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("/t:CLASS"), std::string::npos);

  plan = PlanVolumes({Probe("/t", "", "ssd"), Probe("/u", "", "cold")}, false);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(Describe(*plan),
            (std::vector<std::string>{"vol1:ssd:ssd:configured:metadataok:/t",
                                      "vol2:cold:unknown:configured:dataonly:/u"}));
}

TEST(MkdstfsPlan, RefusesDuplicatesWarnsAboutSharedDevices) {
  VolumeProbe a = Probe("/x", "ssd");
  VolumeProbe b = Probe("/y", "hdd");
  b.identity = a.identity;
  Result<MkdstfsPlan> plan = PlanVolumes({a, b}, false);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("given twice"), std::string::npos);

  plan = PlanVolumes({Probe("/x", "ssd", "", 7), Probe("/y", "hdd", "", 7)}, false);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->warnings.size(), 1u);
  EXPECT_NE(plan->warnings[0].find("same device"), std::string::npos);
  EXPECT_FALSE(PlanVolumes({}, true).ok());
}

TEST(MkdstfsPlan, VolumeSpecs) {
  Result<VolumeSpec> s = ParseVolumeSpec("/mnt/ssd1");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dir, "/mnt/ssd1");
  EXPECT_EQ(s->placement_class, "");
  s = ParseVolumeSpec("/mnt/ssd1:tier0");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dir, "/mnt/ssd1");
  EXPECT_EQ(s->placement_class, "tier0");
  s = ParseVolumeSpec("/mnt/a:b/c");  // the colon is in a directory name
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dir, "/mnt/a:b/c");
  s = ParseVolumeSpec("/mnt/a:b:");  // trailing colon: no class
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dir, "/mnt/a:b");
  EXPECT_EQ(s->placement_class, "");
  EXPECT_FALSE(ParseVolumeSpec(":ssd").ok());
  s = ParseVolumeSpec("/x:bad class");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/x:bad class"), std::string::npos);
  EXPECT_TRUE(CheckClassName("ssd_tier-1.a").ok());
  EXPECT_FALSE(CheckClassName("-x").ok());
  EXPECT_FALSE(CheckClassName(std::string(65, 'a')).ok());
  EXPECT_TRUE(CheckFsName("data").ok());
  EXPECT_FALSE(CheckFsName("da/ta").ok());
  EXPECT_FALSE(CheckFsName("").ok());
}

}  // namespace
}  // namespace tierfs::cli

// fsvoladm's pure parts: argument parsing, the shared volume table, and the
// planning rules fsvoladm add shares with mkdstfs (PlanVolume,
// DefaultCreateClasses).
#include "cli/fsvoladm/fsvoladm.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/mkdstfs/mkdstfs_plan.h"
#include "cli/common/object_volume_add.h"
#include "cli/common/volume_table.h"

namespace tierfs::cli {
namespace {

using nlohmann::json;

TEST(FsvoladmArgsTest, ActionsAndOperands) {
  auto a = ParseFsvoladmArgs({"fsvoladm", "list", "--json", "/mnt"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->action, "list");
  EXPECT_TRUE(a->json);
  EXPECT_EQ(a->mount, "/mnt");
  a = ParseFsvoladmArgs({"fsvoladm", "add", "-v", "/mnt", "/a:hdd", "/b"});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->verbose);
  EXPECT_EQ(a->operands, (std::vector<std::string>{"/a:hdd", "/b"}));
  a = ParseFsvoladmArgs({"fsvoladm", "remove", "/mnt", "vol2"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->operands, std::vector<std::string>{"vol2"});
  a = ParseFsvoladmArgs({"fsvoladm", "setclass", "/mnt", "vol2", "archive"});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(ParseFsvoladmArgs({"fsvoladm", "--help"})->help);
  EXPECT_TRUE(ParseFsvoladmArgs({"fsvoladm", "remove", "--version"})->version);
}

TEST(FsvoladmArgsTest, ObjectVolumeOptionsAndOperands) {
  auto a = ParseFsvoladmArgs({"fsvoladm", "add", "--endpoint", "http://127.0.0.1:7480",
                              "--credentials", "/etc/c", "/mnt", "s3://cold/p:cloud"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->endpoint, "http://127.0.0.1:7480");
  EXPECT_EQ(a->credentials, "/etc/c");
  EXPECT_EQ(a->operands, std::vector<std::string>{"s3://cold/p:cloud"});
  EXPECT_FALSE(ParseFsvoladmArgs({"fsvoladm", "list", "--endpoint", "x", "/mnt"}).ok());
  EXPECT_FALSE(ParseFsvoladmArgs({"fsvoladm", "add", "--endpoint", "", "/mnt", "s3://a/b:c"}).ok());
}

// The checks made before the daemon is asked: each names the operand or option.
TEST(FsvoladmArgsTest, ObjectVolumeOperandsAreCheckedFirst) {
  const std::string creds = "/proc/self/status";  // exists; its mode is the daemon's to judge
  auto row = ParseObjectVolumeOperand("s3://cold/p:cloud", "http://h:1/", creds);
  ASSERT_TRUE(row.ok()) << row.status().message();
  EXPECT_EQ(row->path, "s3://cold/p");
  EXPECT_EQ(row->placement_class, "cloud");
  EXPECT_EQ(row->endpoint, "http://h:1");
  EXPECT_EQ(row->media_type, "object");
  EXPECT_TRUE(IsObjectVolumeOperand("s3://cold/p:cloud"));
  EXPECT_FALSE(IsObjectVolumeOperand("/srv/s3:hdd"));
  struct Case {
    std::string operand, endpoint, credentials, names;
  };
  for (const Case& c : std::vector<Case>{
           {"s3://cold/p", "http://h:1", creds, "needs its class"},
           {"s3://cold/p:cloud", "", creds, "--endpoint"},
           {"s3://cold/p:cloud", "ftp://h", creds, "--endpoint"},
           {"s3://cold/p:cloud", "http://h:1", "", "--credentials"},
           {"s3://cold/p:cloud", "http://h:1", "/no/such/file", "--credentials"},
           {"s3://X/p:cloud", "http://h:1", creds, "s3://X/p"}}) {
    auto r = ParseObjectVolumeOperand(c.operand, c.endpoint, c.credentials);
    ASSERT_FALSE(r.ok()) << c.operand << " " << c.endpoint << " " << c.credentials;
    EXPECT_NE(r.status().message().find(c.names), std::string::npos) << r.status().message();
  }
}

TEST(FsvoladmArgsTest, BadInputIsRefused) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"fsvoladm"},
           {"fsvoladm", "grow", "/mnt"},
           {"fsvoladm", "list"},
           {"fsvoladm", "list", "/mnt", "vol1"},
           {"fsvoladm", "add", "/mnt"},
           {"fsvoladm", "remove", "/mnt"},
           {"fsvoladm", "remove", "/mnt", "vol1", "vol2"},
           {"fsvoladm", "setclass", "/mnt", "vol2"},
           {"fsvoladm", "setclass", "/mnt", "vol2", "a/b"},
           {"fsvoladm", "remove", "-v", "/mnt", "vol2"},  // -v is add's only
       }) {
    auto a = ParseFsvoladmArgs(args);
    EXPECT_FALSE(a.ok()) << args.size();
    if (!a.ok()) {
      EXPECT_EQ(a.status().code(), EINVAL);
    }
  }
}

TEST(VolumesTableTest, OneRowPerVolumeWithRoleNames) {
  json volumes = {{"volumes",
                   {{{"name", "vol1"}, {"class", "ssd"}, {"media_type", "ssd"},
                     {"media_type_source", "detected"}, {"role", "metadataok"},
                     {"state", "online"}, {"total_bytes", 4 << 20}, {"used_bytes", 1 << 20},
                     {"free_bytes", 3 << 20}, {"files", 2}, {"path", "/s"}},
                    {{"name", "vol2"}, {"class", "hdd"}, {"media_type", "hdd"},
                     {"media_type_source", "configured"}, {"role", "dataonly"},
                     {"state", "offline"}, {"path", "/h"}}}}};
  EXPECT_EQ(VolumesTable(volumes),
            "Volume  Class  Media      Role      State    Size  Used  Free  Files  Path\n"
            "vol1    ssd    ssd        metadata  online   4.0M  1.0M  3.0M      2  /s\n"
            "vol2    hdd    hdd (set)  data      offline     -     -     -      -  /h\n");
}

TEST(PlanVolumeTest, ClassIsGivenElseTheMediaType) {
  VolumeProbe p;
  p.spec.dir = "/d";
  p.media_type = "hdd";
  auto v = PlanVolume(p);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->placement_class, "hdd");
  EXPECT_EQ(v->media_type_source, "detected");
  EXPECT_EQ(v->role, "dataonly");
  p.spec.placement_class = "archive";
  EXPECT_EQ(PlanVolume(p)->placement_class, "archive");
  p.media_type.clear();
  v = PlanVolume(p);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->media_type, "unknown");
  EXPECT_EQ(v->media_type_source, "configured");
  p.spec.placement_class.clear();
  EXPECT_EQ(PlanVolume(p).status().code(), EINVAL);
}

TEST(PlanVolumeTest, DefaultCreateClasses) {
  auto vol = [](const std::string& cls) {
    meta::Volume v;
    v.placement_class = cls;
    return v;
  };
  EXPECT_EQ(DefaultCreateClasses({vol("ssdmetadata"), vol("hdd")}),
            (std::vector<std::string>{"hdd", "ssdmetadata"}));
  EXPECT_EQ(DefaultCreateClasses({vol("ssd")}), (std::vector<std::string>{"ssd"}));
  // An hdd volume added later joins the default policy.
  EXPECT_EQ(DefaultCreateClasses({vol("ssd"), vol("archive"), vol("hdd")}),
            (std::vector<std::string>{"hdd", "ssd"}));
  EXPECT_EQ(DefaultCreateClasses({vol("hdd")}), (std::vector<std::string>{"hdd"}));
}

}  // namespace
}  // namespace tierfs::cli

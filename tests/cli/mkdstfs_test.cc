#include "cli/mkdstfs/mkdstfs.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sstream>

#include "cli/common/cron_entry.h"
#include "cli/mkdstfs/default_policy.h"
#include "cli/common/exit_codes.h"
#include "fs/volume/volume_label.h"
#include "meta/metadata.h"
#include "temp_dir.h"

namespace tierfs::cli {
namespace {

using tierfs::testing::ReadFile;
using tierfs::testing::TempDir;
using tierfs::testing::WriteFile;

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// A sysfs tree in which the device of `dir` is a partition of a disk whose
// queue/rotational holds `rotational`.
std::string FakeSysfs(const TempDir& tmp, const std::string& dir, const char* rotational) {
  struct stat st;
  EXPECT_EQ(stat(dir.c_str(), &st), 0);
  const std::string root = tmp / "sys";
  const std::string disk = root + "/devices/pci0000:00/block/sda";
  EXPECT_EQ(
      system(("mkdir -p " + disk + "/queue " + disk + "/sda1 " + root + "/dev/block").c_str()), 0);
  WriteFile(disk + "/queue/rotational", std::string(rotational) + "\n");
  WriteFile(disk + "/sda1/partition", "1\n");
  std::string dev = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  EXPECT_EQ(
      symlink("../../devices/pci0000:00/block/sda/sda1", (root + "/dev/block/" + dev).c_str()), 0);
  return root;
}

TEST(MkdstfsArgs, Parses) {
  Result<MkdstfsArgs> a = ParseMkdstfsArgs({"mkdstfs", "-f", "-v", "-m", "allow_other", "--cron",
                                            "0 * * * *", "/mnt/t", "data", "/s:ssd", "/h"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->force);
  EXPECT_TRUE(a->verbose);
  EXPECT_TRUE(a->mount);
  EXPECT_EQ(a->mount_options, "allow_other");
  EXPECT_EQ(a->cron_schedule, "0 * * * *");
  EXPECT_EQ(a->mount_point, "/mnt/t");
  EXPECT_EQ(a->fs_name, "data");
  EXPECT_EQ(a->volumes, (std::vector<std::string>{"/s:ssd", "/h"}));
  a = ParseMkdstfsArgs({"mkdstfs", "--no-mount", "/mnt/t", "data", "/s"});
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->mount);
  EXPECT_EQ(a->heat_bucket_seconds, 3600);
  a = ParseMkdstfsArgs({"mkdstfs", "--heat-bucket", "60", "/mnt/t", "data", "/s"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->heat_bucket_seconds, 60);
  a = ParseMkdstfsArgs({"mkdstfs", "--heat-bucket=86400", "/mnt/t", "data", "/s"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->heat_bucket_seconds, 86400);
}

TEST(MkdstfsArgs, ErrorsNameTheOption) {
  auto error = [](std::vector<std::string> args) {
    Result<MkdstfsArgs> a = ParseMkdstfsArgs(args);
    return a.ok() ? std::string() : a.status().message();
  };
  EXPECT_EQ(error({"mkdstfs", "-M", "x", "/m", "n", "/d"}), "unknown option -M");
  EXPECT_EQ(error({"mkdstfs", "/m", "n", "/d", "-m"}), "option -m needs a value (MOUNTOPTS)");
  EXPECT_EQ(error({"mkdstfs", "--cron", "every hour", "/m", "n", "/d"}),
            "--cron: cron schedule \"every hour\": expected five fields (minute hour "
            "day-of-month month day-of-week) or @hourly, @daily...");
  EXPECT_EQ(error({"mkdstfs", "/m", "n"}), "expected MOUNTPOINT FSNAME DIR[:CLASS]...");
  EXPECT_EQ(error({"mkdstfs", "--heat-bucket", "0", "/m", "n", "/d"}),
            "--heat-bucket: SECONDS must be 1 to 86400, got 0");
  EXPECT_EQ(error({"mkdstfs", "--heat-bucket", "86401", "/m", "n", "/d"}),
            "--heat-bucket: SECONDS must be 1 to 86400, got 86401");
  EXPECT_EQ(error({"mkdstfs", "--heat-bucket", "1h", "/m", "n", "/d"}),
            "--heat-bucket: SECONDS must be 1 to 86400, got 1h");
  EXPECT_EQ(error({"mkdstfs", "/m", "bad/name", "/d"}),
            "file system name \"bad/name\" may hold only letters, digits, '_', '.' and '-'");
  EXPECT_EQ(error({"mkdstfs", "--no-mount", "-m", "ro", "/m", "n", "/d"}),
            "-m has no effect with --no-mount");
  std::ostringstream out, err;
  CliEnv env;
  env.out = &out;
  env.err = &err;
  EXPECT_EQ(MkdstfsMain({"mkdstfs", "-q", "/m", "n", "/d"}, env), kExitUsage);
  EXPECT_EQ(err.str(), "mkdstfs: unknown option -q (see mkdstfs --help)\n");
  EXPECT_EQ(MkdstfsMain({"mkdstfs", "--help"}, env), kExitOk);
  EXPECT_EQ(out.str().rfind("usage: mkdstfs", 0), 0u);
}

TEST(MkdstfsProbe, RefusesMissingFilesAndLabelledDirectories) {
  TempDir tmp;
  Result<std::vector<VolumeProbe>> p = ProbeVolumes({tmp / "missing"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), ENOENT);
  EXPECT_EQ(p.status().message(), tmp / "missing" + " does not exist");

  WriteFile(tmp / "file", "x");
  p = ProbeVolumes({tmp / "file"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), ENOTDIR);

  ASSERT_EQ(mkdir((tmp / "vol").c_str(), 0755), 0);
  ASSERT_TRUE(WriteVolumeLabel(tmp / "vol", VolumeLabel{"u-1", "old", 2, "vol2"}).ok());
  p = ProbeVolumes({tmp / "vol:hdd"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), EEXIST);
  EXPECT_NE(p.status().message().find("volume vol2 of file system old"), std::string::npos)
      << p.status().message();
}

TEST(MkdstfsProbe, DetectsMediaTypeAndKeepsExplicitClass) {
  TempDir tmp;
  ASSERT_EQ(mkdir((tmp / "a").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((tmp / "b").c_str(), 0755), 0);
  std::string sysfs = FakeSysfs(tmp, tmp.path(), "0");
  Result<std::vector<VolumeProbe>> p = ProbeVolumes({tmp / "a", tmp / "b/./:tier9"}, sysfs);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].spec.dir, tmp / "a");
  EXPECT_EQ((*p)[0].media_type, "ssd");
  EXPECT_EQ((*p)[1].spec.dir, tmp / "b");  // resolved
  EXPECT_EQ((*p)[1].spec.placement_class, "tier9");
  EXPECT_EQ((*p)[0].device, (*p)[1].device);
  EXPECT_NE((*p)[0].identity, (*p)[1].identity);
  // Without a sysfs entry detection fails softly: the planner asks for a class.
  p = ProbeVolumes({tmp / "a"}, tmp / "empty-sys");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].media_type, "");
  EXPECT_FALSE((*p)[0].detect_error.empty());
}

class CreateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ssd_ = tmp_ / "ssd";
    hdd_ = tmp_ / "hdd";
    ASSERT_EQ(mkdir(ssd_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(hdd_.c_str(), 0755), 0);
    WriteFile(hdd_ + "/user-file.txt", "precious");
    Result<MkdstfsPlan> plan = PlanVolumes(
        {VolumeProbe{{hdd_, ""}, "hdd", "", 1, "h", std::nullopt},
         VolumeProbe{{ssd_, ""}, "ssd", "", 2, "s", std::nullopt}},
        false);
    ASSERT_TRUE(plan.ok());
    request_.plan = *plan;
    request_.fs_name = "data";
    request_.mount_point = tmp_ / "mnt";
    request_.mount = false;
    request_.root_uid = 1234;
    request_.root_gid = 5678;
    request_.fsppadm_binary = "/usr/sbin/fsppadm";
    unsetenv("TIERFS_CRON_DIR");
  }
  void TearDown() override { unsetenv("TIERFS_CRON_DIR"); }

  TempDir tmp_;
  std::string ssd_, hdd_;
  CreateRequest request_;
};

TEST_F(CreateTest, WritesLabelsDatabaseAndPolicy) {
  std::ostringstream verbose;
  Result<std::string> uuid = CreateFileSystem(request_, &verbose);
  ASSERT_TRUE(uuid.ok()) << uuid.status().ToString();
  EXPECT_EQ(uuid->size(), 36u);

  Result<VolumeLabel> l1 = ReadVolumeLabel(ssd_);
  Result<VolumeLabel> l2 = ReadVolumeLabel(hdd_);
  ASSERT_TRUE(l1.ok() && l2.ok());
  EXPECT_EQ(l1->fs_uuid, *uuid);
  EXPECT_EQ(l1->volume_id, 1u);
  EXPECT_EQ(l1->volume_name, "vol1");
  EXPECT_EQ(l2->volume_id, 2u);
  EXPECT_EQ(l2->fs_name, "data");
  EXPECT_FALSE(Exists(MetadataDbPath(hdd_)));

  auto meta = meta::Metadata::Open(MetadataDbPath(ssd_), meta::MetadataOptions{});
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  auto info = (*meta)->GetFsInfo();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->uuid, *uuid);
  EXPECT_EQ(info->name, "data");
  auto volumes = (*meta)->ListVolumes();
  ASSERT_TRUE(volumes.ok());
  ASSERT_EQ(volumes->size(), 2u);
  EXPECT_EQ((*volumes)[0].path, ssd_);
  EXPECT_EQ((*volumes)[0].placement_class, "ssdmetadata");
  EXPECT_EQ((*volumes)[0].role, "metadataok");
  EXPECT_EQ((*volumes)[1].placement_class, "hdd");
  auto policy = (*meta)->GetPolicy();
  ASSERT_TRUE(policy.ok() && policy->has_value());
  EXPECT_EQ((*policy)->name, kDefaultPolicyName);
  EXPECT_EQ((*policy)->xml, kDefaultPolicyXml);
  auto root = (*meta)->GetInode(meta::kRootIno);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->uid, 1234u);
  EXPECT_EQ(root->gid, 5678u);

  const std::string v = verbose.str();
  EXPECT_NE(v.find("mklabel " + ssd_), std::string::npos) << v;
  EXPECT_NE(v.find("fsppadm assign " + request_.mount_point + " mkdstfs.xml"), std::string::npos);
  EXPECT_EQ(v.find("undo"), std::string::npos);
}

TEST_F(CreateTest, InstallsTheCronEntry) {
  ASSERT_EQ(mkdir((tmp_ / "cron.d").c_str(), 0755), 0);
  setenv("TIERFS_CRON_DIR", (tmp_ / "cron.d").c_str(), 1);
  request_.cron_schedule = "15 * * * *";
  request_.mount_point = tmp_ / "my mnt";
  ASSERT_TRUE(CreateFileSystem(request_, nullptr).ok());
  const std::string text = ReadFile(tmp_ / "cron.d/tierfs-data");
  EXPECT_NE(text.find("\n15 * * * * root '/usr/sbin/fsppadm' enforce '" + tmp_ / "my mnt" +
                      "' >/dev/null\n"),
            std::string::npos)
      << text;
  struct stat st;
  ASSERT_EQ(stat((tmp_ / "cron.d/tierfs-data").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(CreateTest, FailureUndoesOnlyWhatItCreated) {
  // .tierfs already exists (empty) on the hdd volume: it must survive the undo.
  ASSERT_EQ(mkdir(TierfsDir(hdd_).c_str(), 0700), 0);
  setenv("TIERFS_CRON_DIR", (tmp_ / "no-such-dir").c_str(), 1);  // the cron step fails
  request_.cron_schedule = "@daily";
  std::ostringstream verbose;
  Result<std::string> uuid = CreateFileSystem(request_, &verbose);
  ASSERT_FALSE(uuid.ok());
  EXPECT_NE(verbose.str().find("undo: rm " + MetadataDbPath(ssd_)), std::string::npos)
      << verbose.str();
  EXPECT_FALSE(Exists(VolumeLabelPath(ssd_)));
  EXPECT_FALSE(Exists(TierfsDir(ssd_)));
  EXPECT_FALSE(Exists(MetadataDbPath(ssd_)));
  EXPECT_FALSE(Exists(VolumeLabelPath(hdd_)));
  EXPECT_FALSE(Exists(ObjectsDir(hdd_)));
  EXPECT_TRUE(Exists(TierfsDir(hdd_)));
  EXPECT_EQ(ReadFile(hdd_ + "/user-file.txt"), "precious");
}

TEST_F(CreateTest, MainCreatesThenRefusesToReuse) {
  std::ostringstream out, err;
  CliEnv env;
  env.out = &out;
  env.err = &err;
  // tmpfs-like directories have no detectable media type here only by chance, so
  // give classes explicitly.
  std::vector<std::string> args = {"mkdstfs", "--no-mount",  tmp_ / "mnt",
                                   "data",    hdd_ + ":hdd", ssd_ + ":ssd"};
  ASSERT_EQ(MkdstfsMain(args, env), kExitOk) << err.str();
  EXPECT_NE(out.str().find("vol1    ssd"), std::string::npos) << out.str();  // the given class
  EXPECT_TRUE(Exists(MetadataDbPath(ssd_)));
  err.str("");
  EXPECT_EQ(MkdstfsMain(args, env), kExitUsage);
  EXPECT_NE(err.str().find("is already a tierfs volume"), std::string::npos) << err.str();
  args.push_back("-f");  // -f never overrides that
  EXPECT_EQ(MkdstfsMain(args, env), kExitUsage);
}

TEST_F(CreateTest, MountPointInsideAVolumeIsRefused) {
  std::ostringstream out, err;
  CliEnv env;
  env.out = &out;
  env.err = &err;
  std::vector<std::string> args = {"mkdstfs", "--no-mount", ssd_ + "/mnt", "data", ssd_ + ":ssd"};
  EXPECT_EQ(MkdstfsMain(args, env), kExitUsage);
  EXPECT_NE(err.str().find("may not contain one another"), std::string::npos) << err.str();
  EXPECT_FALSE(Exists(TierfsDir(ssd_)));
}

TEST(CronEntry, SchedulesAndQuoting) {
  EXPECT_TRUE(CheckCronSchedule("0 * * * *").ok());
  EXPECT_TRUE(CheckCronSchedule("*/15 2-5 1,15 * mon-fri").ok());
  EXPECT_TRUE(CheckCronSchedule("@hourly").ok());
  EXPECT_FALSE(CheckCronSchedule("@often").ok());
  EXPECT_FALSE(CheckCronSchedule("0 * * *").ok());
  EXPECT_FALSE(CheckCronSchedule("0 * * * * *").ok());
  EXPECT_FALSE(CheckCronSchedule("0 * * * %").ok());
  EXPECT_FALSE(CheckCronSchedule("0 * * * *\nroot rm").ok());
  EXPECT_EQ(CronShellQuote("/mnt/it's 100%"), "'/mnt/it'\\''s 100\\%'");
  unsetenv("TIERFS_CRON_DIR");
  EXPECT_EQ(CronFilePath("my.fs"), "/etc/cron.d/tierfs-my_fs");
}

}  // namespace
}  // namespace tierfs::cli

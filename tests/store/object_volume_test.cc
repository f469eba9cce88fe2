// Object volumes through a mounted tierfs, against the real RADOS
// Gateway of this binary's Ceph cluster (tests/support/ceph_cluster.h): a
// bucket added with `fsvoladm add`, cold files moved there by `fsppadm enforce`
// and read back through the mount, stat/ls/xattr/rename with the gateway
// stopped, a write that recalls its file first, hot files brought back by
// IOTEMP, reads that fail with EIO within a bounded time while the gateway is
// down and work again once it is back, the refusals (a credentials file others
// may read, a missing bucket), and kill -9 of the daemon mid-upload followed
// by `tierfs check --repair`. Every wait is bounded; the fixture always
// unmounts, and each test empties and removes its bucket.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <chrono>
#include <cctype>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/test_policies.h"
#include "tests/store/object_volume_fixture.h"
#include "tests/support/run_command.h"

namespace tierfs::testing {
namespace {

TEST_F(ObjectVolumeTest, EnforceMovesColdFilesToTheStoreAndReadsThemBack) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  // Sizes: empty, small, one PUT, and over the 64 MiB multipart threshold.
  const std::vector<std::pair<std::string, size_t>> files = {
      {"empty", 0}, {"small", 1000}, {"five", 5 * kMiB + 7}, {"big", 70 * kMiB + 3}};
  ASSERT_EQ(mkdir(Path("d").c_str(), 0755), 0);
  uint32_t seed = 1;
  for (const auto& [name, size] : files) WriteFile(Path("d/" + name), RandomBytes(size, seed++));
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  // A create naming the store's class first lands on hdd (stores take no creates).
  WriteFile(Path("d/created"), "x");
  EXPECT_EQ(ClassOf("d/created"), "hdd");
  ASSERT_EQ(unlink(Path("d/created").c_str()), 0);
  const auto start = Clock::now();
  ASSERT_NO_FATAL_FAILURE(Enforce());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "[ measured ] enforce of " << files.size() << " files (75 MiB) to the store: "
            << seconds << " s\n";
  for (const auto& [name, size] : files) EXPECT_EQ(ClassOf("d/" + name), "cloud") << name;
  // The bytes left the local volumes; the bucket holds one object per file,
  // named PREFIX/objects/xx/ino.gen.
  EXPECT_EQ(LocalObjects(hdd_), 0u);
  EXPECT_EQ(LocalObjects(ssd_), 0u);
  std::vector<std::string> keys = Keys();
  EXPECT_EQ(keys.size(), files.size());
  for (const std::string& k : keys) EXPECT_EQ(k.rfind(std::string(kPrefix) + "/objects/", 0), 0u) << k;
  // fsmap shows the class and the object's URL; status shows the volume's URL.
  CommandResult map = Tool("fsmap", {Path("d/small")});
  EXPECT_NE(map.output.find("cloud"), std::string::npos) << map.output;
  EXPECT_NE(map.output.find("s3://" + bucket_ + "/" + kPrefix + "/objects/"), std::string::npos)
      << map.output;
  CommandResult query = Tool("fsppadm", {"query", Path("d/small")});
  EXPECT_NE(query.output.find("cloud"), std::string::npos) << query.output;
  EXPECT_NE(query.output.find(Url()), std::string::npos) << query.output;
  CommandResult status = Tool("fsppadm", {"status", mnt_});
  EXPECT_NE(status.output.find(Url()), std::string::npos) << status.output;
  EXPECT_NE(status.output.find("cloud"), std::string::npos) << status.output;
  // Read back through the mount, from the store (a remount drops every cache).
  Remount();
  seed = 1;
  for (const auto& [name, size] : files) {
    EXPECT_EQ(Difference(ReadFileDirect(Path("d/" + name)), RandomBytes(size, seed++)), "")
        << name;
  }
  // Served from the store: reading moved nothing.
  for (const auto& [name, size] : files) EXPECT_EQ(ClassOf("d/" + name), "cloud") << name;
  EXPECT_EQ(LocalObjects(hdd_), 0u);
  // No secret anywhere it could leak: database, log, status, fsmap.
  const std::string secret = cluster_->secret_key();
  for (const std::string& text :
       {ReadFile(ssd_ + "/.tierfs/meta.db"), DaemonLog(), ReadFileIfAny(ssd_ + "/.tierfs/meta.db-wal"), status.output, map.output,
        Tool("fsvoladm", {"list", "--json", mnt_}).output}) {
    EXPECT_EQ(text.find(secret), std::string::npos);
  }
}

TEST_F(ObjectVolumeTest, MetadataNeedsNoStoreAndReadsFailBoundedWhileItIsDown) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(3 * kMiB, 7);
  WriteFile(Path("cold"), data);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("cold"), "cloud");
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kAllOnSsdPolicy));
  Remount();

  // Frozen (SIGSTOP: connections are accepted, nothing answers), so that any
  // request would hang for seconds: metadata is SQLite and answers at once.
  ASSERT_TRUE(cluster_->FreezeGateway().ok());
  gateway_down_ = true;
  const auto meta_start = Clock::now();
  struct stat st;
  ASSERT_EQ(stat(Path("cold").c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), data.size());
  EXPECT_EQ(st.st_blocks, 0);  // no local blocks, and nothing asked
  std::error_code ec;
  size_t listed = 0;
  for (auto& e : std::filesystem::directory_iterator(mnt_, ec)) {
    struct stat est;
    listed += lstat(e.path().c_str(), &est) == 0 ? 1 : 0;
  }
  EXPECT_GE(listed, 1u);
  ASSERT_EQ(setxattr(Path("cold").c_str(), "user.k", "v", 1, 0), 0);
  char value[8] = {};
  EXPECT_EQ(getxattr(Path("cold").c_str(), "user.k", value, sizeof value), 1);
  ASSERT_EQ(rename(Path("cold").c_str(), Path("cold2").c_str()), 0);
  WriteFile(Path("fresh"), "created while the store is down");
  EXPECT_EQ(ReadFile(Path("fresh")), "created while the store is down");
  const double meta_seconds = std::chrono::duration<double>(Clock::now() - meta_start).count();
  std::cout << "[ measured ] stat, ls -l, xattrs, rename, a create with the gateway frozen: "
            << meta_seconds << " s\n";
  EXPECT_LT(meta_seconds, 1.0) << "metadata waited for the store";
  // Reads of the store's file: EIO, bounded.
  const auto frozen_start = Clock::now();
  EXPECT_EQ(ReadErrno(Path("cold2")), EIO);
  const double frozen_seconds = std::chrono::duration<double>(Clock::now() - frozen_start).count();
  std::cout << "[ measured ] read with the gateway frozen: EIO after " << frozen_seconds << " s\n";
  EXPECT_LT(frozen_seconds, 10.0);
  EXPECT_NE(DaemonLog().find("read of inode"), std::string::npos);
  // A store that only times out is offline once it has answered nothing for
  // VolumeSet::kStoreTimeoutsBeforeOfflineSeconds (10 s), from its first timeout.
  const double frozen_offline = WaitForState("offline", 20);
  std::cout << "[ measured ] frozen store shown offline " << frozen_offline + frozen_seconds
            << " s after the freeze\n";
  ASSERT_TRUE(cluster_->ThawGateway().ok());
  const double thawed_after = WaitForState("online", 10);
  std::cout << "[ measured ] online again " << thawed_after << " s after the thaw\n";

  // Stopped (connections refused): EIO at once; local files read.
  ASSERT_TRUE(cluster_->StopGateway().ok());
  const auto read_start = Clock::now();
  EXPECT_EQ(ReadErrno(Path("cold2")), EIO);
  const double read_seconds = std::chrono::duration<double>(Clock::now() - read_start).count();
  std::cout << "[ measured ] read with the gateway stopped: EIO after " << read_seconds << " s\n";
  EXPECT_LT(read_seconds, 10.0);
  EXPECT_EQ(ReadFile(Path("fresh")), "created while the store is down");
  const double offline_after = WaitForState("offline", 10);
  std::cout << "[ measured ] shown offline " << offline_after << " s after the read\n";
  CommandResult status = Tool("fsppadm", {"status", mnt_});
  EXPECT_NE(status.output.find("offline"), std::string::npos) << status.output;
  ASSERT_TRUE(cluster_->StartGateway().ok());
  gateway_down_ = false;
  const double online_after = WaitForState("online", 10);
  std::cout << "[ measured ] online again " << online_after << " s after the gateway's start\n";
  EXPECT_EQ(Difference(ReadFileDirect(Path("cold2")), data), "");
  EXPECT_EQ(ClassOf("cold2"), "cloud");
}

TEST_F(ObjectVolumeTest, AWriteRecallsTheFileFirstAndHeatBringsFilesBack) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string a = RandomBytes(2 * kMiB, 11), b = RandomBytes(kMiB, 12);
  WriteFile(Path("a"), a);
  WriteFile(Path("b"), b);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("a"), "cloud");
  ASSERT_EQ(Keys().size(), 2u);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kHotBackPolicy));
  Remount();
  // An append recalls "a" to the class its CREATE rule names, then lands.
  {
    int fd = open(Path("a").c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0) << strerror(errno);
    ASSERT_EQ(write(fd, "tail", 4), 4);
    ASSERT_EQ(close(fd), 0);
  }
  EXPECT_EQ(ClassOf("a"), "hdd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("a")), a + "tail"), "");
  EXPECT_NE(DaemonLog().find("recalled from object volume"), std::string::npos);
  // Reading "b" from the store heats it; enforce by IOTEMP brings it back.
  EXPECT_EQ(Difference(ReadFileDirect(Path("b")), b), "");
  EXPECT_EQ(ClassOf("b"), "cloud");
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("b"), "hdd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("b")), b), "");
  EXPECT_EQ(Keys().size(), 0u) << "recalled objects are deleted from the store";
  EXPECT_EQ(LocalObjects(hdd_), 2u);
}

// A reader that keeps its descriptor open while the file is recalled by a
// write, rewritten and uploaded again reads the new bytes, never the ones its
// read window fetched before; and each upload has a key of its own, so no
// store, however late its reads catch up with its writes, can serve the first
// upload's bytes for the second's.
TEST_F(ObjectVolumeTest, AReaderOpenAcrossRecallRewriteAndUploadReadsTheNewBytes) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string before = RandomBytes(kMiB, 21), after = RandomBytes(kMiB, 22);
  WriteFile(Path("f"), before);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("f"), "cloud");
  std::vector<std::string> first = Keys();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(first[0].ends_with(".v1")) << first[0];
  // O_DIRECT: every read reaches the daemon (no page cache in between).
  int reader = open(Path("f").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(reader, 0) << strerror(errno);
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, 4096), 0);
  auto first_page = [&]() {
    const ssize_t n = pread(reader, buf, 4096, 0);
    return n == 4096 ? std::string(static_cast<char*>(buf), 4096) : std::string();
  };
  EXPECT_EQ(first_page(), before.substr(0, 4096));  // fills the handle's read window
  WriteFileSynced(Path("f"), after);                 // recalls, then rewrites
  ASSERT_EQ(ClassOf("f"), "hdd");
  EXPECT_EQ(first_page(), after.substr(0, 4096));
  EXPECT_TRUE(Keys().empty()) << "the recall deletes the first upload";
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("f"), "cloud");
  std::vector<std::string> second = Keys();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0], first[0].substr(0, first[0].size() - 1) + "2");
  EXPECT_EQ(first_page(), after.substr(0, 4096));
  free(buf);
  close(reader);
  // The file's location survives a remount and a check.
  Remount();
  EXPECT_EQ(Difference(ReadFileDirect(Path("f")), after), "");
  CommandResult check = Tool("tierfs", {"check", mnt_}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

// A truncate to 0 of a file on the store fetches none of its bytes: it works
// with the gateway stopped, the file comes back empty, and its object is
// deleted once the store answers again (the next mount).
TEST_F(ObjectVolumeTest, ATruncateToZeroFetchesNothing) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  WriteFile(Path("t"), RandomBytes(3 * kMiB, 31));
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("t"), "cloud");
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kHotBackPolicy));
  gateway_down_ = true;
  ASSERT_TRUE(cluster_->StopGateway().ok());
  const auto start = Clock::now();
  ASSERT_EQ(truncate(Path("t").c_str(), 0), 0) << strerror(errno);
  std::cout << "[ measured ] truncate to 0 with the gateway stopped: " << SecondsSince(start)
            << " s\n";
  struct stat st;
  ASSERT_EQ(stat(Path("t").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(ClassOf("t"), "hdd");
  WriteFile(Path("t"), "new bytes");
  EXPECT_EQ(ReadFile(Path("t")), "new bytes");
  ASSERT_TRUE(cluster_->StartGateway().ok());
  gateway_down_ = false;
  Remount();
  EXPECT_EQ(ReadFile(Path("t")), "new bytes");
  bool deleted = false;
  for (int i = 0; i < 100 && !deleted; ++i) {
    deleted = Keys().empty();
    if (!deleted) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(deleted) << "the store's object outlived the mount after the truncate";
  CommandResult check = Tool("tierfs", {"check", mnt_}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST_F(ObjectVolumeTest, RefusesCredentialsOthersMayReadAndNamesAMissingBucket) {
  ASSERT_EQ(chmod(credentials_.c_str(), 0644), 0);
  CommandResult open_mode = Tool("fsvoladm", {"add", "--endpoint", cluster_->endpoint(),
                                              "--credentials", credentials_, mnt_, Url() + ":cloud"});
  EXPECT_NE(open_mode.exit_code, 0);
  EXPECT_NE(open_mode.output.find("chmod 600"), std::string::npos) << open_mode.output;
  EXPECT_EQ(open_mode.output.find(cluster_->secret_key()), std::string::npos);
  ASSERT_EQ(chmod(credentials_.c_str(), 0600), 0);
  CommandResult missing =
      Tool("fsvoladm", {"add", "--endpoint", cluster_->endpoint(), "--credentials", credentials_,
                        mnt_, "s3://no-such-bucket-here/p:cloud"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("bucket no-such-bucket-here does not exist"), std::string::npos)
      << missing.output;
  CommandResult no_class = Tool("fsvoladm", {"add", "--endpoint", cluster_->endpoint(),
                                             "--credentials", credentials_, mnt_, Url()});
  EXPECT_EQ(no_class.exit_code, 2) << no_class.output;
  // A versioned bucket would keep every object tierfs replaces or deletes.
  const std::string versioned = bucket_ + "-v";
  ASSERT_TRUE(s3_->CreateBucket(versioned).ok());
  CommandResult enable = RunCommand(
      {"/usr/bin/curl", "-sS", "--fail", "--max-time", "30", "--aws-sigv4", "aws:amz:us-east-1:s3",
       "--user", cluster_->access_key() + ":" + cluster_->secret_key(),
       // RGW wants the payload's hash header; curl's signer wants "versioning=".
       "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-X", "PUT", "--data",
       "<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>",
       cluster_->endpoint() + "/" + versioned + "?versioning="},
      60);
  ASSERT_EQ(enable.exit_code, 0) << enable.output;
  Result<std::string> state = s3_->GetBucketVersioning(versioned);
  ASSERT_TRUE(state.ok()) << state.status().message();
  ASSERT_EQ(*state, "Enabled");
  CommandResult with_versions =
      Tool("fsvoladm", {"add", "--endpoint", cluster_->endpoint(), "--credentials", credentials_,
                        mnt_, "s3://" + versioned + "/p:cloud"});
  EXPECT_NE(with_versions.exit_code, 0);
  EXPECT_NE(with_versions.output.find("bucket " + versioned + " has versioning Enabled"),
            std::string::npos)
      << with_versions.output;
  EXPECT_TRUE(s3_->DeleteBucket(versioned).ok());
  // Nothing was added.
  CommandResult list = Tool("fsvoladm", {"list", "--json", mnt_});
  EXPECT_EQ(list.output.find("s3://"), std::string::npos) << list.output;
}

// A wrong secret: refused by fsvoladm add with the store's words, naming the
// bucket, and nothing added; a secret that goes wrong later (the file edited,
// the key revoked) makes the volume offline at the next mount, its files fail
// with EIO and the rest of the file system works. No secret is ever shown.
TEST_F(ObjectVolumeTest, AWrongSecretIsRefusedAtTheAddAndTurnsTheVolumeOfflineLater) {
  const std::string wrong_secret = "not-the-" + cluster_->secret_key();
  const std::string good = "access_key = " + cluster_->access_key() +
                           "\nsecret_key = " + cluster_->secret_key() + "\n";
  const std::string bad = "access_key = " + cluster_->access_key() +
                          "\nsecret_key = " + wrong_secret + "\n";
  WriteFile(credentials_, bad);
  CommandResult refused = Tool("fsvoladm", {"add", "--endpoint", cluster_->endpoint(),
                                            "--credentials", credentials_, mnt_, Url() + ":cloud"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find(bucket_), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("403"), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.find(wrong_secret), std::string::npos) << refused.output;
  CommandResult list = Tool("fsvoladm", {"list", "--json", mnt_});
  EXPECT_EQ(list.output.find("s3://"), std::string::npos) << list.output;

  // Added with the right secret, a file moved to the store, then the secret
  // goes wrong while the file system is not mounted.
  WriteFile(credentials_, good);
  ASSERT_NO_FATAL_FAILURE(AddStore());
  AssignPolicy(ToClassPolicy("cloud"));
  const std::string data = RandomBytes(kMiB, 41);
  WriteFile(Path("f"), data);
  Enforce();
  ASSERT_EQ(ClassOf("f"), "cloud");
  WriteFile(Path("local"), "stays readable");  // after the enforce: on hdd
  ASSERT_EQ(ClassOf("local"), "hdd");
  Unmount();
  WriteFile(credentials_, bad);
  Mount();
  WaitForState("offline", 20);
  EXPECT_EQ(ReadErrno(Path("f")), EIO);
  struct stat st;
  EXPECT_EQ(stat(Path("f").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, static_cast<off_t>(kMiB));
  EXPECT_EQ(ReadFile(Path("local")), "stays readable");
  const std::string log = DaemonLog();
  EXPECT_NE(log.find("403"), std::string::npos) << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  EXPECT_EQ(log.find(wrong_secret), std::string::npos);
  EXPECT_EQ(log.find(cluster_->secret_key()), std::string::npos);

  // The right secret again: online after the next mount, the file whole.
  Unmount();
  WriteFile(credentials_, good);
  Mount();
  WaitForState("online", 20);
  EXPECT_TRUE(ReadFileIfAny(Path("f")) == data);
}

// fsvoladm remove of an object volume recalls every file (to the classes their
// CREATE rules name) and forgets the volume; the bucket is left empty.
TEST_F(ObjectVolumeTest, RemovingTheStoreRecallsEveryFile) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string a = RandomBytes(kMiB + 1, 31), b = RandomBytes(3, 32);
  WriteFile(Path("a"), a);
  WriteFile(Path("b"), b);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  ASSERT_EQ(ClassOf("a"), "cloud");
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(kAllOnSsdPolicy));
  CommandResult r = Tool("fsvoladm", {"remove", mnt_, "vol3"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ClassOf("a"), "ssd");
  EXPECT_EQ(ClassOf("b"), "ssd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("a")), a), "");
  EXPECT_EQ(ReadFile(Path("b")), b);
  EXPECT_EQ(Keys().size(), 0u);
  EXPECT_EQ(StoreState(), "") << "the volume is gone from the list";
}

// mkdstfs on the mounted file system adds an object volume as fsvoladm does;
// one that is already a volume is left as it is.
TEST_F(ObjectVolumeTest, MkdstfsAddsAnObjectVolumeToTheMountedFileSystem) {
  const std::vector<std::string> args = {"--endpoint", cluster_->endpoint(), "--credentials",
                                         credentials_, mnt_, "testfs", Url() + ":cloud"};
  CommandResult r = Tool("mkdstfs", args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(Url()), std::string::npos) << r.output;
  EXPECT_EQ(StoreState(), "online");
  r = Tool("mkdstfs", args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  CommandResult list = Tool("fsvoladm", {"list", "--json", mnt_});
  EXPECT_EQ(nlohmann::json::parse(list.output, nullptr, false)["volumes"].size(), 3u)
      << list.output;
  // The volume comes back at the next mount, its credentials read again.
  Remount();
  EXPECT_EQ(StoreState(), "online");
  // A credentials file others may read refuses the mount, naming it.
  Unmount();
  ASSERT_EQ(chmod(credentials_.c_str(), 0640), 0);
  CommandResult mount = RunCommand({testing::Tool("tierfs"), ssd_, mnt_}, 60);
  EXPECT_NE(mount.exit_code, 0);
  EXPECT_NE(mount.output.find(credentials_), std::string::npos) << mount.output;
  EXPECT_NE(mount.output.find("chmod 600"), std::string::npos) << mount.output;
  ASSERT_EQ(chmod(credentials_.c_str(), 0600), 0);
  Mount();
  EXPECT_EQ(StoreState(), "online");
}

// mkdstfs making a new file system with an object volume: the bucket is asked
// for first (a missing one is named and nothing is created), the volume follows
// the directories, and the mount reads its credentials.
TEST_F(ObjectVolumeTest, MkdstfsCreatesAFileSystemWithAnObjectVolume) {
  const std::string dir = root_ + "/new-ssd", mnt = root_ + "/new-mnt";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  CommandResult missing = Tool("mkdstfs", {"--no-mount", "--endpoint", cluster_->endpoint(),
                                           "--credentials", credentials_, mnt, "newfs",
                                           dir + ":ssd", "s3://no-such-bucket-here/p:cloud"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("bucket no-such-bucket-here does not exist"), std::string::npos)
      << missing.output;
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "nothing may be created";
  CommandResult made = Tool("mkdstfs", {"--no-mount", "--endpoint", cluster_->endpoint(),
                                        "--credentials", credentials_, mnt, "newfs", dir + ":ssd",
                                        Url() + ":cloud"});
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_NE(made.output.find(Url()), std::string::npos) << made.output;
  ASSERT_EQ(mkdir(mnt.c_str(), 0755) == 0 || errno == EEXIST, true);
  CommandResult mount = RunCommand({testing::Tool("tierfs"), dir, mnt}, 60);
  ASSERT_EQ(mount.exit_code, 0) << mount.output;
  CommandResult list = Tool("fsvoladm", {"list", "--json", mnt});
  RunCommand({"/usr/bin/fusermount3", "-u", mnt}, 30);
  nlohmann::json doc = nlohmann::json::parse(list.output, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << list.output;
  ASSERT_EQ(doc["volumes"].size(), 2u) << list.output;
  EXPECT_EQ(doc["volumes"][1].value("path", ""), Url());
  EXPECT_EQ(doc["volumes"][1].value("class", ""), "cloud");
  EXPECT_EQ(doc["volumes"][1].value("state", ""), "online");
  EXPECT_EQ(doc["volumes"][1].value("credentials_file", ""), credentials_);
}

TEST_F(ObjectVolumeTest, KillMidUploadThenCheckRepairLeavesNoOrphanAndTheFileWhole) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(400 * kMiB, 21);
  WriteFileSynced(Path("huge"), data);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  std::thread enforce([&] { Tool("fsppadm", {"enforce", mnt_}, 120); });
  // Wait for the multipart upload to be under way, then kill the daemon.
  bool uploading = false;
  for (int i = 0; i < 600 && !uploading; ++i) {
    auto uploads = s3_->ListMultipartUploads(bucket_, "");
    uploading = uploads.ok() && !uploads->empty();
    if (!uploading) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CrashDaemon();
  enforce.join();
  ASSERT_TRUE(uploading) << "no multipart upload was seen";
  // An orphan as well: an object named like one that no inode owns.
  int fd = open("/dev/null", O_RDONLY);
  ASSERT_TRUE(s3_->PutObject(bucket_, std::string(kPrefix) + "/objects/9f/99999.1", fd, 0, 0, {})
                  .ok());
  close(fd);
  CommandResult check = Tool("tierfs", {"check", ssd_}, 120);
  EXPECT_EQ(check.exit_code, 4) << check.output;
  EXPECT_NE(check.output.find("99999"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("upload"), std::string::npos) << check.output;
  CommandResult repair = Tool("tierfs", {"check", "--repair", ssd_}, 120);
  EXPECT_EQ(repair.exit_code, 1) << repair.output;
  auto uploads = s3_->ListMultipartUploads(bucket_, "");
  ASSERT_TRUE(uploads.ok());
  EXPECT_EQ(uploads->size(), 0u);
  // The orphan is not deleted (it might be the only copy of a file created
  // after a restored backup): its inode comes back in /lost+found, its key kept.
  EXPECT_EQ(Keys().size(), 1u);
  CommandResult again = Tool("tierfs", {"check", ssd_}, 120);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  Mount();
  EXPECT_EQ(ClassOf("huge"), "hdd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("huge")), data), "");
  struct stat st;
  ASSERT_EQ(stat(Path("lost+found/#99999.1").c_str(), &st), 0);
  EXPECT_EQ(st.st_ino, 99999u);
  EXPECT_EQ(ClassOf("lost+found/#99999.1"), "cloud");
}

// The multipart upload a kill -9 cut short is aborted by the next mount (its
// first probe of the store), not only by an offline repair.
TEST_F(ObjectVolumeTest, TheNextMountAbortsTheUploadACrashLeft) {
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(100 * kMiB, 23);
  WriteFileSynced(Path("big"), data);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  std::thread enforce([&] { Tool("fsppadm", {"enforce", mnt_}, 120); });
  bool uploading = false;
  for (int i = 0; i < 600 && !uploading; ++i) {
    uploading = Uploads() > 0;
    if (!uploading) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CrashDaemon();
  enforce.join();
  ASSERT_TRUE(uploading) << "no multipart upload was seen";
  ASSERT_GT(Uploads(), 0u);
  Mount();
  bool aborted = false;
  for (int i = 0; i < 150 && !aborted; ++i) {
    aborted = Uploads() == 0;
    if (!aborted) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(aborted) << "the upload is still there 30 s after the mount";
  EXPECT_NE(DaemonLog().find("multipart upload(s) a crash left"), std::string::npos);
  EXPECT_EQ(Difference(ReadFileDirect(Path("big")), data), "");
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("big"), "cloud");
  EXPECT_EQ(Uploads(), 0u);
}

// kill -9 (a fault point's stop) at each step of an upload and of a recall: the
// file is whole at exactly one place after the next mount, the other copy is
// gone (from the store too), and the next enforce finishes the move.
struct StoreCrash {
  const char* direction;  // "upload" | "recall"
  const char* point;      // a VolumeIo::ReachPoint name
  bool committed;         // the crash came after the move's commit
};

class StoreCrashTest : public ObjectVolumeTest, public ::testing::WithParamInterface<StoreCrash> {};

TEST_P(StoreCrashTest, TheFileIsWholeAtOnePlaceAndNothingIsLeft) {
  const StoreCrash c = GetParam();
  const bool upload = std::string(c.direction) == "upload";
  ASSERT_NO_FATAL_FAILURE(AddStore());
  const std::string data = RandomBytes(kMiB + 17, 41);
  WriteFile(Path("f"), data);
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  if (!upload) {
    ASSERT_NO_FATAL_FAILURE(Enforce());
    ASSERT_EQ(ClassOf("f"), "cloud");
    ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("hdd")));
  }
  Unmount();
  setenv("TIERFS_FAULTS", ("point:" + std::string(c.point) + "@1=stop").c_str(), 1);
  Mount();
  unsetenv("TIERFS_FAULTS");
  CommandResult r = Tool("fsppadm", {"enforce", mnt_}, 120);
  EXPECT_NE(r.exit_code, 0) << "the daemon should have died at " << c.point << ": " << r.output;
  ASSERT_TRUE(DaemonGone());
  Unmount();  // detaches the dead mount
  Mount();
  const bool on_store = upload == c.committed;
  EXPECT_EQ(ClassOf("f"), on_store ? "cloud" : "hdd");
  EXPECT_EQ(Difference(ReadFileDirect(Path("f")), data), "");
  // The mount removed the other copy: from the store, or from hdd.
  EXPECT_EQ(Keys().size(), on_store ? 1u : 0u);
  EXPECT_EQ(LocalObjects(hdd_), on_store ? 0u : 1u);
  // The next enforce finishes the move; check finds nothing.
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("f"), upload ? "cloud" : "hdd");
  EXPECT_EQ(Keys().size(), upload ? 1u : 0u);
  EXPECT_EQ(LocalObjects(hdd_), upload ? 0u : 1u);
  CommandResult check = Tool("tierfs", {"check", mnt_}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  Remount();
  EXPECT_EQ(Difference(ReadFileDirect(Path("f")), data), "");
}

INSTANTIATE_TEST_SUITE_P(
    Points, StoreCrashTest,
    ::testing::Values(StoreCrash{"upload", "upload-after-put", false},
                      StoreCrash{"upload", "relocate-after-commit", true},
                      StoreCrash{"recall", "recall-after-copy", false},
                      StoreCrash{"recall", "relocate-after-commit", true}),
    [](const ::testing::TestParamInfo<StoreCrash>& info) {
      std::string name = std::string(info.param.direction) + "_" + info.param.point;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace tierfs::testing

// fsvoladm add of an object volume on a store that behaves like AWS (moto's
// server, tests/support/moto_server.h): a bucket in another region than the
// one given is refused naming its region, and nothing is added; with
// --region, --addressing virtual and a credentials file with a session token,
// the volume is added, its options are kept in the database (a remount reads
// them), files go to the store and come back, and the token is nowhere to be
// read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/store/object_volume_fixture.h"
#include "tests/support/moto_server.h"

namespace tierfs::testing {
namespace {

constexpr char kToken[] = "FwoGZXIvYXdzEXAMPLE-tierfs-store-session-token-93c1";

using StoreEndpointsTest = ObjectVolumeTest;

TEST_F(StoreEndpointsTest, RegionAddressingAndTokenThroughFsvoladmAdd) {
  Result<std::unique_ptr<MotoServer>> moto = MotoServer::Start();
  ASSERT_TRUE(moto.ok()) << moto.status().message();
  const std::string bucket = "tierfs-eu-store";
  {
    S3ClientOptions o;
    o.endpoint = (*moto)->endpoint();
    o.region = "eu-west-1";
    o.credentials.access_key = "AKIATIERFSMOTOSTORE0";
    o.credentials.secret_key = "moto-store-secret";
    Result<std::unique_ptr<S3Client>> eu = S3Client::Create(o);
    ASSERT_TRUE(eu.ok()) << eu.status().message();
    ASSERT_TRUE((*eu)->CreateBucket(bucket).ok());
  }
  const std::string creds = root_ + "/moto.cred";
  {
    int fd = open(creds.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    const std::string text = "access_key = AKIATIERFSMOTOSTORE0\nsecret_key = moto-store-secret\n"
                             "session_token = " + std::string(kToken) + "\n";
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
  }
  const std::string url = "s3://" + bucket + "/tfs";

  // The default region: refused with the bucket's, nothing added.
  CommandResult wrong = Tool("fsvoladm", {"add", "--endpoint", (*moto)->endpoint(),
                                          "--credentials", creds, mnt_, url + ":cloud"});
  EXPECT_NE(wrong.exit_code, 0) << wrong.output;
  EXPECT_NE(wrong.output.find("the bucket lives in eu-west-1: add it with --region eu-west-1"),
            std::string::npos)
      << wrong.output;
  EXPECT_EQ(Tool("fsvoladm", {"list", "--json", mnt_}).output.find("s3://"), std::string::npos);

  // Usage errors are told before the daemon is asked.
  CommandResult bad = Tool("fsvoladm", {"add", "--endpoint", (*moto)->endpoint(), "--credentials",
                                        creds, "--addressing", "vhost", mnt_, url + ":cloud"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  bad = Tool("fsvoladm", {"add", "--endpoint", (*moto)->endpoint(), "--credentials", creds,
                          "--ca-file", creds, mnt_, url + ":cloud"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--ca-file is for an https://"), std::string::npos) << bad.output;

  // With its region, virtual-hosted.
  CommandResult added = Tool("fsvoladm", {"add", "--endpoint", (*moto)->localhost_endpoint(),
                                          "--credentials", creds, "--region", "eu-west-1",
                                          "--addressing", "virtual", mnt_, url + ":cloud"});
  ASSERT_EQ(added.exit_code, 0) << added.output;
  WriteFile(Path("f"), RandomBytes(300000, 5));
  ASSERT_NO_FATAL_FAILURE(AssignPolicy(ToClassPolicy("cloud")));
  ASSERT_NO_FATAL_FAILURE(Enforce());
  EXPECT_EQ(ClassOf("f"), "cloud");
  // Kept in the database: a remount reads the options back.
  Remount();
  EXPECT_EQ(Difference(ReadFileDirect(Path("f")), RandomBytes(300000, 5)), "");
  CommandResult list = Tool("fsvoladm", {"list", "--json", mnt_});
  nlohmann::json doc = nlohmann::json::parse(list.output, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << list.output;
  bool found = false;
  for (const nlohmann::json& v : doc["volumes"]) {
    if (v.value("path", "") != url) continue;
    found = true;
    EXPECT_EQ(v.value("region", ""), "eu-west-1") << list.output;
    EXPECT_EQ(v.value("addressing", ""), "virtual") << list.output;
    EXPECT_EQ(v.value("state", ""), "online") << list.output;
  }
  EXPECT_TRUE(found) << list.output;
  // The objects were named by virtual-hosted requests (PUT /tfs/objects/...).
  EXPECT_NE((*moto)->Log().find("PUT /tfs/objects/"), std::string::npos);
  // The token is in the credentials file only.
  for (const std::string& text :
       {ReadFile(ssd_ + "/.tierfs/meta.db"), ReadFileIfAny(ssd_ + "/.tierfs/meta.db-wal"),
        DaemonLog(), list.output, wrong.output, added.output,
        Tool("fsppadm", {"status", mnt_}).output}) {
    EXPECT_EQ(text.find(kToken), std::string::npos);
  }
  // The volume goes before moto does: its files come back first.
  CommandResult removed = Tool("fsvoladm", {"remove", mnt_, url});
  EXPECT_EQ(removed.exit_code, 0) << removed.output;
}

}  // namespace
}  // namespace tierfs::testing

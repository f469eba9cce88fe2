#include "fs/objstore/s3_credentials.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace tierfs {
namespace {

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

class S3CredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tierfs-creds-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string Write(const std::string& text, mode_t mode) {
    std::string path = dir_ + "/credentials";
    unlink(path.c_str());
    std::ofstream(path) << text;
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }
  std::string dir_;
};

TEST_F(S3CredentialsTest, ReadsBothKeysIgnoringCommentsBlankLinesAndSpaces) {
  std::string path = Write(std::string("# tierfs\n\n  access_key =  AKIDEXAMPLE  \nsecret_key=") +
                               kSecret + "\r\n",
                           0600);
  Result<S3Credentials> c = LoadS3Credentials(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->access_key, "AKIDEXAMPLE");
  EXPECT_EQ(c->secret_key, kSecret);
  EXPECT_TRUE(LoadS3Credentials(Write("access_key=a\nsecret_key=b", 0400)).ok());
}

TEST_F(S3CredentialsTest, AFileOthersCanReadIsRefusedNamingItAndItsMode) {
  for (mode_t mode : {0644, 0640, 0604, 0620, 0602}) {
    std::string path = Write(std::string("access_key = a\nsecret_key = ") + kSecret + "\n", mode);
    Result<S3Credentials> c = LoadS3Credentials(path);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), EACCES);
    EXPECT_NE(c.status().message().find(path), std::string::npos) << c.status().message();
    char octal[8];
    snprintf(octal, sizeof octal, "%04o", mode);
    EXPECT_NE(c.status().message().find(octal), std::string::npos) << c.status().message();
    EXPECT_NE(c.status().message().find("chmod 600"), std::string::npos);
    EXPECT_EQ(c.status().message().find(kSecret), std::string::npos);
  }
}

TEST_F(S3CredentialsTest, MalformedFilesAreEinvalAndNeverEchoTheSecret) {
  const std::string bad[] = {
      std::string(kSecret) + "\n",                                      // a bare secret
      std::string("access_key = a\nsecret_key = ") + kSecret + "\nsecret_key = x\n",  // twice
      std::string("access_key = a\n"),                                  // no secret
      std::string("secret_key = ") + kSecret + "\n",                    // no access key
      std::string("access_key = a\nsecret_key =\n"),                    // empty
      std::string("access_key = a\naws_secret_access_key = ") + kSecret + "\n",  // unknown name
      std::string("access_key = a\n") + kSecret + " = " + kSecret + "\n",
  };
  for (const std::string& text : bad) {
    Result<S3Credentials> c = LoadS3Credentials(Write(text, 0600));
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.status().code(), EINVAL) << c.status().message();
    EXPECT_EQ(c.status().message().find(kSecret), std::string::npos) << c.status().message();
    EXPECT_EQ(c.status().message().find("wJalr"), std::string::npos) << c.status().message();
  }
}

TEST_F(S3CredentialsTest, MissingFileAndDirectory) {
  EXPECT_EQ(LoadS3Credentials(dir_ + "/none").status().code(), ENOENT);
  chmod(dir_.c_str(), 0700);
  EXPECT_EQ(LoadS3Credentials(dir_).status().code(), EINVAL);  // not a regular file
}

// Temporary credentials: an optional session_token, as secret as the secret key.
TEST_F(S3CredentialsTest, AnOptionalSessionTokenIsReadAndNeverEchoed) {
  const std::string token = "IQoJb3JpZ2luX2VjEXAMPLETOKEN";
  Result<S3Credentials> c = LoadS3Credentials(
      Write("access_key = a\nsecret_key = b\nsession_token = " + token + "\n", 0600));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->session_token, token);
  c = LoadS3Credentials(Write("access_key = a\nsecret_key = b\n", 0600));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->session_token, "");
  for (const std::string& text :
       {"access_key = a\nsecret_key = b\nsession_token = " + token + "\nsession_token = " + token +
            "\n",
        std::string("access_key = a\nsecret_key = b\nsession_token =\n")}) {
    c = LoadS3Credentials(Write(text, 0600));
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), EINVAL);
    EXPECT_EQ(c.status().message().find(token), std::string::npos) << c.status().message();
  }
}

}  // namespace
}  // namespace tierfs

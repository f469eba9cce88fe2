// Object volumes' URLs and keys (fs/volume/object_location.h): what fsvoladm
// add accepts, and keys that name exactly one inode.
#include "fs/volume/object_location.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(ObjectLocationTest, ParsesBucketAndPrefix) {
  auto loc = ParseObjectUrl("s3://cold-data/a/b/");
  ASSERT_TRUE(loc.ok()) << loc.status().message();
  EXPECT_EQ(loc->bucket, "cold-data");
  EXPECT_EQ(loc->prefix, "a/b");
  EXPECT_EQ(ObjectUrl(*loc), "s3://cold-data/a/b");
  auto bare = ParseObjectUrl("s3://cold-data");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->prefix, "");
  EXPECT_EQ(ObjectUrl(*bare), "s3://cold-data");
  EXPECT_EQ(ObjectKeyPrefix(*bare), "objects/");
}

TEST(ObjectLocationTest, RefusesWhatIsNotABucketAndPrefix) {
  for (const char* url : {"http://b/p", "s3://", "s3://AB/p", "s3://ab/p", "s3://bucket//p",
                          "s3://bucket/a/../b", "s3://bucket/./b", "s3://bucket/a b",
                          "s3://bucket/a:b", "/srv/hdd"}) {
    auto loc = ParseObjectUrl(url);
    EXPECT_FALSE(loc.ok()) << url;
    if (!loc.ok()) {
      EXPECT_EQ(loc.status().code(), EINVAL) << url;
      EXPECT_NE(loc.status().message().find(url), std::string::npos) << loc.status().message();
    }
  }
}

TEST(ObjectLocationTest, KeysFollowLocalObjectNamesAndParseBack) {
  ObjectLocation loc{"bucket", "tfs"};
  EXPECT_EQ(ObjectKey(loc, 2, 1, 0), "tfs/objects/02/2.1");
  EXPECT_EQ(ObjectKey(loc, 99999, 3, 0), "tfs/objects/9f/99999.3");
  EXPECT_EQ(ObjectKey(loc, 2, 1, 7), "tfs/objects/02/2.1.v7");
  EXPECT_EQ(ObjectKeyStem(loc, 2, 1), "tfs/objects/02/2.1");
  auto id = ParseObjectKey(loc, "tfs/objects/9f/99999.3");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->ino, 99999u);
  EXPECT_EQ(id->generation, 3u);
  EXPECT_EQ(id->version, 0u);
  id = ParseObjectKey(loc, "tfs/objects/02/2.10.v12");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->ino, 2u);
  EXPECT_EQ(id->generation, 10u);
  EXPECT_EQ(id->version, 12u);
  // Not this volume's, not named like an object, in the wrong xx directory, or
  // an upload number ObjectKey never writes.
  for (const char* key : {"other/objects/02/2.1", "tfs/objects/02/2", "tfs/objects/03/2.1",
                          "tfs/objects/02/x.1", "tfs/objects/2.1", "tfs/label",
                          "tfs/objects/02/2.1.v0", "tfs/objects/02/2.1.v", "tfs/objects/02/2.1.v07",
                          "tfs/objects/02/2.1.v1x", "tfs/objects/02/2.1.x1", "tfs/objects/02/2.v1"}) {
    EXPECT_FALSE(ParseObjectKey(loc, key).has_value()) << key;
  }
}

}  // namespace
}  // namespace tierfs

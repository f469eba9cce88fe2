// ListObjectsV2 against the real gateway: prefixes and more keys than a page.
#include <unistd.h>

#include <set>

#include "tests/objstore/rgw/rgw_fixture.h"

namespace tierfs::testing {
namespace {

using ListingTest = RgwTest;

TEST_F(ListingTest, PagesFollowContinuationTokensToEveryKeyInOrder) {
  int fd = RandomFile(64, 1);
  std::vector<std::string> want;
  for (int i = 0; i < 25; ++i) {
    char key[32];
    snprintf(key, sizeof key, "p/%03d", i);
    want.push_back(key);
    ASSERT_S3_OK(client_->PutObject(bucket_, key, fd, 0, 10 + i, {}));
  }
  for (int i = 0; i < 5; ++i) {
    ASSERT_S3_OK(client_->PutObject(bucket_, "q/" + std::to_string(i), fd, 0, 1, {}));
  }
  ASSERT_S3_OK(client_->PutObject(bucket_, "p", fd, 0, 1, {}));  // not under "p/"

  std::vector<std::string> got;
  std::vector<size_t> page_sizes;
  std::string token;
  int pages = 0;
  do {
    Result<S3ObjectPage> page = client_->ListObjects(bucket_, "p/", token, 7);
    ASSERT_S3_OK(page);
    page_sizes.push_back(page->objects.size());
    for (const S3ListedObject& o : page->objects) {
      got.push_back(o.key);
      EXPECT_EQ(o.size, 10u + std::stoul(o.key.substr(2))) << o.key;
      EXPECT_EQ(o.etag.size(), 32u);
      EXPECT_GT(o.last_modified, 1700000000);
    }
    token = page->next_continuation_token;
    ASSERT_LT(++pages, 10) << "the listing does not end";
  } while (!token.empty());
  EXPECT_EQ(got, want);
  EXPECT_EQ(page_sizes, (std::vector<size_t>{7, 7, 7, 4}));

  // Without a prefix: all 31, in one page.
  Result<S3ObjectPage> all = client_->ListObjects(bucket_, "", "");
  ASSERT_S3_OK(all);
  EXPECT_EQ(all->objects.size(), 31u);
  EXPECT_EQ(all->next_continuation_token, "");
  // A prefix that matches nothing.
  Result<S3ObjectPage> none = client_->ListObjects(bucket_, "zzz/", "");
  ASSERT_S3_OK(none);
  EXPECT_TRUE(none->objects.empty());
  close(fd);
}

}  // namespace
}  // namespace tierfs::testing

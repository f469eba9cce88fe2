// Metadata extended attributes: get, set (with XATTR_CREATE / XATTR_REPLACE),
// list, remove, their errno values, ctime and FCL records.
#include <gtest/gtest.h>
#include <sys/xattr.h>

#include "meta/metadata.h"
#include "tests/meta/meta_test_util.h"

namespace tierfs::meta {
namespace {

using testing::MetaTest;

class XattrTest : public MetaTest {
 protected:
  void SetUp() override {
    MetaTest::SetUp();
    file_ = MakeFile(kRootIno, "f");
  }
  Inode file_;
};

TEST_F(XattrTest, SetGetListRemove) {
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.b", "two", 0).ok());
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.a", "one", 0).ok());
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.a"), "one");
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.b"), "two");
  EXPECT_EQ(*meta_->ListXattr(file_.ino), (std::vector<std::string>{"user.a", "user.b"}));
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.a", "uno", 0).ok());  // 0 replaces too
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.a"), "uno");
  ASSERT_TRUE(meta_->RemoveXattr(file_.ino, "user.a").ok());
  EXPECT_EQ(*meta_->ListXattr(file_.ino), std::vector<std::string>{"user.b"});
  EXPECT_EQ(meta_->GetXattr(file_.ino, "user.a").status().code(), ENODATA);
}

TEST_F(XattrTest, ValuesAreBinaryAndMayBeEmpty) {
  const std::string value("\0\x01\xff\0end", 7);
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.bin", value, 0).ok());
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.bin"), value);
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.empty", "", 0).ok());
  auto empty = meta_->GetXattr(file_.ino, "user.empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
  const std::string big(65536, 'b');
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.big", big, 0).ok());
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.big"), big);
}

TEST_F(XattrTest, NamesAreByteExact) {
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.Key", "1", 0).ok());
  EXPECT_EQ(meta_->GetXattr(file_.ino, "user.key").status().code(), ENODATA);
}

TEST_F(XattrTest, CreateAndReplaceFlags) {
  EXPECT_EQ(meta_->SetXattr(file_.ino, "user.x", "v", XATTR_REPLACE).code(), ENODATA);
  EXPECT_EQ(meta_->ListXattr(file_.ino)->size(), 0u);
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.x", "v1", XATTR_CREATE).ok());
  EXPECT_EQ(meta_->SetXattr(file_.ino, "user.x", "v2", XATTR_CREATE).code(), EEXIST);
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.x"), "v1");
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.x", "v3", XATTR_REPLACE).ok());
  EXPECT_EQ(*meta_->GetXattr(file_.ino, "user.x"), "v3");
  // Both flags, as ext4: EEXIST when present, ENODATA when absent.
  EXPECT_EQ(meta_->SetXattr(file_.ino, "user.x", "v", XATTR_CREATE | XATTR_REPLACE).code(),
            EEXIST);
  EXPECT_EQ(meta_->SetXattr(file_.ino, "user.y", "v", XATTR_CREATE | XATTR_REPLACE).code(),
            ENODATA);
  EXPECT_EQ(meta_->SetXattr(file_.ino, "user.x", "v", 0x40).code(), EINVAL);
  EXPECT_EQ(meta_->SetXattr(file_.ino, "", "v", 0).code(), ERANGE);
}

TEST_F(XattrTest, MissingInodeIsEnoent) {
  EXPECT_EQ(meta_->GetXattr(999, "user.a").status().code(), ENOENT);
  EXPECT_EQ(meta_->SetXattr(999, "user.a", "v", 0).code(), ENOENT);
  EXPECT_EQ(meta_->ListXattr(999).status().code(), ENOENT);
  EXPECT_EQ(meta_->RemoveXattr(999, "user.a").code(), ENOENT);
}

TEST_F(XattrTest, RemoveMissingIsEnodata) {
  EXPECT_EQ(meta_->RemoveXattr(file_.ino, "user.none").code(), ENODATA);
}

TEST_F(XattrTest, ChangesUpdateCtimeAndLog) {
  clock_.AdvanceSeconds(5);
  ASSERT_TRUE(meta_->SetXattr(file_.ino, "user.a", "1", 0).ok());
  EXPECT_EQ(Get(file_.ino).ctime_ns, clock_.NowNanos());
  FclRecord set = Fcl().back();
  EXPECT_EQ(set.event, "xattr");
  EXPECT_EQ(set.ino, file_.ino);
  EXPECT_EQ(set.detail, "set=user.a");
  clock_.AdvanceSeconds(5);
  ASSERT_TRUE(meta_->RemoveXattr(file_.ino, "user.a").ok());
  EXPECT_EQ(Get(file_.ino).ctime_ns, clock_.NowNanos());
  EXPECT_EQ(Fcl().back().detail, "remove=user.a");
  // Reads change nothing; failures log nothing.
  const size_t before = Fcl().size();
  (void)meta_->GetXattr(file_.ino, "user.a");
  (void)meta_->SetXattr(file_.ino, "user.a", "v", XATTR_REPLACE);
  EXPECT_EQ(Fcl().size(), before);
}

TEST_F(XattrTest, DirectoriesAndSymlinksHaveXattrsToo) {
  Inode dir = MakeDir(kRootIno, "d");
  ASSERT_TRUE(meta_->SetXattr(dir.ino, "user.d", "x", 0).ok());
  ASSERT_TRUE(meta_->SetXattr(kRootIno, "trusted.r", "y", 0).ok());
  EXPECT_EQ(*meta_->GetXattr(dir.ino, "user.d"), "x");
  EXPECT_EQ(*meta_->GetXattr(kRootIno, "trusted.r"), "y");
  EXPECT_EQ(meta_->GetXattr(file_.ino, "user.d").status().code(), ENODATA);
}

}  // namespace
}  // namespace tierfs::meta

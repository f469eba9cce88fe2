#include "policy/file_record.h"

#include <gtest/gtest.h>

namespace tierfs::policy {
namespace {

TEST(ParseFileTags, WordsByCommaOrSpaceOnceEachInOrder) {
  EXPECT_EQ(ParseFileTags("fast"), (std::vector<std::string>{"fast"}));
  EXPECT_EQ(ParseFileTags("fast,db idx\tlog\n"),
            (std::vector<std::string>{"fast", "db", "idx", "log"}));
  EXPECT_EQ(ParseFileTags(",,fast,,fast, db,"), (std::vector<std::string>{"fast", "db"}));
  EXPECT_TRUE(ParseFileTags("").empty());
  EXPECT_TRUE(ParseFileTags(" , ").empty());
}

}  // namespace
}  // namespace tierfs::policy

// The DTD compiled into the library is the file shipped as
// policy/placement_policy.dtd.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "policy/placement_policy_dtd.h"

namespace tierfs::policy {
namespace {

TEST(PlacementPolicyDtd, EmbeddedCopyMatchesShippedFile) {
  std::ifstream in(std::string(TIERFS_SOURCE_DIR) + "/policy/placement_policy.dtd");
  ASSERT_TRUE(in) << "cannot open policy/placement_policy.dtd";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(PlacementPolicyDtd(), text.str());
}

}  // namespace
}  // namespace tierfs::policy

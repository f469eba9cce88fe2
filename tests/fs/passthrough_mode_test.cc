// `--passthrough`'s values and the counter's hook names: each name parses to
// its value and back, auto included, and anything else is refused (the
// command line then names the option).
#include "fs/fuse/passthrough_mode.h"

#include <gtest/gtest.h>

#include "fs/bpf/passthrough_io_counter.h"

namespace tierfs {
namespace {

TEST(PassthroughModeTest, EveryNameParsesToItsModeAndBack) {
  for (PassthroughMode mode : {PassthroughMode::kOff, PassthroughMode::kReadOnly,
                               PassthroughMode::kReadWrite, PassthroughMode::kAuto}) {
    auto parsed = ParsePassthroughMode(PassthroughModeName(mode));
    ASSERT_TRUE(parsed.has_value()) << PassthroughModeName(mode);
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_EQ(ParsePassthroughMode("auto"), PassthroughMode::kAuto);
  for (const char* bad : {"", "on", "RW", "auto ", "yes"}) {
    EXPECT_FALSE(ParsePassthroughMode(bad).has_value()) << bad;
  }
}

TEST(PassthroughModeTest, EveryHookNameParsesToItsHookAndBack) {
  for (PassthroughIoHook hook : {PassthroughIoHook::kAuto, PassthroughIoHook::kPageCache,
                                 PassthroughIoHook::kFexit, PassthroughIoHook::kKprobe,
                                 PassthroughIoHook::kSyscall}) {
    auto parsed = ParsePassthroughIoHook(PassthroughIoHookName(hook));
    ASSERT_TRUE(parsed.has_value()) << PassthroughIoHookName(hook);
    EXPECT_EQ(*parsed, hook);
  }
  EXPECT_EQ(ParsePassthroughIoHook("pagecache"), PassthroughIoHook::kPageCache);
  EXPECT_FALSE(ParsePassthroughIoHook("page-cache").has_value());
  EXPECT_FALSE(ParsePassthroughIoHook("").has_value());
}

}  // namespace
}  // namespace tierfs

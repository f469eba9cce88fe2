#include "cli/common/units.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

namespace tierfs::cli {
namespace {

constexpr int64_t kNs = 1'000'000'000;

class UtcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    had_ = tz != nullptr;
    saved_ = had_ ? tz : "";
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_)
      setenv("TZ", saved_.c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }
  void UseZone(const char* tz) {
    setenv("TZ", tz, 1);
    tzset();
  }

 private:
  bool had_ = false;
  std::string saved_;
};

TEST_F(UtcTest, EpochSeconds) {
  EXPECT_EQ(*ParseTimeArg("1795341600"), 1795341600 * kNs);
  EXPECT_EQ(*ParseTimeArg("1795341600.5"), 1795341600 * kNs + kNs / 2);
  EXPECT_EQ(*ParseTimeArg("0"), 0);
}

TEST_F(UtcTest, IsoLocalTime) {
  EXPECT_EQ(*ParseTimeArg("2026-11-22T10:00:00"), 1795341600 * kNs);
  EXPECT_EQ(*ParseTimeArg("2026-11-22 10:00"), 1795341600 * kNs);
  EXPECT_EQ(*ParseTimeArg("2026-11-22"), (1795341600 - 10 * 3600) * kNs);
  EXPECT_EQ(*ParseTimeArg("2026-11-22T10:00:00.25"), 1795341600 * kNs + kNs / 4);
  UseZone("CET-1");  // UTC+1, no DST rules
  EXPECT_EQ(*ParseTimeArg("2026-11-22T10:00:00"), (1795341600 - 3600) * kNs);
  // An explicit zone ignores TZ.
  EXPECT_EQ(*ParseTimeArg("2026-11-22T10:00:00Z"), 1795341600 * kNs);
  EXPECT_EQ(*ParseTimeArg("2026-11-22T12:00:00+02:00"), 1795341600 * kNs);
  EXPECT_EQ(*ParseTimeArg("2026-11-22T05:30:00-0430"), 1795341600 * kNs);
}

TEST_F(UtcTest, BadTimesNameTheText) {
  for (const char* bad :
       {"", "yesterday", "2026-13-01", "2026-02-30", "2026-11-22T25:00", "2026-11-22T10",
        "2026-11-22T10:00:00+", "12:00", "1e9", "2026/11/22", "2026-11-22T10:00:00Zjunk", "-5"}) {
    Result<int64_t> r = ParseTimeArg(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find(std::string("\"") + bad + "\""), std::string::npos)
          << r.status().message();
    }
  }
  EXPECT_TRUE(ParseTimeArg("2024-02-29").ok());  // leap day
}

TEST_F(UtcTest, FormatLocalTime) {
  EXPECT_EQ(FormatLocalTime(1795341600 * kNs + 999), "2026-11-22T10:00:00");
  EXPECT_EQ(FormatLocalTime(0), "-");
  // Round trip through the parser.
  EXPECT_EQ(*ParseTimeArg(FormatLocalTime(1795341600 * kNs)), 1795341600 * kNs);
}

TEST(Units, Bytes) {
  EXPECT_EQ(*ParseBytes("0"), 0u);
  EXPECT_EQ(*ParseBytes("4096"), 4096u);
  EXPECT_EQ(*ParseBytes("10K"), 10240u);
  EXPECT_EQ(*ParseBytes("10k"), 10240u);
  EXPECT_EQ(*ParseBytes("10KB"), 10240u);
  EXPECT_EQ(*ParseBytes("10KiB"), 10240u);
  EXPECT_EQ(*ParseBytes("512B"), 512u);
  EXPECT_EQ(*ParseBytes("1.5G"), 1610612736u);
  EXPECT_EQ(*ParseBytes("2T"), 2ULL << 40);
  for (const char* bad :
       {"", "K", "x", "10Q", "-1", "1.2.3", "5iB", "99999999999999999999", "20000000T"}) {
    EXPECT_FALSE(ParseBytes(bad).ok()) << bad;
  }
}

TEST(Units, HumanBytes) {
  EXPECT_EQ(HumanBytes(0), "0");
  EXPECT_EQ(HumanBytes(1023), "1023");
  EXPECT_EQ(HumanBytes(1024), "1.0K");
  EXPECT_EQ(HumanBytes(1536), "1.5K");
  EXPECT_EQ(HumanBytes(20 << 20), "20M");
  EXPECT_EQ(HumanBytes(3ULL << 40), "3.0T");
}

TEST(Units, CountsAndHours) {
  EXPECT_EQ(*ParseCount("42"), 42u);
  EXPECT_FALSE(ParseCount("4x").ok());
  EXPECT_FALSE(ParseCount("").ok());
  EXPECT_DOUBLE_EQ(*ParseHours("0.5"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseHours("3"), 3);
  EXPECT_FALSE(ParseHours("-1").ok());
  EXPECT_FALSE(ParseHours("h").ok());
}

}  // namespace
}  // namespace tierfs::cli

// Every numeric option of the tools refuses negative and out-of-range values
// with a message naming the option (cli/common/units.h limits): fsppadm -s -n -t -p and
// status -n, fcladm print -s -n -t. (fsmap has no numeric option; mkdstfs's
// only one, --cron, is checked by cli/common/cron_entry.h; tierfs's flags are checked by
// gflags validators, tested in tests/integration/mount_safety_test.cc.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/fcladm/fcladm.h"
#include "cli/fsppadm/command_line.h"
#include "cli/fsppadm/scan.h"
#include "cli/common/units.h"

namespace tierfs::cli {
namespace {

using Args = std::vector<std::string>;

std::string FsppadmError(const Args& args) {
  Result<fsppadm::CommandLine> r = fsppadm::ParseCommandLine(args);
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), EINVAL);
  return r.status().message();
}

std::string FcladmError(const Args& args) {
  Result<FcladmArgs> r = ParseFcladmArgs(args);
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), EINVAL);
  return r.status().message();
}

TEST(NumericArgsTest, CountsAndSizesStopAtInt64Max) {
  EXPECT_EQ(ParseCount("9223372036854775807").value(), kMaxArgumentValue);
  EXPECT_EQ(ParseCount("9223372036854775808").status().message(),
            "count out of range: \"9223372036854775808\" (at most 9223372036854775807)");
  EXPECT_EQ(ParseCount("18446744073709551615").status().code(), EINVAL);  // would be -1 as int64
  EXPECT_EQ(ParseBytes("9223372036854775807").value(), kMaxArgumentValue);
  EXPECT_FALSE(ParseBytes("9223372036854775808").ok());
  EXPECT_FALSE(ParseBytes("8388608T").ok());  // 2^63 bytes
  EXPECT_EQ(ParseBytes("8388607T").value(), 8388607ULL << 40);
  for (const char* bad : {"-1", "-0", "1e300", "+5", " 5"}) {
    EXPECT_FALSE(ParseCount(bad).ok()) << bad;
    EXPECT_FALSE(ParseBytes(bad).ok()) << bad;
    EXPECT_FALSE(ParseHours(bad).ok()) << bad;
  }
}

TEST(NumericArgsTest, HoursAreBounded) {
  EXPECT_DOUBLE_EQ(ParseHours("1000000").value(), 1e6);
  EXPECT_EQ(ParseHours("1000000.5").status().message(),
            "hours out of range: \"1000000.5\" (at most 1000000)");
  EXPECT_FALSE(ParseHours(std::string(400, '9')).ok());  // inf as a double
}

TEST(NumericArgsTest, FsppadmScanOptions) {
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-p", "1e300", "/m"}),
            "enforce: -p: IO_NICE must be 1..100, got 1e300");
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-p", "-5", "/m"}),
            "enforce: -p: IO_NICE must be 1..100, got -5");
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-p", "4294967346", "/m"}),
            "enforce: -p: IO_NICE must be 1..100, got 4294967346");
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-p", "0", "/m"}),
            "enforce: -p: IO_NICE must be 1..100, got 0");
  EXPECT_EQ(FsppadmError({"fsppadm", "analyze", "-s", "-1", "/m"}).rfind("analyze: -s: not a size", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-s", "99999999999999999999", "/m"})
                .rfind("enforce: -s: size out of range", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-n", "9223372036854775808", "/m"})
                .rfind("enforce: -n: count out of range", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-t", "-2", "/m"})
                .rfind("enforce: -t: not a number of hours", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-t", "1e300", "/m"})
                .rfind("enforce: -t: not a number of hours", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "enforce", "-t", "2000000", "/m"})
                .rfind("enforce: -t: hours out of range", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "status", "-n", "-1", "/m"}).rfind("status: -n: not a count", 0),
            0u);
  EXPECT_EQ(FsppadmError({"fsppadm", "status", "-n", "99999999999999999999", "/m"})
                .rfind("status: -n: count out of range", 0),
            0u);
  Result<fsppadm::ScanOptions> ok = fsppadm::ParseScanOptions(
      {"enforce", "-p", "100", "-s", "8388607T", "-n", "9223372036854775807", "-t",
       "1000000", "/m"});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->io_nice, 100);
  EXPECT_EQ(ok->limit_files, kMaxArgumentValue);
}

TEST(NumericArgsTest, FcladmPrintOptions) {
  EXPECT_EQ(FcladmError({"fcladm", "print", "-s", "18446744073709551615", "/m"})
                .rfind("print: -s: count out of range", 0),
            0u);  // was from_seq -1
  EXPECT_EQ(FcladmError({"fcladm", "print", "-s", "-1", "/m"}).rfind("print: -s: not a count", 0),
            0u);
  EXPECT_EQ(FcladmError({"fcladm", "print", "-n", "-1", "/m"}).rfind("print: -n: not a count", 0),
            0u);
  EXPECT_EQ(FcladmError({"fcladm", "print", "-t", "99999999999999", "/m"})
                .rfind("print: -t: time out of range", 0),
            0u);
  Result<FcladmArgs> ok =
      ParseFcladmArgs({"fcladm", "print", "-s", "9223372036854775807", "-n", "5", "/m"});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->from_seq, INT64_MAX);
}

}  // namespace
}  // namespace tierfs::cli

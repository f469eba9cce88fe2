// Temperature arithmetic, bucket accumulation and activity totals
// (docs/policies.md "Temperatures").
#include "policy/temperature.h"

#include <gtest/gtest.h>

#include "policy/file_record.h"
#include "tests/policy/test_util.h"

namespace tierfs::policy {
namespace {

using testing::kHour;
using testing::kMiB;

TEST(Temperature, IoTempIsBytesPerHourPerByteOfFile) {
  // 60 MiB read from a 10 MiB file over 6 hours: 1 file-size per hour.
  EXPECT_DOUBLE_EQ(IoTemp(60.0 * kMiB, 6, 10 * kMiB), 1.0);
  // The example of docs/policies.md "Temperatures" (VxFS 5.0's, in per-hour form):
  // a 10 MB file read 5 times in a 2-day window has IOTEMP 5 / 48.
  EXPECT_DOUBLE_EQ(IoTemp(50.0 * kMiB, 48, 10 * kMiB), 5.0 / 48);
  EXPECT_DOUBLE_EQ(IoTemp(0, 6, 10 * kMiB), 0);
}

TEST(Temperature, SmallFilesCountAs4096Bytes) {
  EXPECT_DOUBLE_EQ(IoTemp(4096, 1, 1), 1.0);
  EXPECT_DOUBLE_EQ(IoTemp(4096, 1, 0), 1.0);
  EXPECT_DOUBLE_EQ(IoTemp(4096, 1, 4095), 1.0);
  EXPECT_DOUBLE_EQ(IoTemp(8192, 1, 8192), 1.0);
  EXPECT_DOUBLE_EQ(IoTemp(4096, 2, 100), 0.5);
}

TEST(Temperature, AccessTempIsCallsPerHourNotDividedBySize) {
  EXPECT_DOUBLE_EQ(AccessTemp(120, 6), 20);
  EXPECT_DOUBLE_EQ(AccessTemp(0, 6), 0);
}

TEST(Temperature, ZeroPeriodsAndDenominatorsGiveZero) {
  EXPECT_EQ(IoTemp(100, 0, 4096), 0);
  EXPECT_EQ(AccessTemp(100, 0), 0);
  EXPECT_EQ(AverageIoTemp(100, 24, 0), 0);
  EXPECT_EQ(AverageIoTemp(100, 0, 4096), 0);
  EXPECT_EQ(AverageAccessTemp(100, 24, 0), 0);
}

TEST(Temperature, AveragesAreRatiosOfSums) {
  // Two active files: 10 MiB and 1 MiB, 66 MiB read in 24 hours in all.
  EXPECT_DOUBLE_EQ(AverageIoTemp(66.0 * kMiB, 24, 11.0 * kMiB), 66.0 / (24 * 11));
  EXPECT_DOUBLE_EQ(AverageAccessTemp(480, 24, 4), 5);
}

TEST(Temperature, CountOfTypeAndKinds) {
  IoCounters io{100, 20, 7, 3};
  EXPECT_EQ(CountOfType(TempType::kNrBytes, io), 100);
  EXPECT_EQ(CountOfType(TempType::kNwBytes, io), 20);
  EXPECT_EQ(CountOfType(TempType::kNrwBytes, io), 120);
  EXPECT_EQ(CountOfType(TempType::kNReads, io), 7);
  EXPECT_EQ(CountOfType(TempType::kNWrites, io), 3);
  EXPECT_EQ(CountOfType(TempType::kNrws, io), 10);
  EXPECT_EQ(CountOfType(TempType::kNone, io), 0);
  EXPECT_TRUE(IsByteType(TempType::kNrwBytes));
  EXPECT_FALSE(IsByteType(TempType::kNrws));

  Criterion io_temp;
  io_temp.kind = CriterionKind::kIoTemp;
  io_temp.type = TempType::kNrwBytes;
  io_temp.period_hours = 2;
  EXPECT_DOUBLE_EQ(FileTemperature(io_temp, IoCounters{8192, 8192, 0, 0}, 100), 2);
  Criterion acc;
  acc.kind = CriterionKind::kAccessTemp;
  acc.type = TempType::kNWrites;
  acc.period_hours = 2;
  EXPECT_DOUBLE_EQ(FileTemperature(acc, io, 1 << 30), 1.5);

  ActivityTotals totals{IoCounters{48 * 4096.0, 0, 24, 48}, 4096, 2};
  EXPECT_DOUBLE_EQ(AverageTemperature(TempType::kNrBytes, totals, 24), 2);
  EXPECT_DOUBLE_EQ(AverageTemperature(TempType::kNWrites, totals, 24), 1);
  EXPECT_DOUBLE_EQ(AverageTemperature(TempType::kNrws, totals, 24), 1.5);
}

TEST(AccumulateBucket, FullPartialAndOutsideOverlap) {
  const int64_t now = 100 * kHour;
  const std::vector<double> hours{3, 6};
  std::vector<IoCounters> w;
  IoCounters b{3600, 360, 10, 1};
  AccumulateBucket(hours, now, now - kHour, kHour, b, &w);  // last hour: in both windows
  ASSERT_EQ(w.size(), 2u);
  EXPECT_DOUBLE_EQ(w[0].rbytes, 3600);
  EXPECT_DOUBLE_EQ(w[1].wops, 1);
  AccumulateBucket(hours, now, now - 4 * kHour, kHour, b, &w);  // only in the 6-hour window
  EXPECT_DOUBLE_EQ(w[0].rbytes, 3600);
  EXPECT_DOUBLE_EQ(w[1].rbytes, 7200);
  AccumulateBucket(hours, now, now - 7 * kHour, kHour, b, &w);  // in neither
  EXPECT_DOUBLE_EQ(w[1].rbytes, 7200);
  // A bucket straddling the 3-hour edge: half of it is inside.
  AccumulateBucket(hours, now, now - 3 * kHour - kHour / 2, kHour, b, &w);
  EXPECT_DOUBLE_EQ(w[0].rbytes, 3600 + 1800);
  EXPECT_DOUBLE_EQ(w[0].rops, 10 + 5);
  EXPECT_DOUBLE_EQ(w[1].rbytes, 7200 + 3600);
}

TEST(AccumulateBucket, TheCurrentBucketCountsUpToNow) {
  // The scan starts 15 minutes into a bucket: everything in it happened in those
  // 15 minutes, all inside a one-hour window.
  const int64_t now = 50 * kHour + 900;
  std::vector<IoCounters> w;
  AccumulateBucket({1}, now, 50 * kHour, kHour, IoCounters{400, 0, 0, 0}, &w);
  EXPECT_DOUBLE_EQ(w[0].rbytes, 400);
  // A 10-minute window holds 10 of those 15 minutes.
  std::vector<IoCounters> short_window;
  AccumulateBucket({10.0 / 60}, now, 50 * kHour, kHour, IoCounters{300, 0, 0, 0}, &short_window);
  EXPECT_DOUBLE_EQ(short_window[0].rbytes, 200);
  // A bucket entirely after `now` is not part of any window.
  AccumulateBucket({1}, now, 51 * kHour, kHour, IoCounters{400, 0, 0, 0}, &w);
  EXPECT_DOUBLE_EQ(w[0].rbytes, 400);
}

TEST(AccumulateBucket, FinerBucketsAndFractionalPeriods) {
  const int64_t now = 10 * kHour;
  std::vector<IoCounters> w;
  // Ten-minute buckets over the last two hours, 60 bytes each.
  for (int i = 0; i < 12; ++i) {
    AccumulateBucket({0.5, 1.5}, now, now - (i + 1) * 600, 600, IoCounters{60, 0, 0, 0}, &w);
  }
  EXPECT_DOUBLE_EQ(w[0].rbytes, 3 * 60);
  EXPECT_DOUBLE_EQ(w[1].rbytes, 9 * 60);
}

TEST(AccumulateBucket, IgnoresEmptyBucketsButSizesTheWindows) {
  std::vector<IoCounters> w;
  AccumulateBucket({1, 2, 3}, 100, 0, 0, IoCounters{1, 1, 1, 1}, &w);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_FALSE(w[0].Any());
}

TEST(ActivityTotals, OnlyActiveFilesCountWithTheSizeFloor) {
  ActivityTotals t;
  AddActivity(IoCounters{}, 10 * kMiB, &t);  // idle: not active
  AddActivity(IoCounters{100, 0, 1, 0}, 10, &t);
  AddActivity(IoCounters{0, 50, 0, 2}, 8192, &t);
  EXPECT_EQ(t.active_files, 2u);
  EXPECT_DOUBLE_EQ(t.size_sum, 4096 + 8192);
  EXPECT_DOUBLE_EQ(t.io.rbytes, 100);
  EXPECT_DOUBLE_EQ(t.io.wbytes, 50);
  EXPECT_DOUBLE_EQ(t.io.wops, 2);
}

}  // namespace
}  // namespace tierfs::policy

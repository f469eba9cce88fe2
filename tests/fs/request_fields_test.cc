// The daemon's strict reading of request numbers (fs/control/request_fields.h) and
// ParseScanRequest on top of it: out-of-range, negative, fractional and
// wrongly typed members are EINVAL naming the field, never wrapped or defaulted.
#include "fs/control/request_fields.h"
#include "fs/control/scan_request_json.h"

#include <gtest/gtest.h>

#include "fs/tiering/scan_service.h"

namespace tierfs {
namespace {

using nlohmann::json;

json Parse(const char* text) { return json::parse(text); }

// The error message of a failed parse, "" when it succeeded.
std::string ScanError(const char* text) {
  Result<ScanRequest> r = ParseScanRequest(Parse(text));
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), EINVAL) << text;
  return r.status().message();
}

TEST(RequestFieldsTest, IntegersInRange) {
  json j = Parse(R"({"a": 5, "b": 1e2, "c": null, "big": 9223372036854775807})");
  EXPECT_EQ(RequestInt(j, "a", 0, 10, 7).value(), 5);
  EXPECT_EQ(RequestInt(j, "b", 0, 100, 7).value(), 100);  // 1e2 is an integer
  EXPECT_EQ(RequestInt(j, "c", 0, 10, 7).value(), 7);     // null: the default
  EXPECT_EQ(RequestInt(j, "missing", 0, 10, 7).value(), 7);
  EXPECT_EQ(RequestInt(j, "big", 0, INT64_MAX, 0).value(), INT64_MAX);
}

TEST(RequestFieldsTest, IntegersOutOfRangeOrOfTheWrongKind) {
  json j = Parse(R"({"huge": 1e300, "neg": -1, "frac": 2.5, "text": "5", "flag": true,
                    "u64": 18446744073709551615, "over": 18446744073709551616, "list": [1]})");
  for (const char* key : {"huge", "neg", "frac", "text", "flag", "u64", "over", "list"}) {
    Result<int64_t> r = RequestInt(j, key, 0, 100, 50);
    ASSERT_FALSE(r.ok()) << key << " -> " << r.value();
    EXPECT_EQ(r.status().code(), EINVAL);
    const std::string expected = std::string(key) + " must be an integer from 0 to 100, got ";
    EXPECT_EQ(r.status().message().rfind(expected, 0), 0u) << r.status().message();
  }
  EXPECT_EQ(RequestInt(j, "neg", 0, 9, 0, "limits").status().message(),
            "limits.neg must be an integer from 0 to 9, got -1");
}

TEST(RequestFieldsTest, DoublesBoolsStrings) {
  json j = Parse(R"({"s": 1.5, "neg": -0.5, "big": 1e300, "t": true, "x": "y", "n": 3})");
  EXPECT_DOUBLE_EQ(RequestDouble(j, "s", 0, 10, 0).value(), 1.5);
  EXPECT_DOUBLE_EQ(RequestDouble(j, "n", 0, 10, 0).value(), 3);
  EXPECT_EQ(RequestDouble(j, "neg", 0, 10, 0).status().code(), EINVAL);
  EXPECT_EQ(RequestDouble(j, "big", 0, 10, 0).status().code(), EINVAL);
  EXPECT_EQ(RequestDouble(j, "x", 0, 10, 0).status().code(), EINVAL);
  EXPECT_TRUE(RequestBool(j, "t", false).value());
  EXPECT_FALSE(RequestBool(j, "missing", false).value());
  EXPECT_EQ(RequestBool(j, "n", false).status().message(), "n must be true or false, got 3");
  EXPECT_EQ(RequestString(j, "x", "").value(), "y");
  EXPECT_EQ(RequestString(j, "n", "").status().code(), EINVAL);
}

TEST(ScanRequestRangeTest, IoNiceOutOfRangeIsRefusedNotWrapped) {
  EXPECT_NE(ScanError(R"({"mode":"enforce","io_nice":1e300})")
                .find("io_nice must be an integer from 1 to 100, got 1e+300"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","io_nice":-5})").find("io_nice"), std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","io_nice":4294967346})").find("io_nice"),
            std::string::npos);  // 50 + 2^32: would wrap to 50
  EXPECT_NE(ScanError(R"({"mode":"enforce","io_nice":"50"})").find("io_nice"), std::string::npos);
  EXPECT_EQ(ScanError(R"({"mode":"enforce","io_nice":100})"), "");
}

TEST(ScanRequestRangeTest, NegativeOrHugeLimitsAreRefused) {
  EXPECT_NE(ScanError(R"({"mode":"enforce","limits":{"bytes":-1}})").find("limits.bytes"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","limits":{"files":-3}})").find("limits.files"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","limits":{"files":1e300}})").find("limits.files"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","limits":{"seconds":-1}})").find("limits.seconds"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","limits":{"seconds":1e300}})").find("limits.seconds"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","limits":5})").find("limits must be an object"),
            std::string::npos);
  Result<ScanRequest> r = ParseScanRequest(
      Parse(R"({"mode":"enforce","limits":{"bytes":1048576,"files":3,"seconds":7200}})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->max_bytes, 1048576u);
  EXPECT_EQ(r->max_files, 3u);
  EXPECT_DOUBLE_EQ(r->max_seconds, 7200);
}

TEST(ScanRequestRangeTest, WrongTypesAreEinvalNotExceptions) {
  EXPECT_NE(ScanError(R"({"mode":"enforce","active_only":"yes"})").find("active_only"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","no_wait":1})").find("no_wait"), std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":"enforce","policy_xml":7})").find("policy_xml"),
            std::string::npos);
  EXPECT_NE(ScanError(R"({"mode":3})").find("mode"), std::string::npos);
  EXPECT_EQ(ScanError(R"({"mode":"query","policy_xml":null,"limits":null})"), "");
}

}  // namespace
}  // namespace tierfs

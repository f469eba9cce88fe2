#include "fs/objstore/s3_xml.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

// Replies as the RADOS Gateway sent them.
constexpr char kListPage[] =
    R"(<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bkt1</Name><Prefix>a/</Prefix><MaxKeys>1</MaxKeys><IsTruncated>true</IsTruncated><Contents><Key>a/b c</Key><LastModified>2026-11-27T19:18:55.928Z</LastModified><ETag>&quot;06347738eb7bd939c90ca4c9f18d6924&quot;</ETag><Size>1000000</Size><StorageClass>STANDARD</StorageClass></Contents><KeyCount>1</KeyCount><NextContinuationToken>a+b=</NextContinuationToken></ListBucketResult>)";

TEST(S3XmlTest, ListObjectsV2Page) {
  Result<S3ObjectPage> page = ParseListObjectsV2(kListPage);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "a/b c");
  EXPECT_EQ(page->objects[0].size, 1000000u);
  EXPECT_EQ(page->objects[0].etag, "06347738eb7bd939c90ca4c9f18d6924");
  EXPECT_EQ(page->objects[0].last_modified, 1795807135);  // 2026-11-27T19:18:55Z
  EXPECT_EQ(page->next_continuation_token, "a+b=");
}

TEST(S3XmlTest, LastPageHasNoToken) {
  Result<S3ObjectPage> page = ParseListObjectsV2(
      "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->objects.empty());
  EXPECT_EQ(page->next_continuation_token, "");
}

TEST(S3XmlTest, MalformedRepliesAreEproto) {
  EXPECT_EQ(ParseListObjectsV2("").status().code(), EPROTO);
  EXPECT_EQ(ParseListObjectsV2("not xml").status().code(), EPROTO);
  EXPECT_EQ(ParseListObjectsV2("<Other/>").status().code(), EPROTO);
  EXPECT_EQ(ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key><Size>x</Size>"
                               "</Contents></ListBucketResult>")
                .status()
                .code(),
            EPROTO);
  EXPECT_EQ(ParseListObjectsV2(
                "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>")
                .status()
                .code(),
            EPROTO);
  EXPECT_EQ(ParseInitiateMultipartUpload("<InitiateMultipartUploadResult/>").status().code(),
            EPROTO);
}

TEST(S3XmlTest, ErrorCodeAndMessage) {
  std::string code, message;
  EXPECT_TRUE(ParseS3Error(
      R"(<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>gone</Message><RequestId>tx1</RequestId></Error>)",
      &code, &message));
  EXPECT_EQ(code, "NoSuchKey");
  EXPECT_EQ(message, "gone");
  EXPECT_FALSE(ParseS3Error("<ListBucketResult/>", &code, &message));
  EXPECT_EQ(code, "");
  EXPECT_FALSE(ParseS3Error("", &code, &message));
}

TEST(S3XmlTest, MultipartReplies) {
  Result<std::string> id = ParseInitiateMultipartUpload(
      R"(<InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>b</Bucket><Key>big</Key><UploadId>2~AHjs</UploadId></InitiateMultipartUploadResult>)");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "2~AHjs");

  Result<std::string> etag = ParseCompleteMultipartUpload(
      "<CompleteMultipartUploadResult><ETag>\"abc-7\"</ETag></CompleteMultipartUploadResult>");
  ASSERT_TRUE(etag.ok());
  EXPECT_EQ(*etag, "abc-7");
  // An error inside a 200 reply.
  Result<std::string> failed = ParseCompleteMultipartUpload(
      "<Error><Code>InvalidPart</Code><Message>m</Message></Error>");
  EXPECT_EQ(failed.status().code(), EINVAL);
  EXPECT_NE(failed.status().message().find("InvalidPart"), std::string::npos);

  std::string key_marker, id_marker;
  Result<std::vector<S3MultipartUpload>> uploads = ParseListMultipartUploads(
      R"(<ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextKeyMarker>big</NextKeyMarker><NextUploadIdMarker>2~x</NextUploadIdMarker><Upload><Key>big</Key><UploadId>2~x</UploadId><Initiated>2026-11-27T19:18:59.216Z</Initiated></Upload></ListMultipartUploadsResult>)",
      &key_marker, &id_marker);
  ASSERT_TRUE(uploads.ok());
  ASSERT_EQ(uploads->size(), 1u);
  EXPECT_EQ((*uploads)[0].key, "big");
  EXPECT_EQ((*uploads)[0].upload_id, "2~x");
  EXPECT_EQ((*uploads)[0].initiated, 1795807139);
  EXPECT_EQ(key_marker, "big");
  EXPECT_EQ(id_marker, "2~x");
}

TEST(S3XmlTest, CompleteBodyListsThePartsWithQuotedEscapedEtags) {
  EXPECT_EQ(CompleteMultipartUploadBody({{1, "aa"}, {2, "b<"}}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"aa\"</ETag></Part>"
            "<Part><PartNumber>2</PartNumber><ETag>\"b&lt;\"</ETag></Part>"
            "</CompleteMultipartUpload>");
}

TEST(S3XmlTest, Times) {
  EXPECT_EQ(ParseS3Time("1970-01-01T00:00:10.000Z"), 10);
  EXPECT_EQ(ParseS3Time("Fri, 27 Nov 2026 19:18:55 GMT"), 1795807135);
  EXPECT_EQ(ParseS3Time("yesterday"), 0);
  EXPECT_EQ(UnquoteEtag("\"abc\""), "abc");
  EXPECT_EQ(UnquoteEtag("abc"), "abc");
}

TEST(S3XmlTest, BucketVersioning) {
  EXPECT_EQ(*ParseBucketVersioning(
                "<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>"),
            "Enabled");
  EXPECT_EQ(*ParseBucketVersioning("<VersioningConfiguration/>"), "");
  // moto's reply for a bucket never versioned.
  EXPECT_EQ(*ParseBucketVersioning("<?xml version=\"1.0\"?><GetBucketVersioningResponse "
                                   "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"/>"),
            "");
  EXPECT_EQ(ParseBucketVersioning("<ListBucketResult/>").status().code(), EPROTO);
}

}  // namespace
}  // namespace tierfs

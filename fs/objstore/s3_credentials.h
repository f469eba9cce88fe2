// S3Credentials: the access key and secret key that sign every request to an
// S3 endpoint, and the loader of the file that holds them.
//
// The file (`--credentials FILE` of an object volume) has one `NAME = VALUE`
// per line; blank lines and lines starting with `#` are ignored; spaces around
// NAME and VALUE are dropped:
//
//   # tierfs S3 credentials
//   access_key = AKIAIOSFODNN7EXAMPLE
//   secret_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
//   session_token = IQoJb3JpZ2luX2VjE...   (optional)
//
// access_key and secret_key are required, each once; session_token is
// optional (temporary credentials, e.g. from AWS STS: sent as
// x-amz-security-token and signed); any other name is an error. The file
// must be a regular file that neither group nor others may read or write (mode
// 0600 or 0400): a secret readable by every local user is a secret no more,
// and tierfs refuses it rather than warn, as ssh does with a private key.
//
// The secret and the session token never appear in an error message or a log line: errors name the
// file, the line number and at most the NAME, never a value. Value type; safe
// to copy between threads.
#pragma once

#include <string>

#include "common/status.h"

namespace tierfs {

struct S3Credentials {
  std::string access_key;  // the key id, sent in every request (not secret)
  std::string secret_key;  // signs requests; never logged, never stored elsewhere
  // "" for none; else sent with every request, and as secret as secret_key.
  std::string session_token;
};

// Reads the credentials file `path`. Errors:
//   ENOENT, EACCES (from open), ELOOP...: the file cannot be opened;
//   EACCES: the file is readable or writable by group or others (the message
//           names the file and its mode, and says chmod 600);
//   EINVAL: not a regular file, a line that is not NAME = VALUE, an unknown or
//           repeated NAME (session_token included), a missing access_key or
//           secret_key, an empty value,
//           or a file over 64 KiB.
Result<S3Credentials> LoadS3Credentials(const std::string& path);

// The same checks on the text of such a file (`origin` names it in errors),
// without the mode check: for tests and for callers that read it themselves.
Result<S3Credentials> ParseS3Credentials(const std::string& text, const std::string& origin);

}  // namespace tierfs

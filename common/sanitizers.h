// Which sanitizer this translation unit is built with (scripts/sanitize.sh):
// TIERFS_ASAN_BUILD (AddressSanitizer) and TIERFS_TSAN_BUILD (ThreadSanitizer),
// from clang's __has_feature or gcc's __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__.
// Code that talks to a sanitizer's runtime (fs/fuse/kernel_order.h, fs/daemon/session.cc)
// compiles it only under these.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIERFS_ASAN_BUILD 1
#endif
#if __has_feature(thread_sanitizer)
#define TIERFS_TSAN_BUILD 1
#endif
#endif
#if !defined(TIERFS_ASAN_BUILD) && defined(__SANITIZE_ADDRESS__)
#define TIERFS_ASAN_BUILD 1
#endif
#if !defined(TIERFS_TSAN_BUILD) && defined(__SANITIZE_THREAD__)
#define TIERFS_TSAN_BUILD 1
#endif

// Thread-safety annotations: the lock rules of tierfs written so that clang
// checks them (-Wthread-safety; scripts/thread-safety.sh, docs/testing-tools.md).
//
// A member marked GUARDED_BY(mu_) may only be read or written with mu_ held; a
// function marked REQUIRES(mu_) may only be called with it held; EXCLUDES(mu_)
// says the function takes mu_ itself, so a caller holding it would deadlock.
// Lock types say what they do to a capability (ACQUIRE, RELEASE...), which is
// why tierfs uses its own annotated wrappers (common/mutex.h,
// common/shared_mutex.h) and not std::mutex, whose libstdc++ declarations
// carry no annotations.
//
// Every macro expands to nothing under other compilers (GCC): the annotations
// cost nothing at run time and change no code, they only let clang refuse a
// build that breaks a rule.
#pragma once

#if defined(__clang__)
#define TIERFS_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TIERFS_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are locks ("mutex" names the kind in warnings).
#define CAPABILITY(name) TIERFS_THREAD_ANNOTATION(capability(name))
// On a class: an RAII guard that holds the lock its constructor takes.
#define SCOPED_CAPABILITY TIERFS_THREAD_ANNOTATION(scoped_lockable)

// On a data member: `mu` must be held to read it (shared is enough) or to
// write it (exclusively).
#define GUARDED_BY(mu) TIERFS_THREAD_ANNOTATION(guarded_by(mu))
// On a pointer member: the pointee, not the pointer, is guarded by `mu`.
#define PT_GUARDED_BY(mu) TIERFS_THREAD_ANNOTATION(pt_guarded_by(mu))

// On a lock member: the lock order, outer to inner.
#define ACQUIRED_BEFORE(...) TIERFS_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) TIERFS_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

// On a function: the caller holds these locks exclusively / at least shared.
#define REQUIRES(...) TIERFS_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) TIERFS_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

// On a function: it takes (ACQUIRE) or gives back (RELEASE) these locks, and
// returns holding / not holding them. With no argument, inside a lock class,
// the lock is the object itself.
#define ACQUIRE(...) TIERFS_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) TIERFS_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) TIERFS_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) TIERFS_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
// Releases a lock held either way (a scoped guard's destructor).
#define RELEASE_GENERIC(...) TIERFS_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
// On a function returning bool: it holds the lock when it returns `result`.
// TRY_ACQUIRE(result) or TRY_ACQUIRE(result, locks...).
#define TRY_ACQUIRE(...) TIERFS_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) \
  TIERFS_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))

// On a function: it takes these locks itself; the caller must not hold them.
#define EXCLUDES(...) TIERFS_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// On a function: it checks (at run time, or by construction) that the lock is
// held, and the analysis may assume so after the call.
#define ASSERT_CAPABILITY(mu) TIERFS_THREAD_ANNOTATION(assert_capability(mu))
#define ASSERT_SHARED_CAPABILITY(mu) TIERFS_THREAD_ANNOTATION(assert_shared_capability(mu))
// On a function: it returns (a reference to) this lock, so that callers'
// annotations may name it.
#define RETURN_CAPABILITY(mu) TIERFS_THREAD_ANNOTATION(lock_returned(mu))

// On a function: the analysis skips its body. The escape for a rule the
// analysis cannot express; `why` (a string literal, otherwise unused) says
// which, so every use carries its reason where it is read.
#define NO_THREAD_SAFETY_ANALYSIS(why) TIERFS_THREAD_ANNOTATION(no_thread_safety_analysis)

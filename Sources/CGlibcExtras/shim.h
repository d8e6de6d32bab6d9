// The GNU extensions of glibc that loctrack uses and Swift's Glibc module leaves
// out (it is built without _GNU_SOURCE), and one field Swift cannot reliably read.
// Only Sources/LocTrackSystem imports this module; the rest of loctrack calls the
// wrappers there.
#ifndef LOCTRACK_GLIBC_EXTRAS_SHIM_H
#define LOCTRACK_GLIBC_EXTRAS_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

// Names the calling thread (15 bytes are kept), as `top -H` and
// /proc/PID/task/*/comm show it.
static inline int loctrack_name_calling_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

// Names `thread` (15 bytes are kept), from another thread of the process.
static inline int loctrack_name_thread(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}

// Lets every thread allocate from one malloc arena (mallopt's M_ARENA_MAX).
static inline int loctrack_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

// A stat result's modification time, nanoseconds since 1970. Swift attributes
// struct timespec to whichever module included <time.h> first (libgps's header,
// in loctrack), so whether Swift code may read st_mtim's members depends on the
// build's import order; read here, it always compiles.
static inline long long loctrack_modification_nanoseconds(const struct stat *status) {
    return (long long)status->st_mtim.tv_sec * 1000000000LL + status->st_mtim.tv_nsec;
}

// pipe2(2), declared as <unistd.h> declares it with _GNU_SOURCE (Swift's Glibc module is
// built without it). A pipe made close-on-exec in the same call: with pipe(2) and then
// fcntl, a process started by another thread in between would inherit the pipe, and a
// wake-up pipe whose write end a child holds never reads end-of-file when loctrack closes it.
extern int pipe2(int descriptors[2], int flags);

static inline int loctrack_pipe2(int descriptors[2], int flags) {
    return pipe2(descriptors, flags);
}

// getrandom(2) (glibc 2.25), declared as <sys/random.h> declares it (ssize_t and size_t
// are the sizes of long on Linux). Swift's Glibc module leaves that header out, and it is
// not included here either: it brings <sys/types.h> and <sys/select.h>, and fd_set would
// then belong to this module and clash with Dispatch's in the targets that import Foundation.
extern long getrandom(void *buffer, unsigned long length, unsigned int flags);

// Fills `buffer` with `length` bytes from the kernel's random source. Returns the bytes
// written, or -1 with errno set.
static inline long loctrack_random_bytes(void *buffer, unsigned long length) {
    return getrandom(buffer, length, 0);
}

// A signalfd(2) for the blocked signals in `set` (a sigset_t, passed untyped so that
// Swift sees Glibc's sigset_t, not this module's), close-on-exec and non-blocking.
// Returns the descriptor, or -1 with errno set.
static inline int loctrack_signal_descriptor(const void *set) {
    return signalfd(-1, (const sigset_t *)set, SFD_CLOEXEC | SFD_NONBLOCK);
}

// The size of one record read from a signalfd; its first field is the signal's number.
static inline unsigned long loctrack_signal_record_size(void) {
    return sizeof(struct signalfd_siginfo);
}

#endif

#ifndef CLOCATORKIT_THREAD_H
#define CLOCATORKIT_THREAD_H

// A native thread-local slot for LocatorKit's per-thread frame stack.
//
// Swift has no thread-local variables of its own; `pthread_getspecific` costs a call into libc on every factory
// run. A C11 `_Thread_local` reached through an inline function compiles to a couple of instructions instead.
// Freeing the stack at thread exit stays with a pthread key (see ThreadContext.swift).

extern _Thread_local void *_Nullable locatorkit_thread_stack;

/// The address of the calling thread's slot.
static inline void *_Nullable *_Nonnull locatorkit_thread_stack_slot(void) {
    return &locatorkit_thread_stack;
}

#endif

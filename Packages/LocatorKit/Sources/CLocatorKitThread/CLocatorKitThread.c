#include "CLocatorKitThread.h"

_Thread_local void *locatorkit_thread_stack = 0;

#include <sqlite3.h>
// mallinfo2 and malloc_usable_size, for the W1 memory breakdown (w1-memory).
#include <malloc.h>

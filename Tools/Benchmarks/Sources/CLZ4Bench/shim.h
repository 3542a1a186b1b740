#include <lz4.h>
#include <lz4frame.h>

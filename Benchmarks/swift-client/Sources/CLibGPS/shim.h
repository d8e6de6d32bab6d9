// Lets the module map name <gps.h> without its absolute path.
#include <gps.h>

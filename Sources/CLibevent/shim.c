// CLibevent has no C of its own: SwiftPM wants a source file in every C target.
#include "CLibevent.h"

// FakeDiscovery is header-only; this unit keeps the vtable anchored in one object file.
#include "modelkit/device/discovery.h"

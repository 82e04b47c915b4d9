#include <gtest/gtest.h>
#include "triage/triage.h"
TEST(Version, IsSet) { EXPECT_STREQ(triage::Version(), "0.1.0"); }

// text::WithoutProseTail (Note: [Prose after a message] in engine/src/log/formats/text.h): the tail a person
// typed after an exception line's message is cut only where it is clearly theirs; a message's own
// questions, code spans and dashes stay. The messages are real wordings (the corpus' logs); the tails are
// the forms people type after them.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "log/formats/text.h"

namespace triage {
namespace {

TEST(TextProseTail, CutsWhatIsClearlyThePersonsWords) {
  struct Case {
    const char* msg;
    const char* want;
  };
  const Case cases[] = {
      {"CUDA out of memory. Tried to allocate 20.00 MiB -- any idea why?", "CUDA out of memory. Tried to allocate 20.00 MiB"},
      {"CUDA out of memory. Tried to allocate 20.00 MiB -- thanks in advance", "CUDA out of memory. Tried to allocate 20.00 MiB"},
      {"CUDA out of memory. Tried to allocate 20.00 MiB -- is this a driver bug?", "CUDA out of memory. Tried to allocate 20.00 MiB"},
      {"Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!` when I run train.py",
       "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"},
      {"mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)`", "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)"},
      {"mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)`.", "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)"},
      {"CUDA error: device-side assert triggered (see above)", "CUDA error: device-side assert triggered"},
      {"mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128), how can I fix this?",
       "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)"},
      {"1only batches of spatial targets supported (non-empty 3D tensors) but got targets of size: : [4, 976],could you help me to "
       "solve the problem?",
       "1only batches of spatial targets supported (non-empty 3D tensors) but got targets of size: : [4, 976]"},
      {"Ran out of input. Any idea what is wrong?", "Ran out of input"},
  };
  for (const Case& c : cases) EXPECT_EQ(text::WithoutProseTail(c.msg), c.want) << c.msg;
}

TEST(TextProseTail, LeavesTheProgramsOwnWords) {
  const char* const messages[] = {
      "name 'checkpoint_evry' is not defined. Did you mean: 'checkpoint_every'?",
      "Invalid magic number; corrupt file?",
      "`ModelCheckpoint(monitor='val/usdr')` could not find the monitored key in the returned metrics: ['lr-Adam', "
      "'train/loss']. HINT: Did you call `log('val/usdr', value)` in the `LightningModule`?",
      "`np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.. Did you mean: 'float16'?",
      "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.25 GiB already allocated)",
      "Error(s) in loading state_dict for Net:",
      "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (3)",
      "unexpected EOF, expected 1123 more bytes. The file might be corrupted.",
      "a ` alone",
      "",
  };
  for (const char* m : messages) EXPECT_EQ(text::WithoutProseTail(m), m);
}

}  // namespace
}  // namespace triage

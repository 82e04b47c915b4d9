// The bundled rules' build-time image in the `triage` command (Note: [Bundled rule image] in
// engine/src/rules/rule_cache.h): the bytes engine/tools/rule_image.cc wrote (TRIAGE_RULE_IMAGE),
// included whole by the assembler into read-only data, and noted before main. A load reads only its
// index and the parts it uses; the pages stay in the page cache, shared by every run.
#include <cstddef>

#include "triage/triage.h"


asm(".pushsection .rodata.triage_rule_image,\"a\",@progbits\n"
    ".balign 64\n"
    ".globl triage_rule_image_begin\n"
    ".hidden triage_rule_image_begin\n"
    "triage_rule_image_begin:\n"
    ".incbin \"" TRIAGE_RULE_IMAGE "\"\n"
    ".globl triage_rule_image_end\n"
    ".hidden triage_rule_image_end\n"
    "triage_rule_image_end:\n"
    ".popsection\n");

extern "C" const char triage_rule_image_begin[];
extern "C" const char triage_rule_image_end[];

namespace {
[[maybe_unused]] const bool kImageNoted = triage::internal::NoteBundledRuleImage(
    triage_rule_image_begin, static_cast<std::size_t>(triage_rule_image_end - triage_rule_image_begin));
}  // namespace

# -*- Python -*-

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "LOOM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.loom_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%models", os.path.join(config.loom_src_root, "models")))
config.substitutions.append(("%runtimes", os.path.join(config.loom_src_root, "docs", "runtimes")))
config.substitutions.append(("%loom_src_root", config.loom_src_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.loom_tools_dir, config.llvm_tools_dir]
tools = ["loom-opt", "loom-import", "loom-translate", "loom-sim", "loom-plan", "loom-serve", "loom-capi-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
if config.loom_sanitize:
    # Debian's LLVM is not instrumented (CMakeLists.txt, LOOM_SANITIZE).
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
    # A sanitized LoomPlugin.so loads into the uninstrumented mlir-opt only
    # when the sanitizer runtimes come first.
    if config.loom_sanitizer_preload:
        mlir_opt = "env LD_PRELOAD=%s %s" % (config.loom_sanitizer_preload, mlir_opt)
config.substitutions.append(("%mlir_opt", mlir_opt))
config.substitutions.append(("%loom_plugin", os.path.join(config.loom_obj_root, "lib", "LoomPlugin.so")))

# loom-plan --html is checked in a real browser: Debian's chromium, headless
# (scripts/setup.sh installs it). Where it cannot be installed the test is
# UNSUPPORTED (it REQUIRES chromium).
import shutil
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))

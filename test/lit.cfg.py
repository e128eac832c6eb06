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

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.loom_tools_dir, config.llvm_tools_dir]
tools = ["loom-opt", "loom-import", "loom-translate", "loom-sim", "loom-plan", "loom-capi-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%loom_plugin", os.path.join(config.loom_obj_root, "lib", "LoomPlugin.so")))

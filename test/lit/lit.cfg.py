# lit configuration for Ledger's FileCheck tests.
import os
import sys
import lit.formats

config.name = "Ledger"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ledger", ".play", ".test", ".catalog"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ledger_binary_dir, "test", "lit")

config.substitutions.append(("%ledger-host-check", config.host_check_tool))
config.substitutions.append(("%ledger", config.ledger_tool))
config.substitutions.append(("%root", config.ledger_source_dir))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%cc", config.cc))
config.substitutions.append(("%runtime_lib", config.runtime_lib))
config.substitutions.append(("%include_dir", config.ledger_include))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])

"""Targets: what a kernel compiles for (TVM's Target / TargetKind / tags, in Python).

    Target("cuda -arch=sm_90a -max_shared_memory_per_block=232448")
    Target({"kind": "trn", "num_cores": 2})
    Target("aws/trn1/trn1.2xlarge")                  # a registered tag
    Target("nvidia/jetson-agx-orin-64gb").host       # a tag with a host target
    Target("nvidia/nvidia-h100").max_shared_memory_per_block   # 232448
    detect_target_from_device("cpu")                 # probe this machine

* kind.py: `TargetKind` / `AttrSpec` (typed schema with defaults and categories), the kind and
  tag registries (`register_target_kind`, ``tags``);
* target.py: `Target` (from a string, dict, tag or Target; ``str()`` re-parses; ``to_attr()``),
  `register_tag` / `list_tags`, and the one rule for the target of a kernel or module
  (`target_text_of`, `target_of`, `kernel_target`) with `set_target`;
* detect.py: device detectors (`register_device_target_detector`, `detect_target_from_device`);
* llvm.py: the core's ``llvm`` kind and the ``cpu`` detector. Other kinds come from backends.

All registries are owner-tracked (tirx_mlir.registry), so a failed backend load removes its kinds,
tags and detectors.
"""

from __future__ import annotations

from tirx_mlir.target.detect import (DeviceNotFoundError, detect_target_from_device,
                                     device_detectors, list_device_detectors, parse_device,
                                     register_device_target_detector)
from tirx_mlir.target.kind import (CATEGORIES, COMMON_ATTRS, AttrSpec, TargetAttributeError,
                                   TargetError, TargetKind, list_target_kinds,
                                   register_target_kind, tags, target_kinds)
from tirx_mlir.target.target import (MODULE_TARGET_ATTR, Target, kernel_target, list_tags,
                                     register_tag, set_target, target_of, target_text_of)
from tirx_mlir.target import llvm as _llvm  # noqa: F401 - registers the llvm kind and cpu detector

__all__ = ["AttrSpec", "CATEGORIES", "COMMON_ATTRS", "DeviceNotFoundError", "MODULE_TARGET_ATTR",
           "Target", "TargetAttributeError", "TargetError", "TargetKind",
           "detect_target_from_device", "device_detectors", "list_device_detectors", "list_tags",
           "list_target_kinds", "parse_device", "register_device_target_detector",
           "kernel_target", "register_tag", "register_target_kind", "set_target", "tags",
           "target_kinds", "target_of", "target_text_of"]
